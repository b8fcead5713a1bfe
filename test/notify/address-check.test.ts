// The address policy of webhook and Slack deliveries: every non-public IPv4 and IPv6 range, their
// IPv4-mapped and NAT64 forms, and the other spellings of an IPv4 address a URL may use; then the
// resolution step, with an injected resolver: only allowed answers are kept, failures are fixed texts.
import t from 'tap';
import { NON_PUBLIC_ADDRESSES, isAddressAllowed } from '../../src/notify/address-check.ts';
import { resolveTarget, type Resolver } from '../../src/notify/resolve-target.ts';

const REFUSED = [
  // IPv4, each range at its edges.
  '0.0.0.0',
  '0.255.255.255',
  '10.0.0.0',
  '10.255.255.255',
  '100.64.0.0',
  '100.127.255.255',
  '127.0.0.1',
  '127.255.255.254',
  '169.254.0.1',
  '169.254.169.254',
  '172.16.0.0',
  '172.31.255.255',
  '192.0.0.8',
  '192.168.0.1',
  '192.168.255.255',
  '198.18.0.1',
  '198.19.255.255',
  '224.0.0.1',
  '239.255.255.250',
  '240.0.0.1',
  '255.255.255.255',
  // IPv6.
  '::',
  '::1',
  '::7f00:1',
  'fc00::1',
  'fdff:ffff::1',
  'fe80::1',
  'febf::1',
  'fec0::1',
  'ff02::1',
  'ff0e::1',
  '64:ff9b:1::a',
  // IPv4-mapped IPv6, both notations, and NAT64 (64:ff9b::a.b.c.d) of non-public IPv4.
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:10.1.2.3',
  '::ffff:a9fe:a9fe',
  '::ffff:192.168.1.1',
  '::ffff:0.0.0.0',
  '64:ff9b::127.0.0.1',
  '64:ff9b::a00:1',
  // Not usable as they are.
  'fe80::1%eth0',
  'localhost',
  '',
];

const ALLOWED = [
  '1.1.1.1',
  '8.8.8.8',
  '9.255.255.255',
  '11.0.0.0',
  '100.63.255.255',
  '100.128.0.0',
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '169.255.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.167.255.255',
  '192.169.0.0',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
  '2001:4860:4860::8888',
  '2606:4700::1111',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::8.8.8.8',
  '2002:808:808::1',
  '2002:c0a7:ffff::',
];

t.test('6to4 carries its IPv4 (same rule); Teredo is refused whole', (t) => {
  const refused = [
    '2002:7f00:1::1', // 127.0.0.1
    '2002:a00:1::', // 10.0.0.1
    '2002:a9fe:a9fe::1', // 169.254.169.254, cloud metadata
    '2002:c0a8:101:1::5', // 192.168.1.1
    '2002::1', // 0.0.0.0
    '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo (RFC 4380's example)
    '2001::1',
  ];
  for (const address of refused) {
    t.notOk(isAddressAllowed(address, NON_PUBLIC_ADDRESSES), `${address} refused`);
  }
  t.ok(isAddressAllowed('2002:808:808::1', NON_PUBLIC_ADDRESSES), '8.8.8.8 by 6to4 is public');
  t.ok(isAddressAllowed('2001:1::1', NON_PUBLIC_ADDRESSES), 'outside 2001::/32');
  t.end();
});

t.test('every non-public address is refused; public ones are allowed', (t) => {
  for (const address of REFUSED) {
    t.notOk(isAddressAllowed(address, NON_PUBLIC_ADDRESSES), `${address} refused`);
  }
  for (const address of ALLOWED) {
    t.ok(isAddressAllowed(address, NON_PUBLIC_ADDRESSES), `${address} allowed`);
  }
  t.end();
});

t.test('NOTIFY_ALLOW_PRIVATE (no refused list) allows every IP, still nothing else', (t) => {
  for (const address of ['127.0.0.1', '10.0.0.1', '::1', '::ffff:127.0.0.1', '8.8.8.8']) {
    t.ok(isAddressAllowed(address, undefined), `${address} allowed`);
  }
  t.notOk(isAddressAllowed('localhost', undefined), 'a name is not an address');
  t.notOk(isAddressAllowed('fe80::1%eth0', undefined), 'zone-scoped: never');
  t.end();
});

const noDns: Resolver = () => Promise.reject(new Error('a literal must not be resolved'));
const policy = { refusedAddresses: NON_PUBLIC_ADDRESSES, resolve: noDns };

t.test('other spellings of a loopback or private IPv4 in a URL are refused too', async (t) => {
  const urls = [
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0177.0.0.1/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://017700000001/',
    'http://127.1/',
    'http://0/',
    'http://0xa9fea9fe/',
    'http://012.0.0.1/',
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[fd00::1]/',
  ];
  for (const url of urls) {
    const { hostname } = new URL(url);
    t.same(
      await resolveTarget(hostname, policy, 1000),
      { ok: false, reason: 'address not allowed (private range)' },
      `${url} (${hostname})`,
    );
  }
  t.same(await resolveTarget(new URL('http://[2606:4700::1111]/').hostname, policy, 1000), {
    ok: true,
    addresses: [{ address: '2606:4700::1111', family: 6 }],
  });
});

t.test('a name: its allowed addresses are kept, a fully refused answer is refused', async (t) => {
  const answers: Readonly<Record<string, readonly string[]>> = {
    'mixed.test': ['10.0.0.5', '93.184.216.34', '::1', '2606:2800:220:1::1'],
    'internal.test': ['10.0.0.5', '::ffff:127.0.0.1'],
    'empty.test': [],
  };
  const resolve: Resolver = async (name) =>
    (answers[name] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  const check = (name: string) =>
    resolveTarget(name, { refusedAddresses: NON_PUBLIC_ADDRESSES, resolve }, 1000);
  t.same(await check('mixed.test'), {
    ok: true,
    addresses: [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ],
  });
  t.same(await check('internal.test'), {
    ok: false,
    reason: 'address not allowed (private range)',
  });
  t.same(await check('empty.test'), { ok: false, reason: 'DNS lookup failed' });
  const allowPrivate = await resolveTarget(
    'internal.test',
    { refusedAddresses: undefined, resolve },
    1000,
  );
  t.match(allowPrivate, { ok: true, addresses: [{ address: '10.0.0.5' }, {}] });
});

t.test('resolver failures are fixed texts, whatever the resolver said', async (t) => {
  const failing: Resolver = () =>
    Promise.reject(
      Object.assign(new Error('getaddrinfo ENOTFOUND db.internal.corp'), { code: 'ENOTFOUND' }),
    );
  t.same(
    await resolveTarget(
      'db.internal.corp',
      { refusedAddresses: NON_PUBLIC_ADDRESSES, resolve: failing },
      1000,
    ),
    {
      ok: false,
      reason: 'DNS lookup failed',
    },
  );
  const silent: Resolver = () => new Promise(() => undefined);
  t.same(
    await resolveTarget(
      'slow.test',
      { refusedAddresses: NON_PUBLIC_ADDRESSES, resolve: silent },
      20,
    ),
    { ok: false, reason: 'DNS lookup timed out after 20 ms' },
  );
});
