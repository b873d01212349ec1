import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  PUSH_TOKEN_KEY_FILE,
  persistentPushTokenKey,
} from '../../functions/local/push-token-key.js';
import { temporaryDir } from '../support/local-stack.js';

describe('the push token key of npm start', () => {
  const dirs: Array<ReturnType<typeof temporaryDir>> = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) dir.remove();
  });
  const dataDir = () => {
    const dir = temporaryDir();
    dirs.push(dir);
    return dir.dir;
  };

  it('is made on the first start, readable by its owner only, and the same on the next', () => {
    const dir = dataDir();
    const key = persistentPushTokenKey(dir);

    expect(Buffer.from(key, 'base64')).toHaveLength(32);
    expect(statSync(join(dir, PUSH_TOKEN_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(persistentPushTokenKey(dir)).toBe(key);
  });

  it('is the one already in the data directory', () => {
    const dir = dataDir();
    const key = Buffer.alloc(32, 7).toString('base64');
    writeFileSync(join(dir, PUSH_TOKEN_KEY_FILE), `${key}\n`);
    expect(persistentPushTokenKey(dir)).toBe(key);
  });
});
