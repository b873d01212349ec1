import { createHash } from 'node:crypto';
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
 * The id of the child a brief creates: a UUID (version 8, RFC 9562) made from the parent and the
 * brief's message id, so a retried creation names the same child and finds it created, without a
 * write to reserve the id.
 */
export const childTaskId = (parentId: string, messageId: string): string => {
  const hex = createHash('sha256').update(`${parentId}\u0000${messageId}`).digest('hex');
  const variant = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

/**
 * Children on this harness: each is an A2A task created from its brief, as SendMessage would,
 * then its own execution is started. The child's id comes from the brief (`childTaskId`), so a
 * retried creation finds the same child. Remote agents arrive with the sub-task issue; none is
 * registered yet.
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
    const taskId = childTaskId(request.parentTaskId, message.messageId);
    const sender = message.metadata?.participant_id;
    const { record } = await startTask(deps, {
      message,
      sender: typeof sender === 'string' ? sender : deps.config.agentId,
      settings: request.inherited,
      relations: { parentTaskId: request.parentTaskId, participants: request.participants },
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
