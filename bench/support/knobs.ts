/**
 * Bench knobs from the environment (ROUNDS, DURATION, CONNECTIONS, ...): positive integers with
 * defaults; a bad value stops the bench with a message naming it.
 */

export function intKnob(name: string, fallback: number, minimum = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < minimum) {
    throw new Error(`${name}=${raw}: must be an integer >= ${minimum}`);
  }
  return value;
}

export const flagKnob = (name: string): boolean =>
  ['1', 'true', 'yes'].includes(process.env[name] ?? '');
