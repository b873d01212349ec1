import type {
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { Runtime } from '../composition/runtime.js';
import type { PushConfig } from '../core/ports/push-config-store.js';
import { A2aError } from './a2a-errors.js';
import { visibleRecord } from './task-access.js';
import { checkWebhookUrl } from './webhook-url.js';

/**
 * Bounds on what a client may store: a config is a side record of the task, kept small, and a
 * participant has few of them on a task (the cap is soft: two racing creates may pass it by one).
 */
export const PUSH_CONFIG_LIMITS = {
  perParticipant: 10,
  idLength: 128,
  urlLength: 2048,
  tokenLength: 1024,
  credentialsLength: 4096,
} as const;

/** Ids travel in REST paths: a plain, unreserved alphabet keeps them one path segment. */
const CONFIG_ID = /^[A-Za-z0-9._~-]+$/;

const invalid = (message: string) => new A2aError('InvalidParams', message);

const toWire = (config: PushConfig): TaskPushNotificationConfig => ({
  tenant: '',
  id: config.id,
  taskId: config.taskId,
  url: config.url,
  token: config.token,
  authentication: config.authentication ?? undefined,
});

const checkConfigId = (id: string): string => {
  if (id.length > PUSH_CONFIG_LIMITS.idLength || !CONFIG_ID.test(id)) {
    throw invalid(`a push config id is 1 to ${PUSH_CONFIG_LIMITS.idLength} of A-Z a-z 0-9 . _ ~ -`);
  }
  return id;
};

const encodeToken = (id: string) => Buffer.from(id, 'utf8').toString('base64url');
const decodeToken = (token: string) => Buffer.from(token, 'base64url').toString('utf8');

/**
 * The four push-notification config operations (A2A §3.1.7–3.1.10), each on a task the caller is
 * a participant of. A config is its creator's: another participant of the task neither sees nor
 * changes it (it carries the creator's webhook token), and to them it is as missing. Delivery is
 * not here: whoever delivers reads the task's configs from the store.
 */
export class PushConfigs {
  readonly #runtime: Runtime;

  constructor(runtime: Runtime) {
    this.#runtime = runtime;
  }

  /** Stores the config, under the client's id or a new one; the same id again replaces it. */
  async create(
    request: TaskPushNotificationConfig,
    participantId: string
  ): Promise<TaskPushNotificationConfig> {
    const { loop, pushConfigs } = this.#runtime;
    const taskId = (await visibleRecord(loop.store, request.taskId, participantId)).task.id;
    if (request.url.length > PUSH_CONFIG_LIMITS.urlLength) throw invalid('the url is too long');
    checkWebhookUrl(request.url, {
      allowLoopback: this.#runtime.config.TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS,
    });
    if (request.token.length > PUSH_CONFIG_LIMITS.tokenLength)
      throw invalid('the token is too long');
    const authentication = request.authentication;
    if (authentication !== undefined) {
      if (authentication.scheme === '') throw invalid('authentication needs a scheme');
      if (authentication.credentials.length > PUSH_CONFIG_LIMITS.credentialsLength) {
        throw invalid('the credentials are too long');
      }
    }
    const id = request.id === '' ? loop.ids.next('push') : checkConfigId(request.id);
    const existing = await pushConfigs.list(taskId);
    const sameId = existing.find((config) => config.id === id);
    if (sameId !== undefined && sameId.ownerId !== participantId) {
      throw invalid('this push config id is taken on the task');
    }
    const owned = existing.filter((config) => config.ownerId === participantId);
    if (sameId === undefined && owned.length >= PUSH_CONFIG_LIMITS.perParticipant) {
      throw invalid(
        `a participant has at most ${PUSH_CONFIG_LIMITS.perParticipant} push configs on a task`
      );
    }
    const stored = await pushConfigs.put({
      taskId,
      id,
      ownerId: participantId,
      // Stored as given (it round-trips); delivery parses it again and checks the address it dials.
      url: request.url,
      token: request.token,
      authentication:
        authentication === undefined
          ? null
          : { scheme: authentication.scheme, credentials: authentication.credentials },
    });
    return toWire(stored);
  }

  async get(
    taskId: string,
    configId: string,
    participantId: string
  ): Promise<TaskPushNotificationConfig> {
    await visibleRecord(this.#runtime.loop.store, taskId, participantId);
    const config = await this.#runtime.pushConfigs.get(taskId, configId);
    // §5.4 has no error of its own for a missing config: the SDK and we answer TaskNotFound.
    if (config === undefined || config.ownerId !== participantId) {
      throw new A2aError('TaskNotFound', 'push config not found');
    }
    return toWire(config);
  }

  /** The caller's configs on the task, by id; `pageSize` 0 (unset) means all of them. */
  async list(
    request: ListTaskPushNotificationConfigsRequest,
    participantId: string
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    await visibleRecord(this.#runtime.loop.store, request.taskId, participantId);
    const { pageSize, pageToken } = request;
    if (!Number.isSafeInteger(pageSize) || pageSize < 0) {
      throw invalid('pageSize must be a non-negative integer');
    }
    const after = pageToken === '' ? undefined : decodeToken(pageToken);
    const owned = (await this.#runtime.pushConfigs.list(request.taskId)).filter(
      (config) => config.ownerId === participantId
    );
    const rest = after === undefined ? owned : owned.filter((config) => config.id > after);
    const page = pageSize === 0 ? rest : rest.slice(0, pageSize);
    const last = page.at(-1);
    return {
      configs: page.map(toWire),
      nextPageToken: rest.length > page.length && last !== undefined ? encodeToken(last.id) : '',
    };
  }

  /** Idempotent (§3.1.10): deleting a config that is not there (for the caller) succeeds. */
  async delete(taskId: string, configId: string, participantId: string): Promise<void> {
    const { loop, pushConfigs } = this.#runtime;
    await visibleRecord(loop.store, taskId, participantId);
    const config = await pushConfigs.get(taskId, configId);
    if (config?.ownerId === participantId) await pushConfigs.delete(taskId, configId);
  }
}
