import { describe, expect, it } from 'vitest';
import type { TaskCommit, TaskStore } from '../../../functions/core/ports/task-store.js';
import { A2aService } from '../../../functions/service/a2a-service.js';
import { ALICE, STATES, view } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';
import { inMemoryRuntime } from '../support.js';

const HOOK = {
  tenant: '',
  id: 'hook-1',
  taskId: '',
  url: 'https://hooks.example.com/a2a',
  token: 'tok',
  authentication: undefined,
};

/** A runtime whose store fails the commits `failing` picks, as DynamoDB can at any call. */
const withFailingCommits = (failing: (commit: TaskCommit) => boolean) => {
  const parts = inMemoryRuntime({ replies: [{ text: 'Hello.' }, { text: 'Again.' }] });
  const store = parts.harness.store;
  const injected = new Proxy(store, {
    get(target, property) {
      if (property === 'commit') {
        return async (commit: TaskCommit) => {
          if (failing(commit)) throw new Error('injected: the store is unreachable');
          return target.commit(commit);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as TaskStore;
  const runtime = { ...parts.runtime, loop: { ...parts.runtime.loop, store: injected } };
  const service = new A2aService(runtime, { blockingTimeoutMs: 50, pollIntervalMs: 5 });
  return { ...parts, service, store };
};

describe('intake leaves nothing behind when it fails at any point', () => {
  it('a failed commit of a new task stores no task, event, inbox item or push config', async () => {
    const { service, store, executions } = withFailingCommits(() => true);

    const failed = await service
      .sendMessage({ message: textMessage('hi'), sender: ALICE, pushConfig: HOOK, blocking: false })
      .catch((error: unknown) => error);

    expect((failed as Error).message).toContain('injected');
    expect(await store.list({})).toEqual([]);
    // Not one write of the request went through: no task, event, item, audit row or config.
    expect(store.commits).toEqual([]);
    expect(executions.calls).toEqual([]);
  });

  it('a failed commit to an existing task applies no envelope, queues nothing, stores no push config, wakes nothing', async () => {
    let fail = false;
    const { service, store, pushConfigs, harness, executions } = withFailingCommits(() => fail);
    const task = await harness.start(textMessage('hi'), ALICE);
    const taskId = task.task.id;
    const before = {
      record: await harness.task(taskId),
      events: await harness.events.read(taskId),
      calls: executions.calls.length,
    };
    fail = true;

    const renamed = {
      ...textMessage('and rename it'),
      taskId,
      parts: [
        ...textMessage('and rename it').parts,
        {
          content: {
            $case: 'data' as const,
            value: { kind: 'task', payload: { name: 'Renamed' } },
          },
          metadata: undefined,
          filename: '',
          mediaType: 'application/vnd.tiny-harness.event+json',
        },
      ],
    };
    const failed = await service
      .sendMessage({ message: renamed, sender: ALICE, pushConfig: HOOK, blocking: false })
      .catch((error: unknown) => error);

    expect((failed as Error).message).toContain('injected');
    expect(await harness.task(taskId)).toEqual(before.record);
    expect(view(before.record).extension.name).not.toBe('Renamed');
    expect(await harness.events.read(taskId)).toEqual(before.events);
    expect(await store.readInbox(taskId)).toEqual([]);
    expect(await store.inboxSeqOf(taskId, renamed.messageId)).toBeUndefined();
    expect(await pushConfigs.list(taskId)).toEqual([]);
    expect(executions.calls.length).toBe(before.calls);
  });

  it('a new task whose first execution cannot start is failed with a reason, never left waiting', async () => {
    const { service, store, executions } = withFailingCommits(() => false);
    executions.start = async () => {
      throw new Error('injected: StartExecution throttled');
    };

    const failed = await service
      .sendMessage({ message: textMessage('hi'), sender: ALICE, blocking: false })
      .catch((error: unknown) => error);

    expect((failed as Error).message).toContain('StartExecution');
    const [task] = await store.list({});
    expect(view(task!)).toMatchObject({
      state: STATES.FAILED,
      statusText: 'the task could not be started',
    });
  });
});
