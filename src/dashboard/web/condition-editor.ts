/**
 * @module Editing one node of the condition tree: a leaf (metric, operator, threshold, window) or
 * an AND / OR / NOT group of nodes, nested to any depth. The tree is changed in place and
 * `onChange` tells the editor to re-render and re-validate.
 */
import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { SelectField, TextField } from './fields.ts';
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

function Leaf({
  draft,
  path,
  onChange,
  onRemove,
  onWrap,
}: NodeProps & { draft: LeafDraft }): VNode {
  const set = (field: 'metric' | 'operator' | 'threshold' | 'windowMinutes') => (value: string) => {
    draft[field] = value;
    onChange();
  };
  const operators = OPERATOR_NAMES.map((op) => [op, `${OPERATORS[op]} ${op}`] as const);
  return html`<div class="leaf" data-path=${path}>
    <${TextField}
      label="Metric"
      name=${`${path}.metric`}
      value=${draft.metric}
      onValue=${set('metric')}
      list="metric-names"
    />
    <${SelectField}
      label="Operator"
      name=${`${path}.operator`}
      value=${draft.operator}
      onValue=${set('operator')}
      options=${operators}
    />
    <${TextField}
      label="Threshold"
      name=${`${path}.threshold`}
      value=${draft.threshold}
      onValue=${set('threshold')}
      size=${8}
    />
    <${TextField}
      label="Window (min)"
      name=${`${path}.windowMinutes`}
      value=${draft.windowMinutes}
      onValue=${set('windowMinutes')}
      placeholder="inherit"
      size=${6}
    />
    ${onWrap === undefined ? '' : html`<button type="button" onClick=${onWrap}>Group</button>`}
    ${
      onRemove === undefined
        ? ''
        : html`<button type="button" onClick=${onRemove} aria-label="Remove condition">
            Remove
          </button>`
    }
  </div>`;
}

function Group({ draft, path, onChange, onRemove }: NodeProps & { draft: GroupDraft }): VNode {
  const add = (node: Draft) => () => {
    draft.conditions.push(node);
    onChange();
  };
  return html`<fieldset class="group" data-path=${path}>
    <legend>
      <${SelectField}
        label="Group"
        name=${`${path}.logicalOperator`}
        value=${draft.logicalOperator}
        options=${LOGICAL_OPERATORS}
        onValue=${(value: string) => {
          draft.logicalOperator = value as LogicalOperator;
          onChange();
        }}
      />
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
