/**
 * @module The explorer's search controls: filter chips (a field, a value with suggestions, added on
 * Enter or "Add"; × removes one) and the time range (presets back from now, or from – to).
 */
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { VNode } from 'preact';
import { SelectField, TextField } from './fields.ts';
import {
  FILTER_FIELDS,
  Q_FIELDS,
  RANGES,
  type ExplorerQuery,
  type RangeName,
} from './explorer-query.ts';
import { SEVERITIES } from '../../domain/event.ts';

const FIELD_LABELS: Readonly<Record<(typeof FILTER_FIELDS)[number], string>> = {
  eventType: 'type (checkout.* for a prefix)',
  source: 'source',
  severity: 'severity',
  userId: 'user',
  sessionId: 'session',
  q: 'text',
  qField: 'text only in (field)',
  'tag.': 'tag.<key>',
  'metadata.': 'metadata.<path>',
};

interface SearchProps {
  readonly query: ExplorerQuery;
  readonly onSearch: (next: ExplorerQuery) => void;
}

export function FilterBar(
  props: SearchProps & { readonly types: readonly string[]; readonly sources: readonly string[] },
): VNode {
  const { query, onSearch } = props;
  const [field, setField] = useState<string>('eventType');
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const keyed = field.endsWith('.');
  const suggestions =
    field === 'eventType'
      ? props.types
      : field === 'source'
        ? props.sources
        : field === 'severity'
          ? SEVERITIES
          : field === 'qField'
            ? Q_FIELDS
            : [];
  const add = (e: Event): void => {
    e.preventDefault();
    const name = keyed ? `${field}${key.trim()}` : field;
    if (value.trim() === '' || (keyed && key.trim() === '')) return;
    onSearch({ ...query, filters: [...query.filters, { field: name, value: value.trim() }] });
    setValue('');
  };
  const remove = (i: number) => () =>
    onSearch({ ...query, filters: query.filters.filter((_, j) => j !== i) });
  return html`<form class="filter-bar" onSubmit=${add} aria-label="Filters">
    <datalist id="filter-values">${suggestions.map((s) => html`<option value=${s} />`)}</datalist>
    <${SelectField}
      label="Field"
      name="filterField"
      value=${field}
      onValue=${setField}
      options=${FILTER_FIELDS.map((f) => [f, FIELD_LABELS[f]] as const)}
    />
    ${keyed ? html`<${TextField} label="Key" name="filterKey" value=${key} onValue=${setKey} size=${10} />` : ''}
    <${TextField}
      label="Value"
      name="filterValue"
      value=${value}
      onValue=${setValue}
      list="filter-values"
      placeholder=${field === 'severity' ? 'ERROR' : ''}
    />
    <button type="submit">Add</button>
    <ul class="chips" aria-label="Active filters">
      ${query.filters.map(
        (f, i) =>
          html`<li class="chip" data-filter=${f.field}>
            <span>${f.field} = ${f.value}</span>
            <button type="button" aria-label=${`Remove ${f.field} filter`} onClick=${remove(i)}>
              ×
            </button>
          </li>`,
      )}
    </ul>
  </form>`;
}

export function RangePicker({ query, onSearch }: SearchProps): VNode {
  const [from, setFrom] = useState(query.from);
  const [to, setTo] = useState(query.to);
  return html`<span class="range-picker">
    <${SelectField}
      label="Range"
      name="range"
      value=${query.range}
      onValue=${(v: string) => onSearch({ ...query, range: v as RangeName })}
      options=${RANGES.map(([name, text]) => [name, text] as const)}
    />
    ${
      query.range !== 'custom'
        ? ''
        : html`<label
              >From
              <input
                type="datetime-local"
                name="from"
                value=${from}
                onChange=${(e: Event) => setFrom((e.target as HTMLInputElement).value)}
            /></label>
            <label
              >To
              <input
                type="datetime-local"
                name="to"
                value=${to}
                onChange=${(e: Event) => setTo((e.target as HTMLInputElement).value)}
            /></label>
            <button type="button" onClick=${() => onSearch({ ...query, from, to })}>Apply</button>`
    }
  </span>`;
}
