import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCAL_TOKEN_FILE, persistentLocalToken } from '../../functions/local/local-token.js';
import { temporaryDir } from '../support/local-stack.js';

describe("npm start's bearer token", () => {
  it('is made once per data directory, readable by its owner only, and kept until a new one is asked for', () => {
    const { dir, remove } = temporaryDir();
    try {
      const first = persistentLocalToken(dir, { rotate: false });
      expect(first).toMatch(/^local-[\w-]{24}$/);
      const path = join(dir, LOCAL_TOKEN_FILE);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(persistentLocalToken(dir, { rotate: false })).toBe(first);

      const rotated = persistentLocalToken(dir, { rotate: true });
      expect(rotated).not.toBe(first);
      expect(readFileSync(path, 'utf8').trim()).toBe(rotated);
      expect(persistentLocalToken(dir, { rotate: false })).toBe(rotated);
    } finally {
      remove();
    }
  });
});
