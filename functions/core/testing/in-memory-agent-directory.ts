import { TaskState } from '@a2a-js/sdk';
import type {
  AgentDirectory,
  ChildCreated,
  ChildRequest,
  RegisteredAgent,
} from '../ports/agent-directory.js';

/** Creates a child on this harness (the composition wires it to `startTask`). */
export type SelfTaskStarter = (request: ChildRequest) => Promise<ChildCreated>;

/**
 * Children in memory: on self they go to the starter the test wires in; a remote agent answers
 * with a new task id in SUBMITTED. Idempotent on the brief's message id, as the port requires.
 */
export class InMemoryAgentDirectory implements AgentDirectory {
  readonly requests: ChildRequest[] = [];
  readonly #remote: RegisteredAgent[];
  readonly #created = new Map<string, ChildCreated>();
  #startOnSelf: SelfTaskStarter | undefined;
  #remoteCount = 0;

  constructor(remote: readonly RegisteredAgent[] = []) {
    this.#remote = [...remote];
  }

  bindSelf(starter: SelfTaskStarter): this {
    this.#startOnSelf = starter;
    return this;
  }

  agents(): readonly RegisteredAgent[] {
    return this.#remote;
  }

  async createChild(request: ChildRequest): Promise<ChildCreated> {
    const known = this.#created.get(request.message.messageId);
    if (known !== undefined) return known;
    this.requests.push(request);
    let created: ChildCreated;
    if (request.agent === null) {
      if (this.#startOnSelf === undefined) throw new Error('no starter bound for children on self');
      created = await this.#startOnSelf(request);
    } else {
      this.#remoteCount += 1;
      created = {
        taskId: `${request.agent}-task-${this.#remoteCount}`,
        state: TaskState.TASK_STATE_SUBMITTED,
        subState: undefined,
      };
    }
    this.#created.set(request.message.messageId, created);
    return created;
  }
}
