import { startTask } from '../core/intake/start-task.js';
import type { LoopDeps } from '../core/loop/deps.js';
import type {
  AgentDirectory,
  ChildCreated,
  ChildRequest,
  RegisteredAgent,
} from '../core/ports/agent-directory.js';
import { stateOf, subStateOf } from '../core/task/a2a-task.js';
import type { TurnExecutions } from './stepfunctions/turn-executions.js';

/**
 * Children on this harness: each is an A2A task created from its brief, as SendMessage would,
 * then its own execution is started. The child's id is reserved once per brief (keyed by the
 * brief's message id under the parent), so a retried creation finds the same child. Remote
 * agents arrive with the sub-task issue; none is registered yet.
 */
export class SelfAgentDirectory implements AgentDirectory {
  readonly #deps: () => LoopDeps;
  readonly #executions: TurnExecutions;

  constructor(options: { deps: () => LoopDeps; executions: TurnExecutions }) {
    this.#deps = options.deps;
    this.#executions = options.executions;
  }

  agents(): readonly RegisteredAgent[] {
    return [];
  }

  async createChild(request: ChildRequest): Promise<ChildCreated> {
    if (request.agent !== null) throw new Error(`no remote agent ${request.agent} is registered`);
    const deps = this.#deps();
    const { message } = request;
    const parentId = message.referenceTaskIds[0];
    if (parentId === undefined) throw new Error('a child brief must reference its parent task');
    const taskId = await deps.store.putOnce(
      parentId,
      `child:${message.messageId}`,
      deps.ids.next('task')
    );
    const sender = message.metadata?.participant_id;
    const record = await startTask(deps, {
      message,
      sender: typeof sender === 'string' ? sender : deps.config.agentId,
      settings: request.inherited,
      taskId,
    });
    await this.#executions.start({
      taskId,
      generation: record.loop.generation,
      turn: record.loop.turn,
    });
    return { taskId, state: stateOf(record.task), subState: subStateOf(record.task) };
  }
}
