/**
 * @module The page's small building blocks: labelled text and select fields (the label wraps the
 * control, so it is named for screen readers and clickable), a table with a header row, an error
 * line, and useLoad, which fetches a view's data and keeps the error to show.
 */
import { html } from 'htm/preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ComponentChildren, VNode } from 'preact';
import { describeError } from './api.ts';

interface FieldProps {
  readonly label: string;
  readonly name: string;
  readonly value: string;
  readonly onValue: (value: string) => void;
  readonly class?: string;
}

export function TextField(
  props: FieldProps & {
    readonly placeholder?: string;
    readonly size?: number;
    /** A datalist's id: suggestions while typing. */
    readonly list?: string;
  },
): VNode {
  return html`<label class=${props.class}
    >${props.label}
    <input
      name=${props.name}
      value=${props.value}
      placeholder=${props.placeholder}
      size=${props.size}
      list=${props.list}
      onInput=${(e: Event) => props.onValue((e.target as HTMLInputElement).value)}
  /></label>`;
}

/** `options`: values, or [value, text] pairs. */
export function SelectField(
  props: FieldProps & { readonly options: readonly (string | readonly [string, string])[] },
): VNode {
  return html`<label class=${props.class}
    >${props.label}
    <select
      name=${props.name}
      value=${props.value}
      onChange=${(e: Event) => props.onValue((e.target as HTMLSelectElement).value)}
    >
      ${props.options.map((option) =>
        typeof option === 'string'
          ? html`<option value=${option}>${option}</option>`
          : html`<option value=${option[0]}>${option[1]}</option>`,
      )}
    </select></label
  >`;
}

export function Table(props: {
  readonly label: string;
  readonly headers: readonly string[];
  readonly children: ComponentChildren;
}): VNode {
  return html`<div class="table-wrap">
    <table aria-label=${props.label}>
      <thead>
        <tr>
          ${props.headers.map((h) => html`<th>${h}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${props.children}
      </tbody>
    </table>
  </div>`;
}

export const ErrorLine = ({ error }: { error: string }): VNode | null =>
  error === '' ? null : html`<p class="error" role="alert">${error}</p>`;

export interface Loaded<T> {
  /** null until the first answer. */
  readonly data: T | null;
  /** The last failure, '' after a success. */
  readonly error: string;
  readonly reload: () => void;
}

/** Calls `load` now and whenever `deps` change (and on reload); keeps its answer or error. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState('');
  // The caller names in `deps` what `load` reads.
  const reload = useCallback(() => {
    load().then(
      (value) => {
        setData(value);
        setError('');
      },
      (e: unknown) => setError(describeError(e)),
    );
  }, deps);
  useEffect(reload, [reload]);
  return { data, error, reload };
}
