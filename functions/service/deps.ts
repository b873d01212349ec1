import type { LoopDeps } from '../core/loop/deps.js';
import type { Logger } from '../core/ports/logger.js';
import type { PushConfigStore } from '../core/ports/push-config-store.js';
import type { RemoteAgents } from '../core/ports/remote-agents.js';
import type { RemoteFollowers } from '../core/ports/remote-followers.js';
import type { RemoteLinks } from '../core/ports/remote-links.js';
import type { SecretSealer } from '../core/ports/secret-sealer.js';
import type { WebhookPolicy } from '../core/push/webhook-address.js';
import type { Executions } from './executions.js';

/**
 * What the A2A service works with, declared here so the service depends on nothing outward: a
 * composition root provides it (functions/composition/runtime.ts builds one for `npm start`,
 * functions/composition/lambda/a2a.ts the A2A function's own).
 */
export interface ServiceDeps {
  loop: LoopDeps;
  executions: Executions;
  logger: Logger;
  /** Children on remote agents: cancels cascade to them, the usage tree counts them. */
  remote: { agents: RemoteAgents; links: RemoteLinks; followers: RemoteFollowers };
  /** Push-notification configs: the A2A surface's side records, not the loop's. */
  pushConfigs: PushConfigStore;
  /** Seals the configs' tokens and credentials (KMS in the cloud, AES-GCM locally). */
  sealer: SecretSealer;
  /** Which webhook addresses a push config may name. */
  webhookPolicy: WebhookPolicy;
  /** The configured secrets (bearer tokens, keys): redacted from every message taken in. */
  secrets: readonly string[];
}
