/**
 * @module Files that hold one secret (the embedded PostgreSQL's password, the API key secret, the
 * first admin key): readable by their owner only, written whole or not at all.
 */
import { open, readFile, rename, rm } from 'node:fs/promises';

/** The secret kept in `file`, or null when there is none. */
export async function readSecretFile(file: string): Promise<string | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const secret = text.trim();
  if (secret === '') throw new Error(`${file} is empty: write the secret in it, or remove it`);
  return secret;
}

/** Writes a new file readable by its owner only; a reader sees the whole secret or none. */
export async function writeSecretFile(file: string, secret: string): Promise<void> {
  const temporary = `${file}.tmp`;
  await rm(temporary, { force: true });
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(`${secret}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
}
