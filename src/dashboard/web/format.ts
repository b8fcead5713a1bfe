/** @module Number, time and duration formatting for the views. */
export const fixed = (value: number, digits = 1): string =>
  Number.isFinite(value) ? value.toFixed(digits) : '–';

export const count = (value: number): string => Math.round(value).toLocaleString('en-US');

export const time = (iso: string | null): string =>
  iso === null ? '–' : new Date(iso).toLocaleString();

/** `3 h 4 min`, `5 min 2 s`, `12 s`. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}
