// What keeps a metrics checkpoint small and cheap to take (issue 33): typed arrays of mostly
// zeros travel sparse and come back equal, dense ones whole; a histogram's encoding is reused
// while its count stays the same and made anew once it records, and an empty one is written
// as nothing and restored empty.
import { deserialize, serialize } from 'node:v8';
import t from 'tap';
import { decodeFromCompressedBase64 } from 'hdr-histogram-js';
import { fromPlain, toPlain } from '../../../../src/domain/metrics/checkpoint/object-graph.ts';
import {
  denseOf,
  isSparse,
  sparseOf,
} from '../../../../src/domain/metrics/checkpoint/sparse-arrays.ts';
import {
  encodedHistogram,
  newHistogram,
} from '../../../../src/domain/metrics/state/latency-histograms.ts';

void t.test('typed arrays of mostly zeros go sparse, and come back equal', (t) => {
  for (const Kind of [Float64Array, Int32Array, Uint32Array, Uint16Array, Uint8Array]) {
    const array = new Kind(1440);
    array[0] = 3;
    array[700] = 5;
    array[1439] = 7;
    const sparse = sparseOf(array);
    t.ok(isSparse(sparse), `${Kind.name}: 3 of 1440 slots written sparse`);
    const back = isSparse(sparse) ? denseOf(sparse) : sparse;
    t.same(back, array, `${Kind.name}: equal after the round trip`);
    t.equal(back.constructor, Kind);
  }
  const dense = Float64Array.from({ length: 1000 }, (_, i) => i % 2);
  t.equal(sparseOf(dense), dense, 'half non-zero: written whole');
  const short = new Float64Array(10);
  t.equal(sparseOf(short), short, 'a short array: written whole');
  const shared = new Int32Array(2000);
  shared[5] = 1;
  const plain = deserialize(serialize(toPlain({ a: shared, b: shared, c: [shared] }))) as unknown;
  const restored = fromPlain(plain, undefined, {
    classes: new Map(),
    histogram: newHistogram,
  }) as { a: Int32Array; b: Int32Array; c: Int32Array[] };
  t.same(restored.a, shared);
  t.equal(restored.a, restored.b, 'one array reached twice is one array after');
  t.equal(restored.a, restored.c[0]);
  t.end();
});

void t.test("a histogram's encoding: reused while unchanged, new once it records", (t) => {
  const histogram = newHistogram();
  t.equal(encodedHistogram(histogram), '', 'empty: nothing to write');
  histogram.recordValue(12);
  const first = encodedHistogram(histogram);
  t.equal(encodedHistogram(histogram), first, 'unchanged: the same text');
  histogram.recordValue(900);
  const second = encodedHistogram(histogram);
  t.not(second, first, 'a record changes it');
  t.equal(decodeFromCompressedBase64(second, 32, false).totalCount, 2);
  const plain = deserialize(serialize(toPlain({ h: histogram, e: newHistogram() }))) as unknown;
  const restored = fromPlain(plain, undefined, { classes: new Map(), histogram: newHistogram }) as {
    h: typeof histogram;
    e: typeof histogram;
  };
  t.equal(restored.h.totalCount, 2);
  t.equal(restored.h.getValueAtPercentile(100), histogram.getValueAtPercentile(100));
  t.equal(restored.e.totalCount, 0, 'the empty one restored empty');
  t.end();
});
