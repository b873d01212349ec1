import { createLogger } from '../adapters/system/logger.js';
import type { Logger } from '../core/ports/logger.js';
import { configuredSecrets, type RuntimeConfig } from './runtime-config.js';

/** The logger of a configuration: its level, the agent in every line, its secrets masked. */
export const loggerOf = (config: RuntimeConfig): Logger =>
  createLogger({
    level: config.TINY_HARNESS_LOG_LEVEL,
    fields: { agentId: config.TINY_HARNESS_AGENT_ID },
    secrets: configuredSecrets(config),
  });
