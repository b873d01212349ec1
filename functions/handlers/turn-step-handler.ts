import middy from '@middy/core';
import * as z from 'zod';
import { asStepError } from '../adapters/aws/transient-error.js';
import { executionName } from '../adapters/stepfunctions/turn-executions.js';
import { NO_TURN_METRICS, type TurnMetrics } from '../adapters/system/turn-metrics.js';
import { inStepSpan } from '../adapters/tracing/step-span.js';
import { flushTraces, NO_TRACING } from '../adapters/tracing/tracing.js';
import type { LoopRuntime as Runtime } from '../composition/loop-runtime.js';
import { executeTool } from '../core/loop/execute-tool.js';
import { failTask } from '../core/loop/fail-task.js';
import { park } from '../core/loop/park.js';
import { priceOf } from '../core/loop/prices.js';
import { renew } from '../core/loop/renew.js';
import { ParkRouteSchema, ToolCallRefSchema, TurnRefSchema } from '../core/loop/route.schema.js';
import { takeTurn } from '../core/loop/take-turn.js';
import { costOf } from '../core/loop/usage.js';
import { errorFields } from '../core/ports/logger.js';
import type { Model } from '../core/ports/model.js';
import { SubStateSchema } from '../core/task/extension.schema.js';
import { failureReason } from './step-failure.js';

/** What a Task state of the turn state machine sends: an operation and references only. */
export const TurnStepEventSchema = z.discriminatedUnion('op', [
  /** One turn: the inbox folded, the model called, a turn without tool calls ended. */
  z.strictObject({ op: z.literal('turn'), ref: TurnRefSchema }),
  z.strictObject({ op: z.literal('execute_tool'), call: ToolCallRefSchema }),
  z.strictObject({
    op: z.literal('park'),
    ref: TurnRefSchema,
    subState: SubStateSchema.nullable(),
    /** The route that parks (absent in a state entered by an earlier build). */
    route: ParkRouteSchema.optional(),
    token: z.string().min(1),
  }),
  z.strictObject({ op: z.literal('renew'), ref: TurnRefSchema }),
  z.strictObject({
    op: z.literal('fail'),
    ref: TurnRefSchema,
    error: z.object({ Error: z.string().optional(), Cause: z.string().optional() }),
  }),
]);
export type TurnStepEvent = z.infer<typeof TurnStepEventSchema>;

export { failureReason };

/** One core operation per state; the state machine routes on the result. */
export const runTurnStep = async (runtime: Runtime, event: TurnStepEvent): Promise<unknown> => {
  const { loop, executions } = runtime;
  switch (event.op) {
    case 'turn':
      return takeTurn(loop, event.ref);
    case 'execute_tool':
      await executeTool(loop, event.call);
      return {};
    case 'park': {
      const { wakeNow } = await park(loop, event.ref, event.token, event.route?.decidedOn);
      if (wakeNow) await executions.resume(event.token);
      return { wakeNow };
    }
    case 'renew': {
      const next = await renew(loop, event.ref);
      await executions.start(next);
      return { ref: next, route: { next: 'superseded' } };
    }
    case 'fail':
      return failTask(loop, event.ref, failureReason(event.error));
  }
};

/**
 * The model as one invocation sees it: each call that reaches the provider is reported (tokens
 * and cost) as soon as it answers. A retried step that reuses a recorded response calls nothing,
 * so nothing is counted twice; a call repeated after a failed commit was paid twice, and counts so.
 */
const metered = (runtime: Runtime, metrics: TurnMetrics): Runtime => {
  const { model, config } = runtime.loop;
  const meteredModel: Model = {
    invoke: async (request) => {
      const response = await model.invoke(request);
      const price = priceOf(config.prices, response.model, request.model);
      metrics.modelCall({ usage: response.usage, costUsd: costOf(response.usage, price) });
      return response;
    },
  };
  return { ...runtime, loop: { ...runtime.loop, model: meteredModel } };
};

const refOf = (event: TurnStepEvent) => (event.op === 'execute_tool' ? event.call.ref : event.ref);

export const createTurnStepHandler = (
  /** The runtime a step needs (its MCP servers connected only for the steps that use them). */
  runtimeOf: (op: TurnStepEvent['op']) => Runtime | Promise<Runtime>,
  metrics: (runtime: Runtime) => TurnMetrics = () => NO_TURN_METRICS
) =>
  middy(async (raw: unknown) => {
    const event = TurnStepEventSchema.parse(raw);
    const runtime = await runtimeOf(event.op);
    const { logger } = runtime;
    const ref = refOf(event);
    const log = logger.child({
      taskId: ref.taskId,
      execution: executionName(ref.taskId, ref.generation),
      turn: ref.turn,
      op: event.op,
    });
    const tracing = runtime.tracing ?? NO_TRACING;
    const step = {
      op: event.op,
      ref,
      callId: event.op === 'execute_tool' ? event.call.callId : undefined,
    };
    try {
      const stepRuntime = event.op === 'turn' ? metered(runtime, metrics(runtime)) : runtime;
      const result = await inStepSpan(
        tracing,
        step,
        (taskId) => runtime.loop.store.get(taskId),
        () => runTurnStep(stepRuntime, event)
      );
      log.info('turn step done', { route: (result as { route?: { next?: string } }).route?.next });
      return result;
    } catch (error) {
      log.error('turn step failed', errorFields(error));
      // A throttled or failing AWS call is thrown under the name the state machine retries.
      throw asStepError(error);
    } finally {
      await flushTraces(tracing, log);
    }
  });
