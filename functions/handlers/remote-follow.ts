import middy from '@middy/core';
import * as z from 'zod';
import { asStepError } from '../adapters/aws/transient-error.js';
import { followExecutionName } from '../adapters/stepfunctions/remote-follow-executions.js';
import { lambdaRemoteRuntime as lambdaRuntime } from '../composition/lambda/remote.js';
import type { LoopRuntime as Runtime } from '../composition/loop-runtime.js';
import { errorFields } from '../core/ports/logger.js';
import { failRemoteChild, followRemoteChild } from '../service/remote-children.js';
import { failureReason } from './step-failure.js';

const LinkId = z.string().regex(/^[0-9a-f]{32}$/);

/** What a state of the follow state machine sends: the follower's state, or its failure. */
export const FollowStepEventSchema = z.union([
  z.object({
    op: z.literal('follow').default('follow'),
    parentId: z.string().min(1),
    linkId: LinkId,
    run: z.union([z.int().min(1), z.literal('cancel')]),
    steps: z.int().min(0),
  }),
  z.object({
    op: z.literal('fail'),
    parentId: z.string().min(1),
    linkId: LinkId,
    error: z.object({ Error: z.string().optional(), Cause: z.string().optional() }),
  }),
]);

/**
 * The stand-in of a child on a remote agent: each step of its follow execution (deliver, cancel,
 * poll; then how long to wait), and the step that fails the child when following it failed for
 * good. A transient AWS failure is thrown under the name the state machine retries.
 */
export const createRemoteFollowHandler = (runtime: () => Runtime) =>
  middy(async (raw: unknown) => {
    const event = FollowStepEventSchema.parse(raw);
    const ref = { parentId: event.parentId, linkId: event.linkId };
    const log = runtime().logger.child({
      taskId: event.parentId,
      execution: followExecutionName(ref, event.op === 'follow' ? event.run : 1),
      op: event.op,
    });
    try {
      if (event.op === 'fail') {
        const reason = failureReason(event.error);
        await failRemoteChild(runtime(), ref, reason);
        log.warn('remote child failed: its stand-in failed', { reason });
        return { done: true };
      }
      const outcome = await followRemoteChild(runtime(), event);
      log.info('remote child followed', { done: outcome.done, waitSeconds: outcome.waitSeconds });
      return outcome;
    } catch (error) {
      log.error('remote child not followed', errorFields(error));
      throw asStepError(error);
    }
  });

export const handler = createRemoteFollowHandler(lambdaRuntime);
