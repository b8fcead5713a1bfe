// Unit tests of the per-connection STOMP state machine: negotiation, frames, errors, heart-beats.
import t from 'tap';
import { FrameDecoder } from '../../src/stomp/frame.ts';
import {
  StompSession,
  negotiateSubprotocol,
  negotiateVersion,
  parseHeartbeat,
} from '../../src/stomp/session.ts';
import type { SessionAction, SessionConfig, StompVersion } from '../../src/stomp/session.ts';

const config: SessionConfig = {
  server: 'vigil/9.9.9',
  maxFrameBytes: 4096,
  heartbeatSendMs: 1000,
  heartbeatExpectMs: 2000,
  heartbeatGraceFactor: 2,
  heartbeatSlackMs: 100,
  connectTimeoutMs: 5000,
  maxSubscriptions: 2,
  maxSubscriptionIdLength: 16,
};

interface Seen {
  command: string;
  headers: Record<string, string>;
  body: string;
}

/** Turns actions into readable records: frames decoded back, EOL heart-beats as 'EOL'. */
function view(actions: SessionAction[]): Array<Seen | string> {
  return actions.map((a) => {
    if (a.type === 'send') {
      if (a.data.length === 1 && a.data[0] === 0x0a) return 'EOL';
      const decoder = new FrameDecoder(1 << 20);
      decoder.unescapeHeaders = true;
      const { frames, error } = decoder.push(a.data);
      const f = frames[0];
      if (error !== null || f === undefined || frames.length !== 1) throw new Error('bad frame');
      return {
        command: f.command,
        headers: Object.fromEntries(f.headers),
        body: Buffer.from(f.body).toString(),
      };
    }
    if (a.type === 'close') return `close ${a.code}`;
    if (a.type === 'snapshot') return 'snapshot';
    return `${a.type} ${a.id} ${a.destination}`;
  });
}

function open(maxVersion: StompVersion = '1.2', now = 0): StompSession {
  return new StompSession(7, config, maxVersion, now);
}

const send = (s: StompSession, wire: string, now = 0): Array<Seen | string> =>
  view(s.receive(Buffer.from(wire), now));

function connected(): StompSession {
  const s = open();
  send(s, 'CONNECT\naccept-version:1.1,1.2\nheart-beat:0,0\nhost:x\n\n\0');
  return s;
}

void t.test('CONNECT negotiates version and heart-beat and answers CONNECTED', (t) => {
  const s = open();
  const out = send(s, 'CONNECT\naccept-version:1.0,1.1,1.2\nheart-beat:500,3000\n\n\0', 10);
  t.same(out, [
    {
      command: 'CONNECTED',
      headers: {
        version: '1.2',
        server: 'vigil/9.9.9',
        session: 'session-7',
        'heart-beat': '1000,2000',
      },
      body: '',
    },
  ]);
  t.equal(s.state, 'connected');
  // Server sends every max(sx=1000, cy=3000); expects every max(cx=500, sy=2000).
  t.same(s.heartbeat, { sendEveryMs: 3000, expectEveryMs: 2000 });
  t.end();
});

void t.test('STOMP frame is accepted like CONNECT; zero heart-beats disable both ways', (t) => {
  const s = open();
  const out = send(s, 'STOMP\naccept-version:1.2\nheart-beat:0,0\n\n\0');
  t.match(out, [{ command: 'CONNECTED', headers: { version: '1.2' } }]);
  t.same(s.heartbeat, { sendEveryMs: 0, expectEveryMs: 0 });
  t.same(s.tick(1_000_000), []);
  t.end();
});

void t.test('version negotiation', (t) => {
  t.equal(negotiateVersion(undefined, '1.2'), '1.0');
  t.equal(negotiateVersion('1.1, 1.0', '1.2'), '1.1');
  t.equal(negotiateVersion('1.2,1.1', '1.1'), '1.1');
  t.equal(negotiateVersion('2.0', '1.2'), null);
  const s = open('1.1');
  const out = send(s, 'CONNECT\naccept-version:1.2\nreceipt:r\n\n\0');
  t.match(out, [
    { command: 'ERROR', headers: { version: '1.1,1.0', message: /version/ } },
    'close 1002',
  ]);
  const old = open();
  t.match(send(old, 'CONNECT\nlogin:guest\n\n\0'), [
    { command: 'CONNECTED', headers: { version: '1.0' } },
  ]);
  t.equal(old.escapesHeaders, false);
  t.end();
});

void t.test('subprotocol negotiation', (t) => {
  t.same(negotiateSubprotocol('v10.stomp, v12.stomp'), {
    protocol: 'v12.stomp',
    maxVersion: '1.2',
  });
  t.same(negotiateSubprotocol('v11.stomp'), { protocol: 'v11.stomp', maxVersion: '1.1' });
  t.same(negotiateSubprotocol('V10.STOMP'), { protocol: 'v10.stomp', maxVersion: '1.0' });
  t.same(negotiateSubprotocol(''), { protocol: '', maxVersion: '1.2' });
  t.same(negotiateSubprotocol('mqtt'), { protocol: '', maxVersion: '1.2' });
  t.end();
});

void t.test('heart-beat header parsing', (t) => {
  t.same(parseHeartbeat(undefined), { cx: 0, cy: 0 });
  t.same(parseHeartbeat(' 10 , 20 '), { cx: 10, cy: 20 });
  t.equal(parseHeartbeat('10'), null);
  t.equal(parseHeartbeat('-1,5'), null);
  const s = open();
  t.match(send(s, 'CONNECT\naccept-version:1.2\nheart-beat:fast\n\n\0'), [
    { command: 'ERROR', headers: { message: /heart-beat/ } },
    'close 1002',
  ]);
  t.end();
});

void t.test('SUBSCRIBE, RECEIPT, UNSUBSCRIBE, DISCONNECT', (t) => {
  const s = connected();
  t.same(send(s, 'SUBSCRIBE\nid:m\ndestination:/topic/metrics\nreceipt:r1\n\n\0'), [
    'subscribe m /topic/metrics',
    { command: 'RECEIPT', headers: { 'receipt-id': 'r1' }, body: '' },
  ]);
  t.same(send(s, 'SUBSCRIBE\nid:a\\cb\ndestination:/topic/alerts\n\n\0'), [
    'subscribe a:b /topic/alerts',
  ]);
  t.same(
    [...s.subscriptions],
    [
      ['m', '/topic/metrics'],
      ['a:b', '/topic/alerts'],
    ],
  );
  t.same(send(s, 'UNSUBSCRIBE\nid:m\nreceipt:r2\n\n\0'), [
    'unsubscribe m /topic/metrics',
    { command: 'RECEIPT', headers: { 'receipt-id': 'r2' }, body: '' },
  ]);
  t.same(send(s, 'UNSUBSCRIBE\nid:unknown\n\n\0'), [], 'unknown id is a no-op');
  t.same(send(s, 'ACK\nid:x\nreceipt:r3\n\n\0'), [
    { command: 'RECEIPT', headers: { 'receipt-id': 'r3' }, body: '' },
  ]);
  t.same(send(s, 'DISCONNECT\nreceipt:bye\n\n\0'), [
    { command: 'RECEIPT', headers: { 'receipt-id': 'bye' }, body: '' },
    'close 1000',
  ]);
  t.equal(s.state, 'closed');
  t.same(send(s, 'SUBSCRIBE\nid:z\ndestination:/topic/alerts\n\n\0'), [], 'closed: ignored');
  t.end();
});

void t.test('receipt ids are escaped on the way out', (t) => {
  const s = connected();
  const [receipt] = s.receive(Buffer.from('ACK\nid:1\nreceipt:a\\cb\n\n\0'), 0);
  t.equal(
    receipt?.type === 'send' ? Buffer.from(receipt.data).toString() : '',
    'RECEIPT\nreceipt-id:a\\cb\n\n\0',
  );
  t.end();
});

void t.test('STOMP 1.0: subscription id defaults to the destination', (t) => {
  const s = open();
  send(s, 'CONNECT\n\n\0');
  t.same(send(s, 'SUBSCRIBE\ndestination:/topic/alerts\n\n\0'), [
    'subscribe /topic/alerts /topic/alerts',
  ]);
  t.same(send(s, 'UNSUBSCRIBE\ndestination:/topic/alerts\n\n\0'), [
    'unsubscribe /topic/alerts /topic/alerts',
  ]);
  t.end();
});

void t.test(
  'SEND to /app/** as Spring: /app/subscribe asks for the snapshot, others ignored',
  (t) => {
    const s = connected();
    t.same(send(s, 'SEND\ndestination:/app/subscribe\n\n\0'), ['snapshot']);
    t.match(send(s, 'SEND\ndestination:/app/subscribe\nreceipt:r1\n\n{}\0'), [
      'snapshot',
      { command: 'RECEIPT', headers: { 'receipt-id': 'r1' } },
    ]);
    t.same(
      send(s, 'SEND\ndestination:/app/other\n\nhello\0'),
      [],
      'an unmapped /app/ SEND is dropped',
    );
    t.same(send(s, 'SEND\ndestination:/app/subscribe/x\n\n\0'), []);
    t.equal(s.state, 'connected', 'the session stays open');
    t.end();
  },
);

const errorCases: Array<[string, string, RegExp]> = [
  ['missing destination', 'SUBSCRIBE\nid:1\n\n\0', /missing destination/],
  ['missing id', 'SUBSCRIBE\ndestination:/topic/metrics\n\n\0', /missing id/],
  ['unknown destination', 'SUBSCRIBE\nid:1\ndestination:/queue/x\n\n\0', /unknown destination/],
  ['UNSUBSCRIBE without id', 'UNSUBSCRIBE\n\n\0', /missing id/],
  ['SEND to a topic', 'SEND\ndestination:/topic/metrics\n\n{}\0', /read-only/],
  ['SEND to /application', 'SEND\ndestination:/application/x\n\n{}\0', /read-only/],
  ['SEND without destination', 'SEND\n\n{}\0', /read-only/],
  ['transaction', 'BEGIN\ntransaction:t\n\n\0', /transactions/],
  ['second CONNECT', 'CONNECT\naccept-version:1.2\n\n\0', /already connected/],
  ['unknown command', 'FROB\n\n\0', /unknown command/],
  ['server command', 'MESSAGE\n\n\0', /unknown command/],
  ['malformed frame', 'SUBSCRIBE\nno colon here\n\n\0', /malformed-frame/],
  ['garbage', '\u00ff\u00fe garbage', /malformed-frame/],
  ['invalid escape', 'SUBSCRIBE\nid:\\x\ndestination:/topic/alerts\n\n\0', /invalid-escape/],
  ['long id', `SUBSCRIBE\nid:${'i'.repeat(17)}\ndestination:/topic/alerts\n\n\0`, /invalid subs/],
];

for (const [name, wire, message] of errorCases) {
  void t.test(`ERROR then close: ${name}`, (t) => {
    const s = connected();
    const out = send(s, wire);
    t.equal(out.length, 2);
    const [error, close] = out;
    t.match(error, { command: 'ERROR', headers: { 'content-type': 'text/plain' } });
    const seen = error as Seen;
    t.match(`${seen.headers.message ?? ''} ${seen.body}`, message);
    t.equal(close, 'close 1002');
    t.equal(s.state, 'closed');
    t.equal(s.subscriptions.size, 0);
    t.end();
  });
}

void t.test('ERROR carries receipt-id of the frame that caused it', (t) => {
  const s = connected();
  t.match(send(s, 'SUBSCRIBE\nid:1\ndestination:/nope\nreceipt:77\n\n\0'), [
    { command: 'ERROR', headers: { 'receipt-id': '77' } },
    'close 1002',
  ]);
  t.end();
});

void t.test('duplicate ids and too many subscriptions are errors', (t) => {
  const dup = connected();
  send(dup, 'SUBSCRIBE\nid:1\ndestination:/topic/alerts\n\n\0');
  t.match(send(dup, 'SUBSCRIBE\nid:1\ndestination:/topic/metrics\n\n\0'), [
    { command: 'ERROR', headers: { message: 'duplicate subscription id' } },
    'close 1002',
  ]);
  const many = connected();
  send(many, 'SUBSCRIBE\nid:1\ndestination:/topic/alerts\n\n\0');
  send(many, 'SUBSCRIBE\nid:2\ndestination:/topic/alerts\n\n\0');
  t.match(send(many, 'SUBSCRIBE\nid:3\ndestination:/topic/alerts\n\n\0'), [
    { command: 'ERROR', headers: { message: 'too many subscriptions' } },
    'close 1002',
  ]);
  t.end();
});

void t.test('any frame before CONNECT is an error', (t) => {
  const s = open();
  t.match(send(s, 'SUBSCRIBE\nid:1\ndestination:/topic/metrics\n\n\0'), [
    { command: 'ERROR', headers: { message: 'expected CONNECT' } },
    'close 1002',
  ]);
  t.end();
});

void t.test('oversize frame closes with 1009', (t) => {
  const s = connected();
  const out = send(s, `SEND\ndestination:/x\n\n${'x'.repeat(5000)}\0`);
  t.match(out, [{ command: 'ERROR', body: /frame-too-large/ }, 'close 1009']);
  t.end();
});

void t.test('frames in one message before an error are still handled', (t) => {
  const s = connected();
  const out = send(
    s,
    'SUBSCRIBE\nid:1\ndestination:/topic/alerts\n\n\0FROB\n\n\0ACK\nreceipt:x\n\n\0',
  );
  t.match(out, ['subscribe 1 /topic/alerts', { command: 'ERROR' }, 'close 1002']);
  t.end();
});

void t.test('CONNECT timeout', (t) => {
  const s = open('1.2', 1000);
  t.same(s.tick(5999), []);
  t.same(s.tick(9000, false), [], 'a late tick enforces no deadline');
  t.match(view(s.tick(6000)), [
    { command: 'ERROR', headers: { message: /CONNECT/ } },
    'close 1008',
  ]);
  t.same(s.tick(7000), [], 'closed sessions stay quiet');
  t.end();
});

void t.test('heart-beats: server EOLs on time, client silence closes', (t) => {
  const s = open();
  send(s, 'CONNECT\naccept-version:1.2\nheart-beat:1000,1000\n\n\0', 0);
  t.same(s.heartbeat, { sendEveryMs: 1000, expectEveryMs: 2000 });
  t.same(view(s.tick(500)), []);
  t.same(view(s.tick(900)), ['EOL'], 'sent up to one slack early');
  t.same(view(s.tick(1000)), []);
  s.noteSent(1800); // a MESSAGE counts as activity
  t.same(view(s.tick(2000)), []);
  t.same(view(s.tick(2700)), ['EOL']);
  t.same(s.receive(Buffer.from('\n'), 3000), [], 'client heart-beat');
  t.same(view(s.tick(6900)).slice(-1), ['EOL'], 'still within 2 x 2000 ms of silence');
  t.same(view(s.tick(7001, false)), [], 'a late tick enforces no deadline');
  t.match(view(s.tick(7001)), [
    { command: 'ERROR', headers: { message: /heart-beat/ } },
    'close 1008',
  ]);
  t.end();
});

void t.test('message ids are unique per session', (t) => {
  const s = connected();
  const ids = new Set([s.nextMessageId(), s.nextMessageId(), s.nextMessageId()]);
  t.equal(ids.size, 3);
  t.match([...ids][0], /^7-/);
  t.end();
});

void t.test('SUBSCRIBE ack modes: explicit ones ask for an ack header in STOMP 1.2', (t) => {
  const subscribe = (version: string, ack: string | null): SessionAction[] => {
    const s = open();
    send(s, `CONNECT\naccept-version:${version}\nheart-beat:0,0\nhost:x\n\n\0`);
    const header = ack === null ? '' : `ack:${ack}\n`;
    return s.receive(Buffer.from(`SUBSCRIBE\nid:m\ndestination:/topic/metrics\n${header}\n\0`), 0);
  };
  const ackHeaderOf = (actions: SessionAction[]): boolean | string => {
    const [action] = actions;
    return action?.type === 'subscribe' ? action.ackHeader : `not a subscribe: ${action?.type}`;
  };
  t.equal(ackHeaderOf(subscribe('1.2', null)), false, 'no ack header: auto');
  t.equal(ackHeaderOf(subscribe('1.2', 'auto')), false);
  t.equal(ackHeaderOf(subscribe('1.2', 'client')), true);
  t.equal(ackHeaderOf(subscribe('1.2', 'client-individual')), true);
  t.equal(ackHeaderOf(subscribe('1.1', 'client')), false, '1.1 acknowledges by message-id');
  const s = open();
  send(s, 'CONNECT\naccept-version:1.2\nheart-beat:0,0\nhost:x\n\n\0');
  t.match(send(s, 'SUBSCRIBE\nid:m\ndestination:/topic/metrics\nack:sometimes\n\n\0'), [
    { command: 'ERROR', headers: { message: 'invalid ack mode' } },
    'close 1002',
  ]);
  t.end();
});
