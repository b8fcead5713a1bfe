/**
 * Real local receivers for the notification tests: an HTTP server on 127.0.0.1:0 answering from a
 * script, and an SMTP server (smtp-server, no auth, no STARTTLS) that keeps what it is sent.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { pino } from 'pino';
import type { IncidentNotification } from '../../src/domain/rules/alerts/notification.ts';
import type { ContactPoint } from '../../src/domain/contact-points/contact-point.ts';
import type { NotificationChannel } from '../../src/domain/rules/rule-types.ts';
import { contactPointIndex } from '../../src/notify/contact-point-directory.ts';
import type { ContactPointLookup } from '../../src/notify/deliver.ts';
import { explainedLeaf } from '../support/explanations.ts';
import { createDeliveryLimiter, type DeliveryLimiter } from '../../src/notify/delivery-limiter.ts';
import type { NotifyOptions } from '../../src/notify/notify-options.ts';

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** A FIRING notification, as the channels get it. */
export const alert: IncidentNotification = {
  id: 42,
  alertId: 42,
  transition: 'FIRING',
  transitionId: 'alert-42-firing',
  durationSeconds: null,
  silenced: false,
  silenceId: null,
  heldByBudget: false,
  ruleId: 7,
  ruleName: 'High error rate',
  ruleVersion: 3,
  severity: 'CRITICAL',
  state: 'FIRING',
  firedAt: '2026-11-22T19:30:00.123Z',
  triggeredAt: '2026-11-22T19:30:00.123Z',
  resolvedAt: null,
  resolvedReason: null,
  valuesAtFire: { errorRate: 12.5, totalEvents: 80 },
  valuesAtResolve: null,
  acknowledgedAt: null,
  acknowledgedBy: null,
  acknowledgeComment: null,
  explanation: explainedLeaf(),
  resolveExplanation: null,
  // Empty here: the channels' texts then read as before; explanation-text.test.ts sets it.
  explanationText: '',
  matchedConditions: ['errorRate 12.5 > 5'],
  currentValues: { errorRate: 12.5, totalEvents: 80 },
  message: 'High error rate: errorRate 12.5 > 5',
};

/**
 * Small timeout and backoff, any host, any address: the receivers are on 127.0.0.1, so this is
 * NOTIFY_ALLOW_PRIVATE=true (the address check has its own tests).
 */
export const notifyOptions = (over: Partial<NotifyOptions> = {}): NotifyOptions => ({
  smtpUrl: undefined,
  allowedHosts: [],
  refusedAddresses: undefined,
  timeoutMs: 2000,
  attempts: 3,
  backoffMs: 5,
  from: 'vigil@example.com',
  ...over,
});

/** The service's default bound (32 in flight, 1000 queued); silent when it drops. */
export const testLimiter = (): DeliveryLimiter =>
  createDeliveryLimiter({ concurrency: 32, queueMax: 1000 }, { log: pino({ level: 'silent' }) });

/**
 * Contact points as the front thread's directory holds them; one without a name is its type's
 * default (named `default-<type>`).
 */
export const contactPoints = (
  ...points: readonly {
    readonly type: NotificationChannel;
    readonly name?: string;
    readonly settings: Readonly<Record<string, unknown>>;
  }[]
): ContactPointLookup =>
  contactPointIndex(
    points.map((p, i): ContactPoint => ({
      id: i + 1,
      name: p.name ?? `default-${p.type}`,
      type: p.type,
      isDefault: p.name === undefined,
      settings: p.settings,
      createdAt: '2026-11-25T00:00:00.000Z',
      updatedAt: '2026-11-25T00:00:00.000Z',
    })),
  );

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * The answer to the n-th request (1-based): a status and body, or `hang` (never answer). A promise
 * of one holds the answer back until the test says so.
 */
export type Answer =
  | { readonly status: number; readonly body?: string; readonly headers?: Record<string, string> }
  | 'hang';

export interface HttpReceiver {
  /** `http://<host>:<port>/hook` */
  readonly url: string;
  readonly port: number;
  readonly received: ReceivedRequest[];
}

/**
 * The webhook requests of one notification, by its transitionId (their Idempotency-Key). A test
 * that counts deliveries counts these, not whatever else reached the receiver by then (a
 * RESOLVED, a retry, another rule's notification).
 */
export const requestsOf = (
  receiver: { readonly received: readonly ReceivedRequest[] },
  transitionId: string,
): ReceivedRequest[] =>
  receiver.received.filter((r) => r.headers['idempotency-key'] === transitionId);

/** Where a receiver listens: 127.0.0.1 on a free port unless said otherwise. */
export interface ListenAt {
  readonly host?: string;
  readonly port?: number;
}

export async function startHttpReceiver(
  t: Teardown,
  answer: (n: number) => Answer | Promise<Answer> = () => ({ status: 200, body: 'ok' }),
  at: ListenAt = {},
): Promise<HttpReceiver> {
  const host = at.host ?? '127.0.0.1';
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      void Promise.resolve(answer(received.length)).then((reply) => {
        if (reply === 'hang' || res.destroyed) return;
        res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
        res.end(reply.body ?? '');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(at.port ?? 0, host, resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://${host}:${port}/hook`, port, received };
}

export interface ReceivedMail {
  readonly from: string;
  readonly to: readonly string[];
  readonly raw: string;
}

export interface SmtpReceiver {
  /** `smtp://127.0.0.1:<port>` */
  readonly url: string;
  readonly mails: ReceivedMail[];
  /** RCPT TO commands seen, accepted or not. */
  readonly recipients: string[];
}

const address = (a: SMTPServerAddress | false): string => (a === false ? '' : a.address);

/** `rcptReply(n)`: the SMTP code to refuse the n-th RCPT TO with, or undefined to accept it. */
export async function startSmtpReceiver(
  t: Teardown,
  rcptReply: (n: number) => number | undefined = () => undefined,
): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const recipients: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(rcpt, _session, callback) {
      recipients.push(rcpt.address);
      const code = rcptReply(recipients.length);
      if (code === undefined) return callback();
      const error = Object.assign(new Error(`refused by the test (${code})`), {
        responseCode: code,
      });
      return callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          from: address(session.envelope.mailFrom),
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.server.address() as AddressInfo;
  return { url: `smtp://127.0.0.1:${port}`, mails, recipients };
}
