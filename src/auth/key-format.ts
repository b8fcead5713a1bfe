/**
 * @module The shape of a Vigil API key: `vgl_<scope>_<32 random base62><6 base62 checksum>`.
 * The prefix says what a key is when it turns up in a log or a repository (as GitHub's tokens
 * do); the CRC32 checksum tells a mistyped key from an unknown or revoked one without a lookup.
 */
import { randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { KEY_SCOPES, type KeyScope } from '../domain/api-key.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 32; // 32 x log2(62) = 190 bits
const CHECKSUM_CHARS = 6; // 62^6 > 2^32
/** Random characters shown in the visible prefix: enough to tell keys apart, far from enough to guess. */
const PREFIX_RANDOM_CHARS = 6;
const SHAPE = new RegExp(
  `^vgl_(${KEY_SCOPES.join('|')})_([0-9A-Za-z]{${RANDOM_CHARS}})([0-9A-Za-z]{${CHECKSUM_CHARS}})$`,
);

const base62 = (value: number, width: number): string => {
  let out = '';
  for (let n = value; out.length < width; n = Math.floor(n / 62)) out = ALPHABET[n % 62] + out;
  return out;
};

const checksumOf = (head: string): string => base62(crc32(head), CHECKSUM_CHARS);

export interface NewKey {
  /** The key itself: shown once, never stored. */
  readonly key: string;
  readonly prefix: string;
}

export function generateKey(scope: KeyScope): NewKey {
  let random = '';
  for (let i = 0; i < RANDOM_CHARS; i++) random += ALPHABET[randomInt(62)];
  const head = `vgl_${scope}_${random}`;
  return {
    key: head + checksumOf(head),
    prefix: `vgl_${scope}_${random.slice(0, PREFIX_RANDOM_CHARS)}`,
  };
}

export type KeyShape =
  /** A well-formed Vigil key: it may still be unknown, revoked or expired. */
  | { readonly kind: 'vigil'; readonly scope: KeyScope }
  /** Looks like a Vigil key but the checksum does not match: a typo or a truncated copy. */
  | { readonly kind: 'mistyped' }
  /** Any other string (a bootstrap key is one). */
  | { readonly kind: 'other' };

export function keyShape(text: string): KeyShape {
  const match = SHAPE.exec(text);
  if (match === null) return text.startsWith('vgl_') ? { kind: 'mistyped' } : { kind: 'other' };
  const head = text.slice(0, text.length - CHECKSUM_CHARS);
  if (checksumOf(head) !== match[3]) return { kind: 'mistyped' };
  return { kind: 'vigil', scope: match[1] as KeyScope };
}
