// Unit tests of the Accept-Encoding check that picks the gzip snapshot (RFC 9110 12.5.3).
import t from 'tap';
import { accepts, acceptsGzip } from '../../src/http/accept-encoding.ts';

t.test('gzip is accepted when listed, by x-gzip or by *, with a q-value above 0', async (t) => {
  for (const header of [
    'gzip',
    'GZIP',
    'gzip, deflate, br',
    'br;q=1.0, gzip;q=0.8',
    'x-gzip',
    '*',
    'br, *;q=0.1',
    ' deflate ,  gzip ; q=0.001 ',
  ])
    t.equal(acceptsGzip(header), true, header);
});

t.test('gzip is refused when absent, refused by q=0, or the header is empty', async (t) => {
  for (const header of [
    '',
    'identity',
    'br, deflate',
    'gzip;q=0',
    'gzip; q=0.000',
    'gzip;q=0, *',
    '*;q=0',
    'gzipped',
    'gzip;q=nonsense',
  ])
    t.equal(acceptsGzip(header), false, JSON.stringify(header));
});

t.test('br, for the dashboard assets: listed, or *, with a q-value above 0', async (t) => {
  for (const [header, expected] of [
    ['gzip, deflate, br', true],
    ['br;q=0.5', true],
    ['*', true],
    ['gzip', false],
    ['br;q=0', false],
    ['br;q=0, *', false],
    ['', false],
  ] as const)
    t.equal(accepts(header, 'br'), expected, header);
  t.equal(accepts('br', 'gzip'), false, 'the answers of one coding are not the other’s');
  t.equal(acceptsGzip('br'), false);
});
