/**
 * @module Turns the aggregator's object graph into plain data that `v8.serialize` can write, and
 * back into instances of the same classes. Generic on purpose: the metrics state is a dozen
 * classes of typed arrays, maps and numbers (state/*.ts), and a hand-written codec per class
 * would have to change with each of them; here a new field is saved without a line of codec.
 *
 * - a class instance becomes `{ $class: its class name, f: its own fields }`; functions are not saved
 *   (the instance restored INTO, made by the same constructor, keeps its own);
 * - an hdr histogram becomes its compressed encoding (its iterators point back at it, and its
 *   counts array is mostly zeros);
 * - one object reached twice (MinuteSeries' lastItem is also in its slots) is converted once,
 *   and `v8.serialize` keeps that sharing, so the restored graph shares it too.
 *
 * Restoring looks each class name up in a registry: an unknown name is an error (the checkpoint
 * was written by another version), never an object with the wrong prototype.
 */
import { decodeFromCompressedBase64, type Histogram } from 'hdr-histogram-js';
import { encodedHistogram } from '../state/latency-histograms.ts';

/** The class name a histogram's plain form carries. */
const HISTOGRAM = 'hdr';

/** `$class`: a name no field of the state has, so a plain record is never taken for one. */
interface PlainInstance {
  readonly $class: string;
  readonly f?: Record<string, unknown>;
  readonly h?: string;
}

const isHistogram = (value: object): value is Histogram =>
  'recordValueWithCount' in value && 'getValueAtPercentile' in value && 'totalCount' in value;

const isPlainInstance = (value: unknown): value is PlainInstance =>
  typeof value === 'object' &&
  value !== null &&
  Object.getPrototypeOf(value) === Object.prototype &&
  typeof (value as { $class?: unknown }).$class === 'string';

/** Converts `root` into data of primitives, arrays, typed arrays, Maps, Sets and plain objects. */
export function toPlain(root: unknown): unknown {
  const seen = new Map<object, unknown>();
  const convert = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    if (ArrayBuffer.isView(value)) return value;
    const done = seen.get(value);
    if (done !== undefined) return done;
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      seen.set(value, out);
      for (let i = 0; i < value.length; i++) out[i] = convert(value[i]);
      return out;
    }
    if (value instanceof Map) {
      const out = new Map<unknown, unknown>();
      seen.set(value, out);
      for (const [key, item] of value) out.set(key, convert(item));
      return out;
    }
    if (value instanceof Set) {
      seen.set(value, value);
      return value; // of strings and numbers only in the metrics state
    }
    if (isHistogram(value)) {
      const out: PlainInstance = { $class: HISTOGRAM, h: encodedHistogram(value) };
      seen.set(value, out);
      return out;
    }
    const fields: Record<string, unknown> = {};
    const proto: unknown = Object.getPrototypeOf(value);
    // A plain object (a cached stats record, a counts record) stays one.
    const name = (value.constructor as { name: string }).name;
    const out = proto === Object.prototype ? fields : { $class: name, f: fields };
    seen.set(value, out);
    for (const [key, item] of Object.entries(value)) {
      if (typeof item !== 'function') fields[key] = convert(item);
    }
    return out;
  };
  return convert(root);
}

export interface Restorers {
  /** Class name -> prototype, for instances that no constructed target holds (array slots). */
  readonly classes: ReadonlyMap<string, object>;
  /** An empty histogram of the layout the state uses; the decoded one is added into it. */
  readonly histogram: () => Histogram;
}

/**
 * Rebuilds `plain` (what toPlain made, after a v8 round trip), restoring each instance INTO the
 * object `target` holds at the same place when it is of the same class (it keeps its functions
 * and what its constructor set), else into a new object of the registered class.
 */
export function fromPlain(plain: unknown, target: unknown, restorers: Restorers): unknown {
  const seen = new Map<object, unknown>();
  const restore = (value: unknown, into: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    if (ArrayBuffer.isView(value)) return value;
    const done = seen.get(value);
    if (done !== undefined) return done;
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      seen.set(value, out);
      const old = Array.isArray(into) ? (into as unknown[]) : [];
      for (let i = 0; i < value.length; i++) out[i] = restore(value[i], old[i]);
      return out;
    }
    if (value instanceof Map) {
      const out = new Map<unknown, unknown>();
      seen.set(value, out);
      for (const [key, item] of value) out.set(key, restore(item, undefined));
      return out;
    }
    if (value instanceof Set) return value;
    if (!isPlainInstance(value)) {
      // Filled into the target's own record when it has one (a series' ops keep their functions;
      // a frozen shared constant is never written to).
      const own =
        typeof into === 'object' &&
        into !== null &&
        Object.getPrototypeOf(into) === Object.prototype &&
        !Object.isFrozen(into);
      const out = own ? (into as Record<string, unknown>) : {};
      seen.set(value, out);
      for (const [key, item] of Object.entries(value)) out[key] = restore(item, out[key]);
      return out;
    }
    if (value.$class === HISTOGRAM) {
      const histogram = restorers.histogram();
      // '' is an empty one (encodedHistogram); format 1 wrote those encoded too.
      if (value.h !== undefined && value.h !== '')
        histogram.add(decodeFromCompressedBase64(value.h, 32, false));
      seen.set(value, histogram);
      return histogram;
    }
    const sameClass =
      typeof into === 'object' &&
      into !== null &&
      (into.constructor as { name: string }).name === value.$class;
    let out: Record<string, unknown>;
    if (sameClass) out = into as Record<string, unknown>;
    else {
      const proto = restorers.classes.get(value.$class);
      if (proto === undefined) throw new Error(`checkpoint names an unknown class ${value.$class}`);
      out = Object.create(proto) as Record<string, unknown>;
    }
    seen.set(value, out);
    for (const [key, item] of Object.entries(value.f ?? {})) out[key] = restore(item, out[key]);
    return out;
  };
  return restore(plain, target);
}
