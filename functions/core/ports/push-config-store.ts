import * as z from 'zod';

/**
 * A task's push-notification config (A2A §3.1.7–3.1.10): where the task's updates are POSTed and
 * with what credentials. The service validates the URL and seals the secrets before it gets here;
 * a store keeps the strings as they are given.
 */
export const PushConfigSchema = z.strictObject({
  taskId: z.string().min(1),
  id: z.string().min(1),
  /**
   * The participant who created it, and the only one who may read, list or delete it: a config
   * holds that participant's webhook secrets, which the task's other participants must not see.
   */
  ownerId: z.string().min(1),
  url: z.string().min(1),
  /**
   * Sent back to the webhook so it can tell our calls from others'. In the store it is sealed
   * (`sealed:v1:...`, see SecretSealer, bound to `{ taskId, configId }`) or empty (no token);
   * the service seals it on the way in and opens it for its owner and for delivery.
   */
  token: z.string(),
  /** Credentials for the webhook's own scheme (e.g. Bearer); `credentials` sealed like the token. */
  authentication: z.strictObject({ scheme: z.string(), credentials: z.string() }).nullable(),
});
export type PushConfig = z.infer<typeof PushConfigSchema>;

/**
 * Push-notification configs, per task, keyed by config id. A side record of the task: it is not
 * part of the task's version, so writing one never races a turn.
 *
 * - `put` MUST store the config under `(taskId, id)`, replacing one stored with the same id, and
 *   return what is stored.
 * - `get` MUST return `undefined`, not throw, for an unknown task or config id.
 * - `list` returns the task's configs ordered by id.
 * - `delete` MUST be idempotent: deleting an absent config is not an error.
 * - Implementations MUST return copies: mutating a returned value never changes the store.
 */
export interface PushConfigStore {
  put(config: PushConfig): Promise<PushConfig>;
  get(taskId: string, configId: string): Promise<PushConfig | undefined>;
  list(taskId: string): Promise<PushConfig[]>;
  delete(taskId: string, configId: string): Promise<void>;
}
