/**
 * @module Time arithmetic of the metrics: epoch ms to whole seconds, minutes and hours (UTC), and
 * ISO strings. Every bucket is keyed by these absolute numbers.
 */
export const SECOND_MS = 1000;
export const MINUTE_MS = 60_000;
export const MINUTES_PER_HOUR = 60;

export const secondOf = (epochMs: number): number => Math.floor(epochMs / SECOND_MS);
export const minuteOf = (epochMs: number): number => Math.floor(epochMs / MINUTE_MS);
export const hourOfMinute = (minute: number): number => Math.floor(minute / MINUTES_PER_HOUR);
export const isoOf = (epochMs: number): string => new Date(epochMs).toISOString();
