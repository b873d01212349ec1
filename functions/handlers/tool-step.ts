import { lambdaToolStepRuntime } from '../composition/lambda/tool-step.js';
import { createTurnStepHandler } from './turn-step-handler.js';

/** The tool step function: the turn state machine's "Execute Tool Call", one call a step. */
export const handler = createTurnStepHandler(lambdaToolStepRuntime);
