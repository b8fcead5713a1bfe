/**
 * @module The typed arrays of a metrics checkpoint, written sparse when mostly zeros: the minute
 * buckets hold a slot per type for each of the day's 1440 minutes, and most types are absent from
 * most minutes. Written whole, 1,000 types made 54 MiB for v8.serialize and deflate to walk every
 * 10 s (455 MiB at 10,000 types); as the non-zero slots and their places, a few MiB.
 */

/** The typed arrays the state holds, by constructor name (a checkpoint names them). */
const KINDS = {
  Float64Array,
  Float32Array,
  Int32Array,
  Uint32Array,
  Int16Array,
  Uint16Array,
  Int8Array,
  Uint8Array,
} as const;
type KindName = keyof typeof KINDS;
type Numeric = InstanceType<(typeof KINDS)[KindName]>;

/** A typed array as its length, the places of its non-zero slots and their values. */
export interface SparseArray {
  readonly $sparse: KindName;
  readonly length: number;
  readonly at: Uint32Array;
  readonly values: Numeric;
}

/** Arrays shorter than this are written whole: their scan would cost more than they weigh. */
const MIN_LENGTH = 256;

const kindOf = (value: ArrayBufferView): KindName | null => {
  const name = value.constructor.name;
  return name in KINDS ? (name as KindName) : null;
};

/** `value` sparse when under a quarter of its slots are non-zero, else itself. */
export function sparseOf(value: ArrayBufferView): ArrayBufferView | SparseArray {
  const kind = kindOf(value);
  if (kind === null) return value;
  const array = value as Numeric;
  if (array.length < MIN_LENGTH) return value;
  let nonZero = 0;
  const limit = array.length >>> 2;
  for (let i = 0; i < array.length; i++) {
    if (array[i] !== 0 && ++nonZero > limit) return value;
  }
  const at = new Uint32Array(nonZero);
  const values = new KINDS[kind](nonZero);
  let k = 0;
  for (let i = 0; i < array.length; i++) {
    const v = array[i]!;
    if (v === 0) continue;
    at[k] = i;
    values[k++] = v;
  }
  return { $sparse: kind, length: array.length, at, values };
}

export const isSparse = (value: unknown): value is SparseArray =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { $sparse?: unknown }).$sparse === 'string';

/** The typed array back; throws on a kind this version does not know (another version wrote it). */
export function denseOf(sparse: SparseArray): Numeric {
  const Kind = KINDS[sparse.$sparse] as (new (length: number) => Numeric) | undefined;
  if (Kind === undefined) throw new Error(`checkpoint names an unknown array ${sparse.$sparse}`);
  const array = new Kind(sparse.length);
  for (let k = 0; k < sparse.at.length; k++) array[sparse.at[k]!] = sparse.values[k]!;
  return array;
}
