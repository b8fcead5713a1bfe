// OTLP/HTTP logs ingest (issue 32) on the real service: the OpenTelemetry JS SDK's own OTLP log
// exporters (JSON and protobuf) pointed at POST /v1/logs with an ingest key; each log record read
// back as an event with the mapping applied; a partial success as OTLP answers it; hostile bodies
// answered 4xx while the service stays up.
import t from 'tap';
import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import { SeverityNumber, type LogRecord } from '@opentelemetry/api-logs';
import { OTLPLogExporter as JsonExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchLogRecordProcessor,
  LoggerProvider,
  SimpleLogRecordProcessor,
  type LogRecordExporter,
  type ReadableLogRecord,
} from '@opentelemetry/sdk-logs';
import { readPage, type ApiEvent } from '../support/events.ts';
import { TEST_ADMIN_KEY } from '../support/keys.ts';
import { startTestService } from '../support/service.ts';
import {
  decodeLogsResponse,
  decodeStatus,
} from '../../src/schemas/ingest-formats/otlp-protobuf.ts';

const MAX_BODY_BYTES = 65536;
const svc = await startTestService(t, {
  OTLP_EVENT_TYPE_ATTRIBUTE: 'app.event',
  MAX_BODY_BYTES: String(MAX_BODY_BYTES),
});
const url = `${svc.base}/v1/logs`;

/** Warnings the SDK logs, where it reports a partial success. */
const warnings: string[] = [];
const capture = (...args: unknown[]): void => void warnings.push(args.join(' '));
const logger: DiagLogger = { error: capture, warn: capture, info() {}, debug() {}, verbose() {} };
diag.setLogger(logger, DiagLogLevel.WARN);

/** The exporter's result for each export, as the SDK reports it. */
class Recording implements LogRecordExporter {
  readonly results: { code: number; error?: Error }[] = [];
  constructor(private readonly inner: LogRecordExporter) {}
  export(logs: ReadableLogRecord[], done: (result: { code: number; error?: Error }) => void) {
    this.inner.export(logs, (result) => {
      this.results.push(result);
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }
}

/** Emits `records` through the SDK with `exporter`, flushed and shut down; the export results. */
async function emitAll(
  exporter: LogRecordExporter,
  records: readonly LogRecord[],
  scope = 'test-scope',
  batched = false,
) {
  const recording = new Recording(exporter);
  const processor = batched
    ? new BatchLogRecordProcessor({ exporter: recording })
    : new SimpleLogRecordProcessor({ exporter: recording });
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'checkout' }),
    processors: [processor],
  });
  const log = provider.getLogger(scope);
  for (const record of records) log.emit(record);
  await provider.forceFlush();
  await provider.shutdown();
  return recording.results;
}

const headers = { 'x-api-key': TEST_ADMIN_KEY };
const exporters = {
  json: () => new JsonExporter({ url, headers }),
  protobuf: () => new ProtoExporter({ url, headers }),
};

async function eventsOfType(type: string): Promise<ApiEvent[]> {
  const page = await readPage(
    await svc.request(`/api/v1/events/type/${encodeURIComponent(type)}?size=50`),
  );
  return page.content;
}

for (const [encoding, make] of Object.entries(exporters)) {
  void t.test(`the SDK's ${encoding} exporter: each record is an event`, async (t) => {
    const type = `otlp.${encoding}.signup`;
    const when = new Date('2026-11-28T07:30:00.125Z');
    const results = await emitAll(make(), [
      {
        eventName: type,
        severityNumber: SeverityNumber.WARN,
        severityText: 'WARN',
        body: 'signed up',
        timestamp: when,
        attributes: { 'enduser.id': 'u-42', plan: 'pro', seats: 3 },
      },
      { eventName: type, severityNumber: SeverityNumber.FATAL, attributes: { plan: 'free' } },
    ]);
    t.same(
      results.map((r) => r.code),
      [0, 0],
      'both exports succeed',
    );
    const events = await eventsOfType(type);
    t.equal(events.length, 2);
    const warn = events.find((e) => e.tags.plan === 'pro');
    t.equal(warn?.source, 'checkout', 'service.name is the source');
    t.equal(warn?.severity, 'WARNING');
    t.equal(warn?.userId, 'u-42', 'enduser.id is the user');
    t.equal(warn?.timestamp, when.toISOString());
    t.same(warn?.tags, { 'enduser.id': 'u-42', plan: 'pro' }, 'string attributes are tags');
    t.same((warn?.metadata as { attributes: unknown }).attributes, {
      'enduser.id': 'u-42',
      plan: 'pro',
      seats: 3,
    });
    t.equal((warn?.metadata as { body: unknown }).body, 'signed up');
    t.equal(events.find((e) => e.tags.plan === 'free')?.severity, 'CRITICAL', 'FATAL');
  });
}

void t.test(
  'without eventName: event.name, then the configured attribute, then the scope',
  async (t) => {
    await emitAll(
      exporters.protobuf(),
      [
        { attributes: { 'event.name': 'otlp.legacy.name' } },
        { attributes: { 'app.event': 'otlp.configured.name' } },
        { body: 'a plain log line' },
      ],
      'otlp.scope.name',
    );
    t.equal((await eventsOfType('otlp.legacy.name')).length, 1);
    t.equal((await eventsOfType('otlp.configured.name')).length, 1);
    t.equal((await eventsOfType('otlp.scope.name')).length, 1);
  },
);

void t.test('a partial success: the good records stored, the bad one counted', async (t) => {
  warnings.length = 0;
  const type = 'otlp.partial';
  // The batch processor sends both records in one request.
  const results = await emitAll(
    exporters.json(),
    [{ eventName: type, attributes: { n: 1 } }, { eventName: 'x'.repeat(300) }],
    'test-scope',
    true,
  );
  t.same(
    results.map((r) => r.code),
    [0],
    'a partial success is a success: the exporter must not retry',
  );
  t.match(warnings.join('\n'), /Partial Success.*"rejectedLogRecords":"1"/, 'the SDK saw it');
  t.equal((await eventsOfType(type)).length, 1);
  // The same by hand, to read the answer itself.
  const body = {
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'raw' } }] },
        scopeLogs: [
          {
            scope: { name: 's' },
            logRecords: [
              { eventName: 'otlp.partial.raw', timeUnixNano: '1764315000000000000' },
              { eventName: 'y'.repeat(300) },
            ],
          },
        ],
      },
    ],
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  t.equal(res.status, 200);
  const answer = (await res.json()) as {
    partialSuccess: { rejectedLogRecords: string; errorMessage: string };
  };
  t.equal(answer.partialSuccess.rejectedLogRecords, '1');
  t.match(answer.partialSuccess.errorMessage, /log record 1: eventType/);
  const [event] = await eventsOfType('otlp.partial.raw');
  t.equal(event?.timestamp, '2025-11-28T07:30:00.000Z', 'timeUnixNano is the timestamp');
});

void t.test('log.record.uid deduplicates a retried record', async (t) => {
  const record = { eventName: 'otlp.dedup', attributes: { 'log.record.uid': '01JDEDUP' } };
  await emitAll(exporters.json(), [record]);
  await emitAll(exporters.protobuf(), [record]);
  t.equal((await eventsOfType('otlp.dedup')).length, 1);
});

void t.test('hostile bodies: 4xx, and the service stays up', async (t) => {
  const post = (body: string | Uint8Array, contentType: string) =>
    fetch(url, { method: 'POST', headers: { ...headers, 'content-type': contentType }, body });
  const big = await post(new Uint8Array(MAX_BODY_BYTES + 1), 'application/x-protobuf');
  t.equal(big.status, 413);
  t.equal(((await big.json()) as { code: string }).code, 'PAYLOAD_TOO_LARGE');
  const garbage = await post(
    new Uint8Array([0xff, 0xff, 0xff, 0x0f, 0x08]),
    'application/x-protobuf',
  );
  t.equal(garbage.status, 400);
  t.equal(garbage.headers.get('content-type'), 'application/x-protobuf', 'in the request encoding');
  const status = decodeStatus(new Uint8Array(await garbage.arrayBuffer()));
  t.equal(status.code, 3, 'INVALID_ARGUMENT');
  t.match(status.message, /not an ExportLogsServiceRequest/);
  const wrongType = await post('hello', 'text/plain');
  t.equal(wrongType.status, 415);
  t.match(((await wrongType.json()) as { message: string }).message, /application\/x-protobuf/);
  const badShape = await post('{"resourceLogs": 5}', 'application/json');
  t.equal(badShape.status, 400);
  t.same(await badShape.json(), { code: 3, message: 'resourceLogs must be an array' });
  const unauthorised = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  t.equal(unauthorised.status, 401);
  const empty = await post(new Uint8Array(0), 'application/x-protobuf');
  t.equal(empty.status, 200, 'an empty request is a success');
  t.same(decodeLogsResponse(new Uint8Array(await empty.arrayBuffer())), {});
  const results = await emitAll(exporters.protobuf(), [{ eventName: 'otlp.alive' }]);
  t.same(
    results.map((r) => r.code),
    [0],
    'the service still takes exports',
  );
});
