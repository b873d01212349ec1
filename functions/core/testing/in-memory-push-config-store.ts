import {
  type PushConfig,
  PushConfigSchema,
  type PushConfigStore,
} from '../ports/push-config-store.js';
import type { InMemoryTaskStore } from './in-memory-task-store.js';

/**
 * The in-memory `PushConfigStore`: the port's reference behaviour and the fake tests use. It keeps
 * the configs in the task store's partitions (a commit may store one with a message), as JSON
 * text, so nothing a caller holds aliases the store.
 */
export class InMemoryPushConfigStore implements PushConfigStore {
  readonly #store: InMemoryTaskStore;

  constructor(store: InMemoryTaskStore) {
    this.#store = store;
  }

  async put(config: PushConfig): Promise<PushConfig> {
    const valid = PushConfigSchema.parse(config);
    const text = JSON.stringify(valid);
    this.#store.partition(valid.taskId).pushConfigs.set(valid.id, text);
    return JSON.parse(text) as PushConfig;
  }

  async get(taskId: string, configId: string): Promise<PushConfig | undefined> {
    const text = this.#store.existingPartition(taskId)?.pushConfigs.get(configId);
    return text === undefined ? undefined : (JSON.parse(text) as PushConfig);
  }

  async list(taskId: string): Promise<PushConfig[]> {
    const configs = this.#store.existingPartition(taskId)?.pushConfigs;
    if (configs === undefined) return [];
    return [...configs.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, text]) => JSON.parse(text) as PushConfig);
  }

  async delete(taskId: string, configId: string): Promise<void> {
    this.#store.existingPartition(taskId)?.pushConfigs.delete(configId);
  }
}
