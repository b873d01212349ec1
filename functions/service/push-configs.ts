import type {
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { PushConfig } from '../core/ports/push-config-store.js';
import { A2aError } from './a2a-errors.js';
import type { ServiceDeps } from './deps.js';
import { openPushSecrets, sealPushSecrets } from './push-secrets.js';
import { visibleRecord } from './task-access.js';
import { checkWebhookUrl } from './webhook-url.js';

/**
 * Bounds on what a client may store: a config is a side record of the task, kept small, and a
 * participant has few of them on a task (the cap is soft: two racing creates may pass it by one).
 * Credentials are counted in UTF-8 bytes: 4096 is the most KMS encrypts in one call.
 */
export const PUSH_CONFIG_LIMITS = {
  perParticipant: 10,
  idLength: 128,
  urlLength: 2048,
  tokenLength: 1024,
  schemeLength: 64,
  credentialsBytes: 4096,
} as const;

/** Ids travel in REST paths: a plain, unreserved alphabet keeps them one path segment. */
const CONFIG_ID = /^[A-Za-z0-9._~-]+$/;
/** An HTTP authentication scheme is an RFC 9110 token (`Bearer`, `Basic`, ...). */
const AUTH_SCHEME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * The token and credentials become header values: printable ASCII only, so no notification is
 * refused by the HTTP client later (and no header can be smuggled in with a line break).
 */
const TOKEN = /^[\x21-\x7e]*$/;
const CREDENTIALS = /^[\x20-\x7e]*$/;

const invalid = (message: string) => new A2aError('InvalidParams', message);

/** A refused request field, named in the message and as a BadRequest field violation. */
const invalidField = (field: string, description: string) =>
  new A2aError('InvalidParams', `invalid params: ${field} ${description}`, {
    violations: [{ field, description }],
  });

/**
 * Config ids are their owner's (§13.1: one participant learns nothing of another's configs), so
 * two participants may both name a config `hook` on one task: the store keys each by owner and
 * id. The owner is percent-encoded and the client's ids have no `/`, so the two split apart.
 */
export const storedIdOf = (ownerId: string, clientId: string) =>
  `${encodeURIComponent(ownerId)}/${clientId}`;

/** The id the client named; a config stored before ids were owned has its id as it was given. */
const clientIdOf = (config: PushConfig) => {
  const slash = config.id.indexOf('/');
  return slash === -1 ? config.id : config.id.slice(slash + 1);
};

const toWire = (config: PushConfig): TaskPushNotificationConfig => ({
  tenant: '',
  id: clientIdOf(config),
  taskId: config.taskId,
  url: config.url,
  token: config.token,
  authentication: config.authentication ?? undefined,
});

const isConfigId = (id: string) => id.length <= PUSH_CONFIG_LIMITS.idLength && CONFIG_ID.test(id);

const checkConfigId = (id: string): string => {
  if (!isConfigId(id)) {
    throw invalidField(
      'id',
      `is not a push config id: 1 to ${PUSH_CONFIG_LIMITS.idLength} of A-Z a-z 0-9 . _ ~ -`
    );
  }
  return id;
};

const checkToken = (token: string): string => {
  if (token.length > PUSH_CONFIG_LIMITS.tokenLength) throw invalid('the token is too long');
  if (!TOKEN.test(token)) throw invalid('the token must be printable ASCII without spaces');
  return token;
};

const checkAuthentication = (
  authentication: TaskPushNotificationConfig['authentication']
): PushConfig['authentication'] => {
  if (authentication === undefined) return null;
  const { scheme, credentials } = authentication;
  if (scheme === '') throw invalid('authentication needs a scheme');
  if (scheme.length > PUSH_CONFIG_LIMITS.schemeLength || !AUTH_SCHEME.test(scheme)) {
    throw invalid('the authentication scheme is not an HTTP scheme name');
  }
  if (Buffer.byteLength(credentials, 'utf8') > PUSH_CONFIG_LIMITS.credentialsBytes) {
    throw invalid('the credentials are too long');
  }
  if (!CREDENTIALS.test(credentials)) throw invalid('the credentials must be printable ASCII');
  return { scheme, credentials };
};

const encodeToken = (id: string) => Buffer.from(id, 'utf8').toString('base64url');

/**
 * The config id a page token names. Base64url decodes anything (it skips what is not its
 * alphabet), so a token is this server's only when it is the encoding of a config id: anything
 * else is refused, not read as some other place in the list.
 */
const decodeToken = (token: string): string => {
  const id = Buffer.from(token, 'base64url').toString('utf8');
  if (encodeToken(id) !== token || !isConfigId(id)) {
    throw invalidField('pageToken', 'is not a token this server issued');
  }
  return id;
};

/**
 * A config checked and sealed for one task, not stored yet (`PushConfigs.prepare`): what
 * `storePrepared` writes, and the answer the client gets (its secrets in clear).
 */
export interface PreparedPushConfig {
  readonly stored: PushConfig;
  readonly answer: TaskPushNotificationConfig;
}

/**
 * The four push-notification config operations (A2A §3.1.7–3.1.10), each on a task the caller is
 * a participant of. A config is its creator's: another participant of the task neither sees nor
 * changes it (it carries the creator's webhook token), and to them it is as missing. Token and
 * credentials are sealed in the store and opened only for their owner (and for delivery:
 * push-delivery.ts).
 *
 * An inline config of SendMessage (`configuration.taskPushNotificationConfig`) goes through the
 * two steps `create` takes: `prepare` (everything about the request, before anything is written)
 * and `storePrepared` (what depends on the configs already stored), so a task being created can
 * have its config stored before its first event is appended.
 */
/** What the config operations work with (the A2A service's own dependencies, in part). */
export type PushConfigsDeps = Pick<
  ServiceDeps,
  'loop' | 'pushConfigs' | 'sealer' | 'webhookPolicy'
>;

export class PushConfigs {
  readonly #runtime: PushConfigsDeps;

  constructor(runtime: PushConfigsDeps) {
    this.#runtime = runtime;
  }

  /** Stores the config, under the client's id or a new one; the same id again replaces it. */
  async create(
    request: TaskPushNotificationConfig,
    participantId: string
  ): Promise<TaskPushNotificationConfig> {
    const record = await visibleRecord(this.#runtime.loop.store, request.taskId, participantId);
    return this.storePrepared(await this.prepare(record.task.id, request, participantId));
  }

  /**
   * Checks a config the participant asks for on `taskId` (the url against the webhook policy, the
   * lengths, the id, the authentication scheme), gives it an id when it has none, and seals its
   * token and credentials for that task and id. Reads and writes nothing; the caller has checked
   * that the participant may use the task (or is creating it). A request naming another task is
   * refused. Throws `A2aError('InvalidParams')` for anything refused.
   */
  async prepare(
    taskId: string,
    request: TaskPushNotificationConfig,
    participantId: string
  ): Promise<PreparedPushConfig> {
    const { loop, sealer, webhookPolicy } = this.#runtime;
    if (request.taskId !== '' && request.taskId !== taskId) {
      throw invalid('the push config names another task');
    }
    if (request.url.length > PUSH_CONFIG_LIMITS.urlLength) throw invalid('the url is too long');
    checkWebhookUrl(request.url, webhookPolicy);
    const clientId = request.id === '' ? loop.ids.next('push') : checkConfigId(request.id);
    const clear: PushConfig = {
      taskId,
      id: storedIdOf(participantId, clientId),
      ownerId: participantId,
      // Stored as given (it round-trips); delivery parses it again and checks the address it dials.
      url: request.url,
      token: checkToken(request.token),
      authentication: checkAuthentication(request.authentication),
    };
    return { stored: await sealPushSecrets(sealer, clear), answer: toWire(clear) };
  }

  /** The participant's configs on the task, by the ids the participant gave them. */
  async #owned(taskId: string, participantId: string): Promise<PushConfig[]> {
    const configs = await this.#runtime.pushConfigs.list(taskId);
    return configs
      .filter((config) => config.ownerId === participantId)
      .sort((a, b) => (clientIdOf(a) < clientIdOf(b) ? -1 : clientIdOf(a) > clientIdOf(b) ? 1 : 0));
  }

  /** Stores a prepared config (`admit` says whether it may be). Returns the client's answer. */
  async storePrepared(prepared: PreparedPushConfig): Promise<TaskPushNotificationConfig> {
    const { pushConfigs } = this.#runtime;
    const stored = await this.admit(prepared);
    await pushConfigs.put(stored);
    // One stored before ids were owned goes, now that its owner's new one has taken its place.
    const legacy = (await this.#owned(stored.taskId, stored.ownerId)).find(
      (config) => clientIdOf(config) === clientIdOf(stored) && config.id !== stored.id
    );
    if (legacy !== undefined) await pushConfigs.delete(stored.taskId, legacy.id);
    return prepared.answer;
  }

  /**
   * The config to store, if the task's stored configs allow it: the participant's own config of
   * that id is replaced; refused when the participant already has the most configs on the task
   * (a replacement is not one more). Another participant's config of the same id is neither seen
   * nor touched. Writes nothing: SendMessage commits an inline config with the message, so a
   * refused message leaves none behind.
   */
  async admit(prepared: PreparedPushConfig): Promise<PushConfig> {
    const { taskId, ownerId } = prepared.stored;
    const owned = await this.#owned(taskId, ownerId);
    const replaced = owned.some((config) => clientIdOf(config) === clientIdOf(prepared.stored));
    if (!replaced && owned.length >= PUSH_CONFIG_LIMITS.perParticipant) {
      throw invalid(
        `a participant has at most ${PUSH_CONFIG_LIMITS.perParticipant} push configs on a task`
      );
    }
    return prepared.stored;
  }

  /** The participant's config of that id, or undefined. */
  async #find(taskId: string, clientId: string, participantId: string) {
    return (await this.#owned(taskId, participantId)).find(
      (config) => clientIdOf(config) === clientId
    );
  }

  async get(
    taskId: string,
    configId: string,
    participantId: string
  ): Promise<TaskPushNotificationConfig> {
    checkConfigId(configId);
    await visibleRecord(this.#runtime.loop.store, taskId, participantId);
    const config = await this.#find(taskId, configId, participantId);
    // §5.4 has no error of its own for a missing config: the SDK and we answer TaskNotFound.
    if (config === undefined) throw new A2aError('TaskNotFound', 'push config not found');
    return toWire(await openPushSecrets(this.#runtime.sealer, config));
  }

  /** The caller's configs on the task, by id; `pageSize` 0 (unset) means all of them. */
  async list(
    request: ListTaskPushNotificationConfigsRequest,
    participantId: string
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const { pageSize, pageToken } = request;
    if (!Number.isSafeInteger(pageSize) || pageSize < 0) {
      throw invalid('pageSize must be a non-negative integer');
    }
    const after = pageToken === '' ? undefined : decodeToken(pageToken);
    await visibleRecord(this.#runtime.loop.store, request.taskId, participantId);
    const owned = await this.#owned(request.taskId, participantId);
    const rest = after === undefined ? owned : owned.filter((config) => clientIdOf(config) > after);
    const page = pageSize === 0 ? rest : rest.slice(0, pageSize);
    const last = page.at(-1);
    const opened = await Promise.all(
      page.map((config) => openPushSecrets(this.#runtime.sealer, config))
    );
    return {
      configs: opened.map(toWire),
      nextPageToken:
        rest.length > page.length && last !== undefined ? encodeToken(clientIdOf(last)) : '',
    };
  }

  /** Idempotent (§3.1.10): deleting a config that is not there (for the caller) succeeds. */
  async delete(taskId: string, configId: string, participantId: string): Promise<void> {
    const { loop, pushConfigs } = this.#runtime;
    // An id no config can have is a malformed request, not a config that is already gone.
    checkConfigId(configId);
    await visibleRecord(loop.store, taskId, participantId);
    const config = await this.#find(taskId, configId, participantId);
    if (config !== undefined) await pushConfigs.delete(taskId, config.id);
  }
}
