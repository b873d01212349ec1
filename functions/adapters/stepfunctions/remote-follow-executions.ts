import { ExecutionAlreadyExists, type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { RemoteFollowers } from '../../core/ports/remote-followers.js';
import type { LinkRef } from '../../core/remote/remote-link.js';

/** A follower's execution name: one per link and run (`rf-<link id>-<run>`), at most 45 characters. */
export const followExecutionName = (ref: LinkRef, run: number | 'cancel'): string =>
  `rf-${ref.linkId}-${run}`;

/**
 * The remote children's stand-ins as executions of the follow state machine: one per child,
 * named by its link, so a start repeated (a retried creation, a second cancel) is a no-op.
 */
export class RemoteFollowExecutions implements RemoteFollowers {
  readonly #client: SFNClient;
  readonly #stateMachineArn: string | undefined;

  constructor(options: { client: SFNClient; stateMachineArn: string | undefined }) {
    this.#client = options.client;
    this.#stateMachineArn = options.stateMachineArn;
  }

  async start(ref: LinkRef, run: number | 'cancel'): Promise<void> {
    if (this.#stateMachineArn === undefined) {
      throw new Error(
        'a remote child needs the follow state machine: TINY_HARNESS_FOLLOW_STATE_MACHINE_ARN is not set'
      );
    }
    try {
      await this.#client.send(
        new StartExecutionCommand({
          stateMachineArn: this.#stateMachineArn,
          name: followExecutionName(ref, run),
          input: JSON.stringify({ parentId: ref.parentId, linkId: ref.linkId, run, steps: 0 }),
        })
      );
    } catch (error) {
      // The same follower asked for twice: the first one is it.
      if (!(error instanceof ExecutionAlreadyExists)) throw error;
    }
  }
}
