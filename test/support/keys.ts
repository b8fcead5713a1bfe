/**
 * The keys every test service is started with, held by the test helpers as a real client holds
 * them: the admin key is VIGIL_BOOTSTRAP_ADMIN_KEY, the hash secret fixed so no file is written.
 */
export const TEST_ADMIN_KEY = 'vigil-test-admin-key-0123456789abcdef';
const TEST_KEY_SECRET = 'vigil-test-key-secret-0123456789abcdef';

/** The service variables that give a test service its keys. */
export const TEST_AUTH_ENV: Readonly<Record<string, string>> = Object.freeze({
  VIGIL_BOOTSTRAP_ADMIN_KEY: TEST_ADMIN_KEY,
  VIGIL_KEY_SECRET: TEST_KEY_SECRET,
});

/** Request headers carrying `key` (default: the admin key). */
export const keyHeaders = (key: string = TEST_ADMIN_KEY): Record<string, string> => ({
  authorization: `Bearer ${key}`,
});

/** `init` with the admin key added, unless it already names a key (or `authorization: ''`). */
export function withAdminKey(init: RequestInit = {}): RequestInit {
  const headers = new Headers(init.headers);
  if (!headers.has('authorization') && !headers.has('x-api-key')) {
    headers.set('authorization', `Bearer ${TEST_ADMIN_KEY}`);
  }
  if (headers.get('authorization') === '') headers.delete('authorization');
  return { ...init, headers };
}
