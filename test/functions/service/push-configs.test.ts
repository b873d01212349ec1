import { describe, expect, it } from 'vitest';
import { SEALED_PREFIX } from '../../../functions/core/ports/secret-sealer.js';
import { A2aError } from '../../../functions/service/a2a-errors.js';
import { PushConfigs, storedIdOf } from '../../../functions/service/push-configs.js';
import { ALICE, BOB, STRANGER } from '../../support/harness.js';
import { textMessage } from '../../support/messages.js';
import { pushConfigRequest } from '../../support/push.js';
import { inMemoryRuntime } from '../support.js';

const request = pushConfigRequest;

const setup = async () => {
  const parts = inMemoryRuntime({ replies: [{ text: 'Hello Alice.' }] });
  const task = (await parts.harness.start(textMessage('hi'), ALICE)).task;
  return { ...parts, task, configs: new PushConfigs(parts.runtime) };
};

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: unknown) => (error instanceof A2aError ? error.kind : error)
  );

describe('PushConfigs: sealed at rest', () => {
  it('stores the token and credentials sealed, and answers its owner with them in clear', async () => {
    const { configs, task, pushConfigs, sealer } = await setup();
    const clear = {
      id: 'hook',
      taskId: task.id,
      url: 'https://hooks.example.com/a2a',
      token: 'tok-123',
      authentication: { scheme: 'Bearer', credentials: 'secret-credentials' },
    };

    const created = await configs.create(request(clear), ALICE);
    const [stored] = await pushConfigs.list(task.id);

    expect(created).toEqual({ tenant: '', ...clear });
    expect(stored?.token.startsWith(SEALED_PREFIX)).toBe(true);
    expect(stored?.authentication?.credentials.startsWith(SEALED_PREFIX)).toBe(true);
    expect(JSON.stringify(stored)).not.toMatch(/tok-123|secret-credentials/);
    expect(stored?.authentication?.scheme).toBe('Bearer');
    // Bound to its task and its (owned) id.
    const context = { taskId: task.id, configId: storedIdOf(ALICE, 'hook') };
    expect(await sealer.open(stored?.token ?? '', context)).toBe('tok-123');
    expect(await configs.get(task.id, 'hook', ALICE)).toEqual({ tenant: '', ...clear });
    expect(
      await configs.list({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' }, ALICE)
    ).toEqual({ configs: [{ tenant: '', ...clear }], nextPageToken: '' });
  });

  it('keeps an empty token and empty credentials empty', async () => {
    const { configs, task, pushConfigs } = await setup();
    await configs.create(
      request({
        id: 'hook',
        taskId: task.id,
        authentication: { scheme: 'Basic', credentials: '' },
      }),
      ALICE
    );
    expect(await pushConfigs.get(task.id, storedIdOf(ALICE, 'hook'))).toMatchObject({
      token: '',
      authentication: { scheme: 'Basic', credentials: '' },
    });
    expect(await configs.get(task.id, 'hook', ALICE)).toMatchObject({ token: '' });
  });

  it('fails loudly (not with a wrong token) when a stored token does not open', async () => {
    const { configs, task, pushConfigs } = await setup();
    await configs.create(request({ id: 'hook', taskId: task.id, token: 'tok-123' }), ALICE);
    const stored = await pushConfigs.get(task.id, storedIdOf(ALICE, 'hook'));
    // The sealed token of one config copied onto another does not open there.
    await pushConfigs.put({ ...stored!, id: storedIdOf(ALICE, 'copy') });
    await expect(configs.get(task.id, 'copy', ALICE)).rejects.toMatchObject({
      code: 'secret.unreadable',
    });
  });
});

describe('PushConfigs.prepare and storePrepared (inline configs)', () => {
  it('prepare checks and seals, and writes nothing; storePrepared stores it', async () => {
    const { configs, pushConfigs } = await setup();
    const taskId = 'task-not-created-yet';

    const prepared = await configs.prepare(taskId, request({ token: 'tok-123' }), ALICE);

    expect(await pushConfigs.list(taskId)).toEqual([]);
    expect(prepared.stored).toMatchObject({ taskId, ownerId: ALICE, id: expect.any(String) });
    expect(prepared.stored.token.startsWith(SEALED_PREFIX)).toBe(true);
    expect(prepared.answer).toMatchObject({ taskId, token: 'tok-123' });
    expect(prepared.stored.id).toBe(storedIdOf(ALICE, prepared.answer.id));

    expect(await configs.storePrepared(prepared)).toEqual(prepared.answer);
    expect(await pushConfigs.list(taskId)).toEqual([prepared.stored]);
  });

  it.each([
    ['a private webhook', request({ url: 'https://10.0.0.5/hook' })],
    ['plain http to a public host', request({ url: 'http://hooks.example.com/a2a' })],
    ['a url that is too long', request({ url: `https://hooks.example.com/${'a'.repeat(2100)}` })],
    ['an id with a slash', request({ id: 'a/b' })],
    ['a token that is too long', request({ token: 't'.repeat(1025) })],
    ['a token with a line break', request({ token: 'tok\r\nX-Evil: 1' })],
    ['an empty scheme', request({ authentication: { scheme: '', credentials: 'c' } })],
    ['a scheme with a space', request({ authentication: { scheme: 'Be arer', credentials: 'c' } })],
    [
      'credentials over 4096 bytes',
      request({ authentication: { scheme: 'Bearer', credentials: 'é'.repeat(2049) } }),
    ],
    [
      'credentials with a line break',
      request({ authentication: { scheme: 'Bearer', credentials: 'a\nb' } }),
    ],
    ['another task', request({ taskId: 'some-other-task' })],
  ])('prepare refuses %s with InvalidParams', async (_, config) => {
    const { configs } = await setup();
    expect(await refusal(configs.prepare('task-1', config, ALICE))).toBe('InvalidParams');
  });

  it('storePrepared keeps ids per participant: an id another holds is a fresh one for the caller, never revealed; an eleventh config is refused', async () => {
    const { configs, pushConfigs } = await setup();
    const taskId = 'task-new';
    await configs.storePrepared(
      await configs.prepare(
        taskId,
        request({ id: 'hook', url: 'https://alice.example.com/' }),
        ALICE
      )
    );

    const bobs = await configs.prepare(
      taskId,
      request({ id: 'hook', url: 'https://bob.example.com/' }),
      BOB
    );
    expect(await configs.storePrepared(bobs)).toMatchObject({ id: 'hook' });
    expect((await pushConfigs.list(taskId)).map((config) => [config.ownerId, config.url])).toEqual([
      [ALICE, 'https://alice.example.com/'],
      [BOB, 'https://bob.example.com/'],
    ]);

    for (let index = 0; index < 9; index++) {
      await configs.storePrepared(await configs.prepare(taskId, request(), BOB));
    }
    const eleventh = await configs.prepare(taskId, request(), BOB);
    expect(await refusal(configs.storePrepared(eleventh))).toBe('InvalidParams');
    // A replacement is not one more.
    const again = await configs.prepare(taskId, request({ id: 'hook' }), BOB);
    expect(await refusal(configs.storePrepared(again))).toBe('accepted');
  });

  it('reads, replaces and deletes a config stored before ids were owned, by its id', async () => {
    const { configs, pushConfigs, task } = await setup();
    const { stored } = await configs.prepare(task.id, request({ id: 'old', token: '' }), ALICE);
    // As an earlier version stored it: under the id the client gave.
    await pushConfigs.put({ ...stored, id: 'old' });

    expect(await configs.get(task.id, 'old', ALICE)).toMatchObject({ id: 'old' });
    await configs.create(
      request({ id: 'old', taskId: task.id, url: 'https://new.example.com/' }),
      ALICE
    );
    expect((await pushConfigs.list(task.id)).map((config) => config.id)).toEqual([
      storedIdOf(ALICE, 'old'),
    ]);
    await configs.delete(task.id, 'old', ALICE);
    expect(await pushConfigs.list(task.id)).toEqual([]);
  });

  it('create still checks that the caller is on the task, before anything else', async () => {
    const { configs, task, pushConfigs } = await setup();
    expect(await refusal(configs.create(request({ taskId: task.id }), STRANGER))).toBe(
      'TaskNotFound'
    );
    expect(await pushConfigs.list(task.id)).toEqual([]);
  });
});
