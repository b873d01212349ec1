import { SecretUnreadableError } from '../core/errors.js';
import type { LoggedEvent } from '../core/ports/event-log.js';
import { errorFields, type Logger } from '../core/ports/logger.js';
import type { PushConfig, PushConfigStore } from '../core/ports/push-config-store.js';
import type { SecretSealer } from '../core/ports/secret-sealer.js';
import type { TaskStore } from '../core/ports/task-store.js';
import type { WebhookResult, WebhookSender } from '../core/ports/webhook-sender.js';
import { notificationBody, notificationHeaders, recipientsOf } from '../core/push/notification.js';
import {
  attemptTimeoutMs,
  type NextStep,
  nextStep,
  PUSH_RETRY_POLICY,
  type RetryPolicy,
} from '../core/push/retry.js';
import { readExtension } from '../core/task/a2a-task.js';
import { openPushSecrets } from './push-secrets.js';

export interface PushDeliveryDeps {
  store: TaskStore;
  pushConfigs: PushConfigStore;
  sealer: SecretSealer;
  webhooks: WebhookSender;
  logger: Logger;
  policy?: RetryPolicy;
  /** Milliseconds since the epoch; and a wait. Tests run the schedule without waiting. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * One config's outcome for one event: `delivered`; `rejected` for good (the webhook refused it,
 * its address is not allowed, its secrets do not open: no retry can help, so it is logged and
 * dropped); `failed`, which a later retry of the record may deliver.
 */
export type ConfigOutcome = 'delivered' | 'rejected' | 'failed';

export interface EventDelivery {
  outcomes: Array<{ configId: string; outcome: ConfigOutcome }>;
  /** No config `failed`: the record is done with. */
  complete: boolean;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Where a webhook is, for logs: its host only (a path or query may itself be a secret). */
const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return '(not a url)';
  }
};

const resultFields = (result: WebhookResult) =>
  result.kind === 'status' ? { status: result.status } : { reason: result.reason };

/**
 * POSTs one event to one config: its secrets opened, then up to `policy.attempts` attempts with
 * exponential backoff, inside `deadline` (ms since the epoch). Logs the outcome, never the token
 * or the credentials.
 */
const deliverTo = async (
  deps: PushDeliveryDeps,
  stored: PushConfig,
  body: string,
  deadline: number,
  log: Logger
): Promise<ConfigOutcome> => {
  const policy = deps.policy ?? PUSH_RETRY_POLICY;
  const now = deps.now ?? Date.now;
  const fields = { configId: stored.id, webhookHost: hostOf(stored.url) };
  let config: PushConfig;
  try {
    config = await openPushSecrets(deps.sealer, stored);
  } catch (error) {
    const outcome = error instanceof SecretUnreadableError ? 'rejected' : 'failed';
    log.error('push config secrets do not open', { ...fields, outcome, ...errorFields(error) });
    return outcome;
  }
  const headers = notificationHeaders(config);
  let step: NextStep = { action: 'give_up', why: 'time' };
  let last: WebhookResult | undefined;
  let attempt = 0;
  for (;;) {
    const timeoutMs = attemptTimeoutMs(deadline - now(), policy);
    if (timeoutMs === undefined) break;
    attempt += 1;
    last = await deps.webhooks.post({ url: config.url, headers, body, timeoutMs });
    step = nextStep(attempt, last, deadline - now(), policy);
    if (step.action !== 'wait') break;
    await (deps.sleep ?? sleepFor)(step.delayMs);
  }
  const result = last === undefined ? {} : resultFields(last);
  if (step.action === 'done' && step.outcome === 'delivered') {
    log.info('push notification delivered', { ...fields, attempts: attempt, ...result });
    return 'delivered';
  }
  if (step.action === 'done') {
    log.warn('push notification rejected', { ...fields, attempts: attempt, ...result });
    return 'rejected';
  }
  log.warn('push notification not delivered yet', {
    ...fields,
    attempts: attempt,
    // A wait that left no time for another attempt ends the loop too.
    why: step.action === 'give_up' ? step.why : 'time',
    ...result,
  });
  return 'failed';
};

/**
 * Delivers one event of a task's log to the task's push configs (A2A §4.3): those whose creator
 * is still a participant, all at once, each with its own retries. The event's body is the same
 * for all. A task without configs costs one query. Resolves once every config has an outcome;
 * throws only when the configs or the task cannot be read.
 */
export const deliverEvent = async (
  deps: PushDeliveryDeps,
  taskId: string,
  logged: LoggedEvent,
  deadline: number
): Promise<EventDelivery> => {
  const configs = await deps.pushConfigs.list(taskId);
  if (configs.length === 0) return { outcomes: [], complete: true };
  const record = await deps.store.get(taskId);
  const log = deps.logger.child({ taskId, seq: logged.seq, event: logged.event.kind });
  if (record === undefined) {
    log.warn('push configs of a task that is not stored: nothing delivered');
    return { outcomes: [], complete: true };
  }
  const participantIds = readExtension(record.task).participants.map((p) => p.id);
  const body = notificationBody(logged.event);
  const outcomes = await Promise.all(
    recipientsOf(configs, participantIds).map(async (config) => ({
      configId: config.id,
      outcome: await deliverTo(deps, config, body, deadline, log),
    }))
  );
  return { outcomes, complete: outcomes.every(({ outcome }) => outcome !== 'failed') };
};
