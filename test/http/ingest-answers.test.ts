// The ingest routes' answers by outcome: a 202 is one increment (a batch's also adds its item
// counts); an error answer counts under its code, an unknown one under internal.
import t from 'tap';
import { AppError } from '../../src/errors.ts';
import { errorReply } from '../../src/http/error-response.ts';
import { IngestAnswers } from '../../src/http/ingest-answers.ts';
import { createLogger } from '../../src/log.ts';

const log = createLogger('silent', 'test');
const countOf = (answers: IngestAnswers, outcome: string): number | undefined =>
  answers.outcomes().find((o) => o.outcome === outcome)?.count;

void t.test('single events: 202 accepted, errors by code', (t) => {
  const single = new IngestAnswers(false);
  single.count({ status: 202, body: {} });
  single.count({ status: 202, body: {} });
  single.count(errorReply(new AppError('OVERLOADED', 'full'), log));
  single.count(errorReply(new AppError('VALIDATION_FAILED', 'bad'), log));
  single.count(errorReply(new Error('bug'), log));
  t.equal(single.accepted, 2);
  t.equal(countOf(single, 'accepted'), 2);
  t.equal(countOf(single, 'overloaded'), 1);
  t.equal(countOf(single, 'validation_failed'), 1);
  t.equal(countOf(single, 'internal'), 1);
  t.equal(countOf(single, 'unauthorized'), 0, 'an ingest refusal is exported at 0');
  t.equal(countOf(single, 'not_found'), undefined, 'another code only once answered');
  t.equal(single.refusedTotal(), 3);
  t.equal(single.acceptedItems, 0, 'single answers carry no item counts');
  t.end();
});

void t.test("a batch's 202 adds its accepted and rejected items", (t) => {
  const batch = new IngestAnswers(true);
  batch.count({ status: 202, body: { status: 'accepted', accepted: 3, rejected: 1, results: [] } });
  batch.count(errorReply(new AppError('PAYLOAD_TOO_LARGE', 'big'), log));
  t.equal(batch.accepted, 1);
  t.equal(batch.acceptedItems, 3);
  t.equal(batch.rejectedItems, 1);
  t.equal(countOf(batch, 'payload_too_large'), 1);
  t.end();
});
