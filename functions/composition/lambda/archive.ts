import './source-maps.js';
import type { Logger } from '../../core/ports/logger.js';
import { buildExecutionHistories, type ExecutionHistories } from '../audit.js';
import { loggerOf } from '../logger.js';
import { readRuntimeConfig } from '../runtime-config.js';

let memo: { logger: Logger; histories: ExecutionHistories } | undefined;

/** The archive function's composition root: the live and archived execution histories. */
export const lambdaArchiveRuntime = (): { logger: Logger; histories: ExecutionHistories } => {
  if (memo === undefined) {
    const config = readRuntimeConfig();
    memo = { logger: loggerOf(config), histories: buildExecutionHistories(config) };
  }
  return memo;
};
