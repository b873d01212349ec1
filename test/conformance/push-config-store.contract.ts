import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushConfig, PushConfigStore } from '../../functions/core/ports/push-config-store.js';
import { uid } from './fixtures.js';

export interface PushConfigStoreFixture {
  store: PushConfigStore;
  cleanup?: () => Promise<void>;
}

/** A config as the service stores it: token and credentials sealed (opaque strings here). */
const makeConfig = (
  taskId: string,
  id: string,
  overrides: Partial<PushConfig> = {}
): PushConfig => ({
  taskId,
  id,
  ownerId: 'alice',
  url: 'https://hooks.example.com/a2a',
  token: `sealed:v1:local:${id}-token`,
  authentication: { scheme: 'Bearer', credentials: `sealed:v1:local:${id}-credentials` },
  ...overrides,
});

/**
 * The `PushConfigStore` port contract (functions/core/ports/push-config-store.ts), one test per
 * clause, run by the in-memory fake and the DynamoDB adapter.
 */
export const describePushConfigStoreContract = (
  name: string,
  makeStore: () => Promise<PushConfigStoreFixture>
) => {
  describe(`PushConfigStore contract: ${name}`, () => {
    let fixture: PushConfigStoreFixture;
    let store: PushConfigStore;

    beforeAll(async () => {
      fixture = await makeStore();
      store = fixture.store;
    });

    afterAll(async () => {
      await fixture?.cleanup?.();
    });

    it('put stores a config under (taskId, id) and returns what is stored, strings as given', async () => {
      const taskId = uid('task');
      const config = makeConfig(taskId, 'hook', { token: '', authentication: null });
      expect(await store.put(config)).toEqual(config);
      expect(await store.get(taskId, 'hook')).toEqual(config);
      const sealed = makeConfig(taskId, 'sealed');
      await store.put(sealed);
      expect(await store.get(taskId, 'sealed')).toEqual(sealed);
    });

    it('put replaces the config stored under the same id', async () => {
      const taskId = uid('task');
      await store.put(makeConfig(taskId, 'hook'));
      const replacement = makeConfig(taskId, 'hook', { url: 'https://other.example.com/' });
      await store.put(replacement);
      expect(await store.list(taskId)).toEqual([replacement]);
    });

    it('get returns undefined for an unknown task or config id', async () => {
      const taskId = uid('task');
      await store.put(makeConfig(taskId, 'hook'));
      expect(await store.get(taskId, 'other')).toBeUndefined();
      expect(await store.get(uid('task'), 'hook')).toBeUndefined();
    });

    it("list returns the task's configs ordered by id, and only that task's", async () => {
      const taskId = uid('task');
      for (const id of ['b', 'a', 'c']) await store.put(makeConfig(taskId, id));
      await store.put(makeConfig(uid('task'), 'z'));
      expect((await store.list(taskId)).map((config) => config.id)).toEqual(['a', 'b', 'c']);
      expect(await store.list(uid('task'))).toEqual([]);
    });

    it('delete is idempotent', async () => {
      const taskId = uid('task');
      await store.put(makeConfig(taskId, 'hook'));
      await store.delete(taskId, 'hook');
      await store.delete(taskId, 'hook');
      await store.delete(uid('task'), 'never');
      expect(await store.get(taskId, 'hook')).toBeUndefined();
    });

    it('returns copies: mutating a returned config changes nothing stored', async () => {
      const taskId = uid('task');
      const returned = await store.put(makeConfig(taskId, 'hook'));
      returned.url = 'https://mutated.example.com/';
      const read = await store.get(taskId, 'hook');
      read!.authentication!.credentials = 'mutated';
      expect(await store.get(taskId, 'hook')).toEqual(makeConfig(taskId, 'hook'));
    });
  });
};
