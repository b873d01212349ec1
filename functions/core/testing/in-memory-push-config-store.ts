import {
  type PushConfig,
  PushConfigSchema,
  type PushConfigStore,
} from '../ports/push-config-store.js';

/**
 * The in-memory `PushConfigStore`: the port's reference behaviour and the fake tests use. Values
 * are kept as JSON text, so nothing a caller holds aliases the store.
 */
export class InMemoryPushConfigStore implements PushConfigStore {
  readonly #tasks = new Map<string, Map<string, string>>();

  async put(config: PushConfig): Promise<PushConfig> {
    const valid = PushConfigSchema.parse(config);
    let configs = this.#tasks.get(valid.taskId);
    if (configs === undefined) {
      configs = new Map();
      this.#tasks.set(valid.taskId, configs);
    }
    const text = JSON.stringify(valid);
    configs.set(valid.id, text);
    return JSON.parse(text) as PushConfig;
  }

  async get(taskId: string, configId: string): Promise<PushConfig | undefined> {
    const text = this.#tasks.get(taskId)?.get(configId);
    return text === undefined ? undefined : (JSON.parse(text) as PushConfig);
  }

  async list(taskId: string): Promise<PushConfig[]> {
    const configs = this.#tasks.get(taskId);
    if (configs === undefined) return [];
    return [...configs.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, text]) => JSON.parse(text) as PushConfig);
  }

  async delete(taskId: string, configId: string): Promise<void> {
    this.#tasks.get(taskId)?.delete(configId);
  }
}
