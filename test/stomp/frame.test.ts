// Unit tests of the STOMP frame codec (pure): escaping, content-length, partial and oversize frames.
import t from 'tap';
import { FrameDecoder, encodeFrame, escapeHeader, unescapeHeader } from '../../src/stomp/frame.ts';
import type { StompFrame } from '../../src/stomp/frame.ts';

const bytes = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
const headersOf = (f: StompFrame | undefined): Record<string, string> =>
  Object.fromEntries(f?.headers ?? []);

void t.test('decodes one frame with headers and body', (t) => {
  const d = new FrameDecoder(1024);
  const r = d.push(bytes('SEND\ndestination:/queue/a\nx:1\n\nhello\0'));
  t.equal(r.error, null);
  t.equal(r.frames.length, 1);
  t.equal(r.frames[0]?.command, 'SEND');
  t.same(headersOf(r.frames[0]), { destination: '/queue/a', x: '1' });
  t.equal(text(r.frames[0]!.body), 'hello');
  t.equal(d.bufferedBytes, 0);
  t.end();
});

void t.test('accepts CRLF line endings and a frame without headers', (t) => {
  const d = new FrameDecoder(1024);
  const r = d.push(bytes('DISCONNECT\r\nreceipt:77\r\n\r\n\0\r\nNACK\n\n\0'));
  t.equal(r.error, null);
  t.same(
    r.frames.map((f) => f.command),
    ['DISCONNECT', 'NACK'],
  );
  t.same(headersOf(r.frames[0]), { receipt: '77' });
  t.equal(r.frames[1]?.headers.size, 0);
  t.end();
});

void t.test('several frames per message, heart-beat EOLs between them', (t) => {
  const d = new FrameDecoder(1024);
  const r = d.push(bytes('\n\r\n\nSUBSCRIBE\nid:1\n\n\0\n\nSUBSCRIBE\nid:2\n\n\0\r\n\n'));
  t.equal(r.error, null);
  t.same(
    r.frames.map((f) => f.headers.get('id')),
    ['1', '2'],
  );
  t.equal(d.bufferedBytes, 0);
  const beats = d.push(bytes('\n'));
  t.same(beats, { frames: [], error: null });
  t.end();
});

void t.test('keeps a partial frame until it completes, at every split point', (t) => {
  const wire = bytes('SEND\r\ndestination:/a\r\ncontent-length:3\r\n\r\na\0b\0\nACK\nid:9\n\n\0');
  for (let split = 1; split < wire.length; split++) {
    const d = new FrameDecoder(1024);
    const first = d.push(wire.slice(0, split));
    const second = d.push(wire.slice(split));
    t.equal(first.error, null, `split ${split}`);
    t.equal(second.error, null, `split ${split}`);
    const frames = [...first.frames, ...second.frames];
    t.same(
      frames.map((f) => f.command),
      ['SEND', 'ACK'],
      `split ${split}`,
    );
    t.same([...frames[0]!.body], [0x61, 0, 0x62], `split ${split}`);
  }
  t.end();
});

void t.test('byte-by-byte delivery decodes the same frames', (t) => {
  const wire = bytes('CONNECT\naccept-version:1.2\nheart-beat:0,0\n\n\0SUBSCRIBE\nid:0\n\n\0');
  const d = new FrameDecoder(1024);
  const frames: StompFrame[] = [];
  for (const b of wire) {
    const r = d.push(Uint8Array.of(b));
    t.equal(r.error, null);
    frames.push(...r.frames);
  }
  t.same(
    frames.map((f) => f.command),
    ['CONNECT', 'SUBSCRIBE'],
  );
  t.end();
});

void t.test('heart-beat CR and LF split across messages do not pile up', (t) => {
  const d = new FrameDecoder(16);
  for (let i = 0; i < 100; i++) {
    t.equal(d.push(bytes('\r')).error, null);
    t.equal(d.push(bytes('\n')).error, null);
  }
  t.equal(d.bufferedBytes, 0);
  t.end();
});

void t.test('content-length honours NUL octets inside the body', (t) => {
  const body = Uint8Array.of(1, 0, 2, 0, 0, 3);
  const wire = encodeFrame({ command: 'SEND', headers: [['destination', '/x']], body });
  const r = new FrameDecoder(1024).push(wire);
  t.equal(r.error, null);
  t.same([...r.frames[0]!.body], [...body]);
  t.equal(r.frames[0]?.headers.get('content-length'), '6');
  t.end();
});

void t.test('content-length must be followed by NUL and be a number', (t) => {
  const missingNul = new FrameDecoder(1024).push(bytes('SEND\ncontent-length:2\n\nabc\0'));
  t.equal(missingNul.error?.code, 'malformed-frame');
  const notNumber = new FrameDecoder(1024).push(bytes('SEND\ncontent-length:two\n\nab\0'));
  t.equal(notNumber.error?.code, 'invalid-content-length');
  const negative = new FrameDecoder(1024).push(bytes('SEND\ncontent-length:-1\n\n\0'));
  t.equal(negative.error?.code, 'invalid-content-length');
  t.end();
});

void t.test('header escapes are decoded; repeated headers: first wins', (t) => {
  const r = new FrameDecoder(1024).push(
    bytes('MESSAGE\na\\cb:x\\ny\\r\\\\z\\c\nfoo:first\nfoo:second\n\n\0'),
  );
  t.equal(r.error, null);
  t.same(headersOf(r.frames[0]), { 'a:b': 'x\ny\r\\z:', foo: 'first' });
  t.end();
});

void t.test('CONNECT and CONNECTED headers are taken literally', (t) => {
  const r = new FrameDecoder(1024).push(bytes('CONNECT\nlogin:a\\b\npasscode:p:q\n\n\0'));
  t.equal(r.error, null);
  t.same(headersOf(r.frames[0]), { login: 'a\\b', passcode: 'p:q' });
  t.end();
});

void t.test('STOMP 1.0 mode leaves backslashes alone', (t) => {
  const d = new FrameDecoder(1024);
  d.unescapeHeaders = false;
  const r = d.push(bytes('SUBSCRIBE\nid:a\\tb\n\n\0'));
  t.equal(r.error, null);
  t.equal(r.frames[0]?.headers.get('id'), 'a\\tb');
  t.end();
});

void t.test('an undefined escape sequence is an error', (t) => {
  const r = new FrameDecoder(1024).push(bytes('SUBSCRIBE\nid:a\\tb\n\n\0'));
  t.equal(r.frames.length, 0);
  t.equal(r.error?.code, 'invalid-escape');
  const trailing = new FrameDecoder(1024).push(bytes('SUBSCRIBE\nid:ab\\\n\n\0'));
  t.equal(trailing.error?.code, 'invalid-escape');
  t.end();
});

void t.test('frames before an error are returned with it; the decoder stays failed', (t) => {
  const d = new FrameDecoder(1024);
  const r = d.push(bytes('ACK\nid:1\n\n\0SUBSCRIBE\nbroken header\n\n\0'));
  t.equal(r.frames.length, 1);
  t.equal(r.error?.code, 'malformed-frame');
  const again = d.push(bytes('ACK\nid:2\n\n\0'));
  t.same(again, { frames: [], error: r.error });
  t.end();
});

void t.test('oversize frames are detected, complete or partial', (t) => {
  const big = 'SEND\ndestination:/a\n\n' + 'x'.repeat(200) + '\0';
  t.equal(new FrameDecoder(100).push(bytes(big)).error?.code, 'frame-too-large');
  const partial = new FrameDecoder(100);
  t.equal(partial.push(bytes('SEND\n\n' + 'x'.repeat(60))).error, null);
  t.equal(partial.push(bytes('x'.repeat(60))).error?.code, 'frame-too-large');
  const declared = new FrameDecoder(100).push(bytes('SEND\ncontent-length:5000\n\n'));
  t.equal(declared.error?.code, 'frame-too-large');
  const endlessHeaders = new FrameDecoder(100).push(bytes('SEND\n' + 'h:v\n'.repeat(40)));
  t.equal(endlessHeaders.error?.code, 'frame-too-large');
  const exact = 'SEND\n\n' + 'x'.repeat(100 - 7) + '\0';
  t.equal(new FrameDecoder(100).push(bytes(exact)).error, null, 'exactly the limit is fine');
  t.end();
});

void t.test('garbage bytes are refused at once', (t) => {
  for (const garbage of [
    Uint8Array.of(0xff, 0xfe, 0x00, 0x01),
    bytes('hello world\n\n\0'),
    bytes('\0'),
    bytes('SEND\rX\n\n\0'),
    bytes('GET / HTTP/1.1\r\n'),
    bytes('A'.repeat(40)),
  ]) {
    const r = new FrameDecoder(1024).push(garbage);
    t.equal(r.error?.code, 'malformed-frame', JSON.stringify(text(garbage)));
  }
  const badUtf8 = new FrameDecoder(1024).push(
    Buffer.concat([bytes('SEND\nk:'), Uint8Array.of(0xc3, 0x28), bytes('\n\n\0')]),
  );
  t.equal(badUtf8.error?.code, 'malformed-frame');
  t.end();
});

void t.test('encoder escapes headers and round-trips through the decoder', (t) => {
  const nasty = 'a:b\nc\rd\\e';
  const wire = encodeFrame({
    command: 'MESSAGE',
    headers: [
      [nasty, nasty],
      ['plain', 'ünïcødé'],
    ],
    body: 'body',
  });
  t.equal(
    text(wire),
    'MESSAGE\na\\cb\\nc\\rd\\\\e:a\\cb\\nc\\rd\\\\e\nplain:ünïcødé\ncontent-length:4\n\nbody\0',
  );
  const r = new FrameDecoder(1024).push(wire);
  t.equal(r.error, null);
  t.same(headersOf(r.frames[0]), { [nasty]: nasty, plain: 'ünïcødé', 'content-length': '4' });
  for (const s of ['', 'x', '\\\\c', ':::', '\n\r', 'a\\nb']) {
    t.equal(unescapeHeader(escapeHeader(s)), s);
  }
  t.end();
});

void t.test('encoder options: no escaping for CONNECTED, content-length optional', (t) => {
  const connected = encodeFrame({ command: 'CONNECTED', headers: [['server', 'vigil/1:2']] });
  t.equal(text(connected), 'CONNECTED\nserver:vigil/1:2\n\n\0');
  const bare = encodeFrame(
    { command: 'ERROR', headers: [['message', 'a:b']], body: 'x' },
    { escape: false, contentLength: false },
  );
  t.equal(text(bare), 'ERROR\nmessage:a:b\n\nx\0');
  const multibyte = encodeFrame({ command: 'SEND', headers: [], body: 'é' });
  t.match(text(multibyte), /content-length:2\n/);
  t.end();
});
