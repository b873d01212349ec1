import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  GetExecutionHistoryCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { FileCheckpointStore } from '../../../functions/local/stepfunctions/file-checkpoint-store.js';
import type { TaskHandler } from '../../../functions/local/stepfunctions/types.js';
import {
  fileStoreFixtures,
  loadFixture,
  ParkRecorder,
  startHarness,
  twoTurnAgentStep,
  waitForEnd,
} from './harness.js';

const { harnesses, storePath: inFolder } = fileStoreFixtures('parked-');
const storePath = () => inFolder('state');

/** Where an execution's journal last said it was: its last line. */
const lastCheckpoint = (file: string) =>
  JSON.parse(readFileSync(file, 'utf8').trim().split('\n').at(-1) ?? 'null');

const boot = async (path: string, parks: ParkRecorder, step: TaskHandler = twoTurnAgentStep) => {
  const h = await startHarness({ store: new FileCheckpointStore(path) });
  harnesses.push(h);
  const { stateMachineArn } = h.engine.createStateMachine({
    name: 'turn',
    definition: loadFixture('turn-loop.asl.json'),
    taskHandlers: { AgentStep: step, ParkForInput: parks.handler },
  });
  return { h, stateMachineArn };
};

describe('rehydration from the file store', () => {
  it('resumes a parked execution in a new engine on the same token', async () => {
    const path = storePath();
    const parksBefore = new ParkRecorder();
    const before = await boot(path, parksBefore);
    const { executionArn } = await before.h.client.send(
      new StartExecutionCommand({
        stateMachineArn: before.stateMachineArn,
        name: 'task-9',
        input: JSON.stringify({ taskId: 't-9', turn: 0, lastInput: null }),
      })
    );
    const { token } = await parksBefore.next();
    await before.h.close();
    harnesses.splice(harnesses.indexOf(before.h), 1);

    const saved = lastCheckpoint(join(path, 'turn__task-9.journal.jsonl'));
    expect(saved.version).toBe(3);
    expect(saved).toMatchObject({
      executionArn,
      name: 'task-9',
      stateName: 'ParkForInput',
      rawInput: { taskId: 't-9', turn: 1, next: 'park', lastInput: null },
      park: { token, timeoutSeconds: 3600, heartbeatSeconds: 600 },
    });

    const parksAfter = new ParkRecorder();
    const after = await boot(path, parksAfter);
    expect(await after.h.engine.rehydrate()).toEqual({
      rehydrated: [executionArn],
      resumed: [],
      failed: [],
    });
    await after.h.client.send(
      new SendTaskSuccessCommand({ taskToken: token, output: '{"text":"after restart"}' })
    );
    const done = await waitForEnd(after.h.client, executionArn);
    expect(done.status).toBe('SUCCEEDED');
    expect(JSON.parse(done.output!)).toEqual({
      taskId: 't-9',
      turn: 2,
      next: 'done',
      lastInput: 'after restart',
    });
    expect(done.input).toBe(JSON.stringify({ taskId: 't-9', turn: 0, lastInput: null }));
    // The park handler ran once, before the restart; rehydration re-parks without calling it.
    expect(parksAfter.calls).toHaveLength(0);

    const { events = [] } = await after.h.client.send(
      new GetExecutionHistoryCommand({ executionArn })
    );
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === 'ExecutionStarted')).toHaveLength(1);
    expect(types.filter((t) => t === 'TaskSubmitted')).toHaveLength(1);
    expect(types.slice(-6)).toEqual([
      'TaskStateExited',
      'ChoiceStateEntered',
      'ChoiceStateExited',
      'SucceedStateEntered',
      'SucceedStateExited',
      'ExecutionSucceeded',
    ]);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    const submitted = events.find((e) => e.type === 'TaskSubmitted')!;
    const resumed = events.find((e) => e.type === 'TaskSucceeded' && e.id! > submitted.id!);
    expect(resumed?.previousEventId).toBe(submitted.id);
    expect(resumed?.taskSucceededEventDetails?.output).toBe('{"text":"after restart"}');
    await after.h.engine.close();
    expect(readdirSync(path)).toEqual([]);
  });

  it('resumes a running execution in the state it was in when the process stopped', async () => {
    const path = storePath();
    // The first process stops in the middle of AgentStep's second call (turn 1 -> 2).
    let entered: () => void = () => undefined;
    const inStep = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const stuck: TaskHandler = (input) => {
      const turn = input as { turn: number };
      if (turn.turn === 1) {
        entered();
        return new Promise(() => undefined);
      }
      return twoTurnAgentStep(input, { executionArn: '', stateName: 'AgentStep' });
    };
    const parksBefore = new ParkRecorder();
    const before = await boot(path, parksBefore, stuck);
    const { executionArn } = await before.h.client.send(
      new StartExecutionCommand({
        stateMachineArn: before.stateMachineArn,
        name: 'task-7',
        input: JSON.stringify({ taskId: 't-7', turn: 0, lastInput: null }),
      })
    );
    const { token } = await parksBefore.next();
    await before.h.client.send(
      new SendTaskSuccessCommand({ taskToken: token, output: '{"text":"go on"}' })
    );
    await inStep;
    await before.h.close();
    harnesses.splice(harnesses.indexOf(before.h), 1);

    const saved = lastCheckpoint(join(path, 'turn__task-7.journal.jsonl'));
    expect(saved).toMatchObject({
      stateName: 'AgentStep',
      rawInput: { turn: 1, lastInput: 'go on' },
    });
    expect(saved.park).toBeUndefined();

    const after = await boot(path, new ParkRecorder());
    expect(await after.h.engine.rehydrate()).toEqual({
      rehydrated: [],
      resumed: [executionArn],
      failed: [],
    });
    const done = await waitForEnd(after.h.client, executionArn);
    expect(done.status).toBe('SUCCEEDED');
    expect(JSON.parse(done.output!)).toMatchObject({ taskId: 't-7', turn: 2, next: 'done' });
    const { events = [] } = await after.h.client.send(
      new GetExecutionHistoryCommand({ executionArn })
    );
    expect(events.filter((e) => e.type === 'ExecutionStarted')).toHaveLength(1);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    // Closing waits for the store's writes: the ended execution's checkpoint is gone.
    await after.h.engine.close();
    expect(readdirSync(path)).toEqual([]);
  });

  it('reports what it cannot rehydrate and leaves it in the store', async () => {
    const path = storePath();
    const parks = new ParkRecorder();
    const before = await boot(path, parks);
    await before.h.client.send(
      new StartExecutionCommand({
        stateMachineArn: before.stateMachineArn,
        input: JSON.stringify({ taskId: 't-1', turn: 0, lastInput: null }),
      })
    );
    const { token } = await parks.next();
    await before.h.close();
    harnesses.splice(harnesses.indexOf(before.h), 1);

    const h = await startHarness({ store: new FileCheckpointStore(path) });
    harnesses.push(h);
    const result = await h.engine.rehydrate();
    expect(result.rehydrated).toEqual([]);
    expect(result.failed).toEqual([
      expect.objectContaining({
        stateName: 'ParkForInput',
        reason: expect.stringMatching(/not created/),
      }),
    ]);
    const [kept] = readdirSync(path).filter((file) => file.endsWith('.journal.jsonl'));
    expect(lastCheckpoint(join(path, kept!))).toMatchObject({ park: { token } });
  });
});
