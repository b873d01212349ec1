import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The local sealer's key, in the data directory beside the tables whose tokens it sealed. */
export const PUSH_TOKEN_KEY_FILE = 'push-token.key';

const read = (path: string) => readFileSync(path, 'utf8').trim();

/**
 * The key `npm start` seals push tokens with when TINY_HARNESS_PUSH_TOKEN_KEY is unset: read from
 * the data directory, or made there (readable by its owner only) on the first start, so the
 * tokens stored in DynamoDB Local still open after a restart.
 */
export const persistentPushTokenKey = (dataDir: string): string => {
  const path = join(dataDir, PUSH_TOKEN_KEY_FILE);
  try {
    return read(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = randomBytes(32).toString('base64');
  try {
    writeFileSync(path, `${key}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    // Another process made it first: theirs is the key.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return read(path);
    throw error;
  }
};
