import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The bearer token `npm start` made for `you`, in its data directory. */
export const LOCAL_TOKEN_FILE = 'token';

const newToken = () => `local-${randomBytes(18).toString('base64url')}`;

/**
 * The token `npm start` gives `you` when TINY_HARNESS_BEARER_TOKENS names none: the one kept in
 * the data directory, so a restart does not lock out a chat, a page or a script that holds it;
 * made there (readable by its owner only) on the first start, or again when `rotate` asks for a
 * new one (`npm start -- --new-token`), which every holder of the old one must then be given.
 */
export const persistentLocalToken = (dataDir: string, options: { rotate: boolean }): string => {
  const path = join(dataDir, LOCAL_TOKEN_FILE);
  if (!options.rotate) {
    try {
      const kept = readFileSync(path, 'utf8').trim();
      if (kept !== '') return kept;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  const token = newToken();
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return token;
};

/** A token for one run: `--in-memory` keeps nothing, its token included. */
export const runToken = newToken;
