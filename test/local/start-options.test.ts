import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStartOptions, StartOptionsError } from '../../functions/local/start-options.js';

describe("npm start's options", () => {
  it('defaults to port 8080 and .local/data, keeping data', () => {
    expect(readStartOptions([], {})).toEqual({
      help: false,
      port: 8080,
      dataDir: resolve('.local/data'),
      inMemory: false,
      newToken: false,
    });
  });

  it('takes flags after --, and the same flags npm kept for itself (npm start --in-memory)', () => {
    const flags = readStartOptions(
      ['--port', '9001', '--data-dir', 'x', '--in-memory', '--new-token'],
      {}
    );
    const swallowed = readStartOptions([], {
      npm_config_port: '9001',
      npm_config_data_dir: 'x',
      npm_config_in_memory: 'true',
      npm_config_new_token: 'true',
    });
    expect(swallowed).toEqual(flags);
    expect(flags).toMatchObject({
      port: 9001,
      dataDir: resolve('x'),
      inMemory: true,
      newToken: true,
    });
  });

  it('prefers a flag to a variable, and reads TINY_HARNESS_PORT and TINY_HARNESS_DATA_DIR', () => {
    expect(readStartOptions(['--port', '0'], { TINY_HARNESS_PORT: '7000' }).port).toBe(0);
    expect(
      readStartOptions([], { TINY_HARNESS_PORT: '7000', TINY_HARNESS_DATA_DIR: '/tmp/d' })
    ).toMatchObject({ port: 7000, dataDir: '/tmp/d' });
  });

  it('refuses what it does not know, naming it', () => {
    expect(() => readStartOptions(['--inmemory'], {})).toThrow(StartOptionsError);
    expect(() => readStartOptions(['extra'], {})).toThrow(/Unexpected argument 'extra'/);
    expect(() => readStartOptions([], { TINY_HARNESS_PORT: '-1' })).toThrow(
      /^TINY_HARNESS_PORT=-1 is not a port/
    );
    expect(() => readStartOptions([], { TINY_HARNESS_PORT: '8080.5' })).toThrow(/not a port/);
  });
});
