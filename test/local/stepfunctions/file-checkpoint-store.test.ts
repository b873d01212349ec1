import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HistoryEvent } from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it } from 'vitest';
import { FileCheckpointStore } from '../../../functions/local/stepfunctions/file-checkpoint-store.js';
import type { ExecutionCheckpoint } from '../../../functions/local/stepfunctions/types.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'checkpoints-'));
  dirs.push(dir);
  return dir;
};

const arnOf = (name: string) => `arn:aws:states:us-east-1:000000000000:execution:turn:${name}`;

const events = (count: number): HistoryEvent[] =>
  Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    previousEventId: i,
    type: i === 0 ? 'ExecutionStarted' : 'TaskStateEntered',
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
  }));

const checkpoint = (name: string, parked: boolean, historyLength = 1): ExecutionCheckpoint => ({
  executionArn: arnOf(name),
  stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:turn',
  name,
  stateName: parked ? 'ParkForInput' : 'AgentStep',
  rawInput: { taskId: name },
  startedAt: '2026-01-01T00:00:00.000Z',
  input: '{}',
  history: events(historyLength),
  ...(parked
    ? {
        park: {
          token: `token-${name}`,
          parkedAt: '2026-01-01T00:00:01.000Z',
          heartbeatSeconds: 600,
        },
      }
    : {}),
});

describe('FileCheckpointStore', () => {
  it('keeps the outcome of concurrent saves and deletes, per execution in call order', async () => {
    const dir = join(tempDir(), 'nested');
    const store = new FileCheckpointStore(dir);
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 50; i++)
      writes.push(store.saveCheckpoint(checkpoint(`t${i}`, i % 3 === 0)));
    for (let i = 0; i < 50; i += 2) writes.push(store.deleteCheckpoint(arnOf(`t${i}`)));
    // A later checkpoint of one execution replaces its earlier one, its history grown.
    writes.push(store.saveCheckpoint(checkpoint('t1', false, 4)));
    await Promise.all(writes);

    const loaded = await new FileCheckpointStore(dir).loadCheckpoints();
    expect(loaded.map((r) => r.name).sort()).toEqual(
      Array.from({ length: 25 }, (_, i) => `t${2 * i + 1}`).sort()
    );
    expect(loaded.find((r) => r.name === 't3')?.park).toEqual({
      token: 'token-t3',
      parkedAt: '2026-01-01T00:00:01.000Z',
      heartbeatSeconds: 600,
    });
    const t1 = loaded.find((r) => r.name === 't1');
    expect(t1).toMatchObject({ stateName: 'AgentStep' });
    expect(t1?.park).toBeUndefined();
    expect(t1?.history).toEqual(events(4));
    // Each save appended only the events the last one had not written.
    expect(
      readFileSync(join(dir, 'turn__t1.history.jsonl'), 'utf8').trim().split('\n')
    ).toHaveLength(4);
    // No temporary file is left: every one was renamed over its checkpoint.
    expect(readdirSync(dir).filter((file) => file.endsWith('.tmp'))).toEqual([]);
  });

  it('cuts a history back to its checkpoint: events written after it (a crash between) are dropped', async () => {
    const dir = tempDir();
    const store = new FileCheckpointStore(dir);
    await store.saveCheckpoint(checkpoint('t', false, 2));
    const history = join(dir, 'turn__t.history.jsonl');
    writeFileSync(history, `${readFileSync(history, 'utf8')}${JSON.stringify(events(3)[2])}\n`);

    const reopened = new FileCheckpointStore(dir);
    const [loaded] = await reopened.loadCheckpoints();
    expect(loaded?.history).toEqual(events(2));
    await reopened.saveCheckpoint(checkpoint('t', false, 5));
    expect((await new FileCheckpointStore(dir).loadCheckpoints())[0]?.history).toEqual(events(5));
  });

  it('loads nothing from a missing directory and refuses a file that is not its own', async () => {
    const dir = tempDir();
    expect(await new FileCheckpointStore(join(dir, 'none')).loadCheckpoints()).toEqual([]);
    writeFileSync(join(dir, 'turn__x.json'), JSON.stringify({ version: 1, parked: {} }));
    await expect(new FileCheckpointStore(dir).loadCheckpoints()).rejects.toThrow(
      /is not an execution checkpoint/
    );
  });
});
