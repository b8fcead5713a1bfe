/** A minimal valid NewEvent for tests of the ingest path below HTTP; `i` lands in its metadata. */
import type { NewEvent } from '../../src/domain/event.ts';

export const newEvent = (i: number): NewEvent => ({
  eventType: 'e',
  source: 's',
  timestamp: 0,
  receivedAt: 0,
  userId: null,
  sessionId: null,
  severity: 'INFO',
  tags: {},
  metadata: { i },
});
