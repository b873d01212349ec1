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
    // One file an execution, one line a save, each with only the events the last had not written.
    const lines = readFileSync(join(dir, 'turn__t1.journal.jsonl'), 'utf8').trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).events.length)).toEqual([1, 3]);
    expect(readdirSync(dir).every((file) => file.endsWith('.journal.jsonl'))).toBe(true);
  });

  it('drops a last line cut short (a crash in the middle of its append): the one before it holds', async () => {
    const dir = tempDir();
    const store = new FileCheckpointStore(dir);
    await store.saveCheckpoint(checkpoint('t', false, 2));
    await store.saveCheckpoint(checkpoint('t', true, 3));
    const journal = join(dir, 'turn__t.journal.jsonl');
    const [first, second] = readFileSync(journal, 'utf8').split('\n');
    writeFileSync(journal, `${first}\n${second?.slice(0, 40)}`);

    const reopened = new FileCheckpointStore(dir);
    const [loaded] = await reopened.loadCheckpoints();
    expect(loaded).toMatchObject({ stateName: 'AgentStep', history: events(2) });
    expect(loaded?.park).toBeUndefined();
    // The next save appends after the whole line, not after the broken one.
    await reopened.saveCheckpoint(checkpoint('t', false, 5));
    expect((await new FileCheckpointStore(dir).loadCheckpoints())[0]?.history).toEqual(events(5));
    expect(reopened.loadCheckpoint(arnOf('t'))?.history).toEqual(events(5));
  });

  it('holds no checkpoint of an execution whose first line was cut short, and removes its file', async () => {
    const dir = tempDir();
    const store = new FileCheckpointStore(dir);
    await store.saveCheckpoint(checkpoint('torn', false, 2));
    await store.saveCheckpoint(checkpoint('whole', false, 1));
    const journal = join(dir, 'turn__torn.journal.jsonl');
    writeFileSync(journal, readFileSync(journal, 'utf8').slice(0, 30));

    expect(new FileCheckpointStore(dir).loadCheckpoint(arnOf('torn'))).toBeUndefined();
    const loaded = await new FileCheckpointStore(dir).loadCheckpoints();
    expect(loaded.map((each) => each.name)).toEqual(['whole']);
    expect(readdirSync(dir)).toEqual(['turn__whole.journal.jsonl']);
  });

  it('moves an earlier build’s pair of files into a journal, its history cut back to its checkpoint, and goes on from it', async () => {
    const dir = tempDir();
    const { history, park, ...position } = checkpoint('old', true, 3);
    writeFileSync(
      join(dir, 'turn__old.json'),
      JSON.stringify({ version: 2, ...position, historyLength: 3, park })
    );
    // Four events, one written after the checkpoint (a crash in between): left out.
    writeFileSync(
      join(dir, 'turn__old.history.jsonl'),
      events(4)
        .map((event) => `${JSON.stringify(event)}\n`)
        .join('')
    );

    const store = new FileCheckpointStore(dir);
    const [loaded] = await store.loadCheckpoints();
    expect(loaded).toEqual({ ...position, history, park });
    expect(readdirSync(dir)).toEqual(['turn__old.journal.jsonl']);
    expect(store.loadCheckpoint(arnOf('old'))).toEqual(loaded);
    await store.saveCheckpoint(checkpoint('old', false, 6));
    const again = await new FileCheckpointStore(dir).loadCheckpoints();
    expect(again).toEqual([{ ...checkpoint('old', false, 6) }]);
  });

  it('loads nothing from a missing directory and refuses a file that is not its own', async () => {
    const dir = tempDir();
    expect(await new FileCheckpointStore(join(dir, 'none')).loadCheckpoints()).toEqual([]);
    writeFileSync(join(dir, 'turn__x.json'), JSON.stringify({ version: 1, parked: {} }));
    await expect(new FileCheckpointStore(dir).loadCheckpoints()).rejects.toThrow(
      /turn__x\.json is not an execution checkpoint/
    );
    const other = tempDir();
    writeFileSync(join(other, 'turn__y.journal.jsonl'), '{"version":3}\n');
    await expect(new FileCheckpointStore(other).loadCheckpoints()).rejects.toThrow(
      /turn__y\.journal\.jsonl is not an execution checkpoint/
    );
    // Lines whose events do not add up to the history they claim.
    const { history: _history, ...position } = checkpoint('z', false, 2);
    const line = { version: 3, ...position, historyLength: 2, events: events(1) };
    writeFileSync(join(other, 'turn__y.journal.jsonl'), `${JSON.stringify(line)}\n`);
    await expect(new FileCheckpointStore(other).loadCheckpoints()).rejects.toThrow(
      /lines hold 1 events, not 2/
    );
  });
});
