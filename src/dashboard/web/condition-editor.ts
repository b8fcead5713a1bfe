/**
 * @module Editing one node of the condition tree: a leaf (metric, operator, threshold, window) or
 * an AND / OR / NOT group of nodes, nested to any depth. The tree is changed in place and
 * `onChange` tells the editor to re-render and re-validate.
 */
import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { newLeaf, type Draft, type GroupDraft, type LeafDraft } from './condition-draft.ts';
import {
  LOGICAL_OPERATORS,
  OPERATOR_NAMES,
  OPERATORS,
  type LogicalOperator,
} from '../../domain/rules/rule-types.ts';

interface NodeProps {
  readonly draft: Draft;
  readonly path: string;
  readonly onChange: () => void;
  /** Absent for the root. */
  readonly onRemove?: () => void;
  /** Leaves only: make this leaf the first condition of a new group in its place. */
  readonly onWrap?: () => void;
}

const valueOf = (e: Event): string => (e.target as HTMLInputElement | HTMLSelectElement).value;

function Leaf({
  draft,
  path,
  onChange,
  onRemove,
  onWrap,
}: NodeProps & { draft: LeafDraft }): VNode {
  const set = (field: 'metric' | 'operator' | 'threshold' | 'windowMinutes') => (e: Event) => {
    draft[field] = valueOf(e);
    onChange();
  };
  return html`<div class="leaf" data-path=${path}>
    <label
      >Metric
      <input
        list="metric-names"
        value=${draft.metric}
        onInput=${set('metric')}
        name=${`${path}.metric`}
    /></label>
    <label
      >Operator
      <select value=${draft.operator} onChange=${set('operator')} name=${`${path}.operator`}>
        ${OPERATOR_NAMES.map((op) => html`<option value=${op}>${OPERATORS[op]} ${op}</option>`)}
      </select></label
    >
    <label
      >Threshold
      <input
        value=${draft.threshold}
        onInput=${set('threshold')}
        name=${`${path}.threshold`}
        inputmode="decimal"
        size="8"
    /></label>
    <label
      >Window (min)
      <input
        value=${draft.windowMinutes}
        onInput=${set('windowMinutes')}
        name=${`${path}.windowMinutes`}
        placeholder="inherit"
        size="6"
    /></label>
    ${onWrap === undefined ? '' : html`<button type="button" onClick=${onWrap}>Group</button>`}
    ${onRemove === undefined ? '' : html`<button type="button" onClick=${onRemove} aria-label="Remove condition">Remove</button>`}
  </div>`;
}

function Group({ draft, path, onChange, onRemove }: NodeProps & { draft: GroupDraft }): VNode {
  const add = (node: Draft) => () => {
    draft.conditions.push(node);
    onChange();
  };
  return html`<fieldset class="group" data-path=${path}>
    <legend>
      <select
        aria-label="Logical operator"
        value=${draft.logicalOperator}
        name=${`${path}.logicalOperator`}
        onChange=${(e: Event) => {
          draft.logicalOperator = valueOf(e) as LogicalOperator;
          onChange();
        }}
      >
        ${LOGICAL_OPERATORS.map((op) => html`<option>${op}</option>`)}
      </select>
    </legend>
    ${draft.conditions.map(
      (child, i) =>
        html`<${ConditionNode}
          draft=${child}
          path=${`${path}.conditions[${i}]`}
          onChange=${onChange}
          onRemove=${() => {
            draft.conditions.splice(i, 1);
            onChange();
          }}
          onWrap=${() => {
            draft.conditions[i] = { kind: 'group', logicalOperator: 'AND', conditions: [child] };
            onChange();
          }}
        />`,
    )}
    <div class="group-actions">
      <button type="button" onClick=${add(newLeaf())}>Add condition</button>
      <button
        type="button"
        onClick=${add({ kind: 'group', logicalOperator: 'OR', conditions: [newLeaf()] })}
      >
        Add group
      </button>
      ${onRemove === undefined ? '' : html`<button type="button" onClick=${onRemove}>Remove group</button>`}
    </div>
  </fieldset>`;
}

export function ConditionNode(props: NodeProps): VNode {
  return props.draft.kind === 'group'
    ? html`<${Group} ...${props} draft=${props.draft} />`
    : html`<${Leaf} ...${props} draft=${props.draft} />`;
}
