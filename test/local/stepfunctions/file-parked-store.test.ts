import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileParkedStore } from '../../../functions/local/stepfunctions/file-parked-store.js';
import type { ParkedRecord } from '../../../functions/local/stepfunctions/types.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'parked-store-'));
  dirs.push(dir);
  return dir;
};

const record = (token: string): ParkedRecord => ({
  executionArn: `arn:aws:states:us-east-1:000000000000:execution:turn:${token}`,
  stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:turn',
  name: token,
  stateName: 'ParkForInput',
  rawInput: { taskId: token },
  token,
  startedAt: '2026-01-01T00:00:00.000Z',
  input: '{}',
  parkedAt: '2026-01-01T00:00:01.000Z',
  heartbeatSeconds: 600,
  history: [
    {
      id: 1,
      previousEventId: 0,
      type: 'ExecutionStarted',
      timestamp: new Date('2026-01-01T00:00:00.000Z'),
    },
  ],
});

describe('FileParkedStore', () => {
  it('keeps the outcome of concurrent saves and deletes, in call order', async () => {
    const path = join(tempDir(), 'nested', 'parked.json');
    const store = new FileParkedStore(path);
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 50; i++) writes.push(store.saveParked(record(`t${i}`)));
    for (let i = 0; i < 50; i += 2) writes.push(store.deleteParked(`t${i}`));
    await Promise.all(writes);
    const loaded = await new FileParkedStore(path).loadParked();
    expect(loaded.map((r) => r.token).sort()).toEqual(
      Array.from({ length: 25 }, (_, i) => `t${2 * i + 1}`).sort()
    );
    expect(loaded[0]?.history[0]?.timestamp).toEqual(new Date('2026-01-01T00:00:00.000Z'));
    expect(loaded[0]?.heartbeatSeconds).toBe(600);
    // Only the file itself is left: every temporary file was renamed over it.
    expect(readdirSync(join(path, '..'))).toEqual(['parked.json']);
  });

  it('loads nothing from a missing file and refuses a file that is not its own', async () => {
    const dir = tempDir();
    expect(await new FileParkedStore(join(dir, 'none.json')).loadParked()).toEqual([]);
    const foreign = join(dir, 'foreign.json');
    writeFileSync(foreign, JSON.stringify({ version: 2, parked: {} }));
    await expect(new FileParkedStore(foreign).loadParked()).rejects.toThrow(
      /not a parked-executions file/
    );
    expect(readFileSync(foreign, 'utf8')).toContain('"version":2');
  });
});
