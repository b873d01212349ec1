import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileCheckpointStore } from '../../../functions/local/stepfunctions/file-checkpoint-store.js';
import type { ExecutionCheckpoint } from '../../../functions/local/stepfunctions/types.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'parked-store-'));
  dirs.push(dir);
  return dir;
};

const arnOf = (name: string) => `arn:aws:states:us-east-1:000000000000:execution:turn:${name}`;

const record = (name: string, parked = true): ExecutionCheckpoint => ({
  executionArn: arnOf(name),
  stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:turn',
  name,
  stateName: parked ? 'ParkForInput' : 'AgentStep',
  rawInput: { taskId: name },
  startedAt: '2026-01-01T00:00:00.000Z',
  input: '{}',
  ...(parked
    ? {
        park: {
          token: `token-${name}`,
          parkedAt: '2026-01-01T00:00:01.000Z',
          heartbeatSeconds: 600,
        },
      }
    : {}),
  history: [
    {
      id: 1,
      previousEventId: 0,
      type: 'ExecutionStarted',
      timestamp: new Date('2026-01-01T00:00:00.000Z'),
    },
  ],
});

describe('FileCheckpointStore', () => {
  it('keeps the outcome of concurrent saves and deletes, in call order', async () => {
    const path = join(tempDir(), 'nested', 'executions.json');
    const store = new FileCheckpointStore(path);
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 50; i++) writes.push(store.saveCheckpoint(record(`t${i}`, i % 3 === 0)));
    for (let i = 0; i < 50; i += 2) writes.push(store.deleteCheckpoint(arnOf(`t${i}`)));
    // A later checkpoint of one execution replaces its earlier one.
    writes.push(store.saveCheckpoint(record('t1', false)));
    await Promise.all(writes);
    const loaded = await new FileCheckpointStore(path).loadCheckpoints();
    expect(loaded.map((r) => r.name).sort()).toEqual(
      Array.from({ length: 25 }, (_, i) => `t${2 * i + 1}`).sort()
    );
    expect(loaded[0]?.history[0]?.timestamp).toEqual(new Date('2026-01-01T00:00:00.000Z'));
    expect(loaded.find((r) => r.name === 't3')?.park).toEqual({
      token: 'token-t3',
      parkedAt: '2026-01-01T00:00:01.000Z',
      heartbeatSeconds: 600,
    });
    expect(loaded.find((r) => r.name === 't1')).toMatchObject({ stateName: 'AgentStep' });
    expect(loaded.find((r) => r.name === 't1')?.park).toBeUndefined();
    // Only the file itself is left: every temporary file was renamed over it.
    expect(readdirSync(join(path, '..'))).toEqual(['executions.json']);
  });

  it('loads nothing from a missing file and refuses a file that is not its own', async () => {
    const dir = tempDir();
    expect(await new FileCheckpointStore(join(dir, 'none.json')).loadCheckpoints()).toEqual([]);
    const foreign = join(dir, 'foreign.json');
    writeFileSync(foreign, JSON.stringify({ version: 1, parked: {} }));
    await expect(new FileCheckpointStore(foreign).loadCheckpoints()).rejects.toThrow(
      /not an executions checkpoint file/
    );
    expect(readFileSync(foreign, 'utf8')).toContain('"version":1');
  });
});
