/**
 * The local Step Functions service: what a composition root needs to run the synthesized state
 * machines in-process and to serve the handlers' `@aws-sdk/client-sfn` calls.
 *
 * @example
 * const engine = new LocalStepFunctions({ store: new FileCheckpointStore('.local/executions') });
 * for (const machine of extractStateMachines(template)) {
 *   const taskHandlers = Object.fromEntries(
 *     listTaskStates(machine.definition).map((task) => [
 *       task.stateName,
 *       handlerFor(machine.lambdaRefs[task.functionName ?? '']), // Lambda logical id → handler
 *     ])
 *   );
 *   engine.createStateMachine({ name: machine.logicalId, definition: machine.definition, taskHandlers });
 * }
 * await engine.rehydrate(); // the previous run's executions resume: parked ones on their tokens
 * const sfn = await startSfnHttpFacade(engine); // new SFNClient({ endpoint: sfn.endpoint, ... })
 */
export {
  type ExtractedStateMachine,
  type ExtractOptions,
  extractStateMachines,
} from './asl-extractor.js';
export { listTaskStates, type TaskKind, type TaskStateInfo } from './asl-walk.js';
export type { CloudFormationTemplate, LocalAccount } from './cfn-intrinsics.js';
export {
  type CreateStateMachineInput,
  LocalStepFunctions,
  type LocalStepFunctionsOptions,
  type RehydrateResult,
} from './engine.js';
export { FileCheckpointStore } from './file-checkpoint-store.js';
export { isSfnServiceError, type SfnErrorName, SfnServiceError } from './sfn-errors.js';
export {
  type SfnHttpFacade,
  type SfnHttpFacadeOptions,
  startSfnHttpFacade,
} from './sfn-http-facade.js';
export { type ParkOptions, TokenRegistry } from './token-registry.js';
export type {
  CheckpointStore,
  ExecutionCheckpoint,
  ExecutionStatus,
  TaskHandler,
  TaskHandlerContext,
} from './types.js';
