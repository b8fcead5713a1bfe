// The key format: a new key is well formed and names its scope; a changed or cut character is
// told apart (by the checksum) from a key that is merely unknown.
import t from 'tap';
import { generateKey, keyShape } from '../../src/auth/key-format.ts';
import { KEY_SCOPES } from '../../src/domain/api-key.ts';

t.test('a new key is well formed, names its scope and starts with its prefix', async (t) => {
  for (const scope of KEY_SCOPES) {
    const { key, prefix } = generateKey(scope);
    t.match(key, new RegExp(`^vgl_${scope}_[0-9A-Za-z]{38}$`));
    t.ok(key.startsWith(prefix), 'the prefix is the start of the key');
    t.ok(prefix.length < key.length - 30, 'the prefix shows little of the random part');
    t.same(keyShape(key), { kind: 'vigil', scope });
  }
  t.not(generateKey('read').key, generateKey('read').key, 'keys are random');
});

t.test('a typo or a truncated copy is mistyped, not unknown', async (t) => {
  const { key } = generateKey('ingest');
  const last = key.at(-1) as string;
  const typo = key.slice(0, -1) + (last === 'a' ? 'b' : 'a');
  t.same(keyShape(typo), { kind: 'mistyped' });
  t.same(keyShape(key.slice(0, -1)), { kind: 'mistyped' });
  t.same(keyShape(key.replace('vgl_ingest_', 'vgl_admin_')), { kind: 'mistyped' });
  const middle = 15;
  const swapped = key.slice(0, middle) + key[middle + 1] + key[middle] + key.slice(middle + 2);
  if (swapped !== key) t.same(keyShape(swapped), { kind: 'mistyped' }, 'two characters swapped');
});

t.test('any other string is not a Vigil key (a bootstrap key may be one)', async (t) => {
  t.same(keyShape('my-own-bootstrap-key-0123456789abcdef'), { kind: 'other' });
  t.same(keyShape(''), { kind: 'other' });
});
