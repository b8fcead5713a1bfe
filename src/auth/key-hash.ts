/**
 * @module How a key is stored: HMAC-SHA-256 under the server's key secret. A copy of the database
 * alone does not let anyone check guesses, and the key itself is never stored.
 */
import { createHmac } from 'node:crypto';

export type KeyHasher = (key: string) => string;

export const keyHasher =
  (secret: string): KeyHasher =>
  (key) =>
    createHmac('sha256', secret).update(key).digest('hex');
