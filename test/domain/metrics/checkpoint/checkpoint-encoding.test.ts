// What keeps a metrics checkpoint cheap to take (issue 33): a histogram's encoding is reused
// while its count stays the same and made anew once it records; an empty one is written as
// nothing and restored empty.
import { deserialize, serialize } from 'node:v8';
import t from 'tap';
import { decodeFromCompressedBase64 } from 'hdr-histogram-js';
import { fromPlain, toPlain } from '../../../../src/domain/metrics/checkpoint/object-graph.ts';
import {
  encodedHistogram,
  newHistogram,
} from '../../../../src/domain/metrics/state/latency-histograms.ts';

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
