import type { Model, ModelRequest, ModelResponse } from '../../functions/core/ports/model.js';
import { scripted } from '../../functions/core/testing/scripted-model.js';

/**
 * The local stack takes one model for its lifetime; each part of the benchmark plays its own
 * through this one.
 */
export class SwitchModel implements Model {
  current: Model;

  constructor(initial: Model) {
    this.current = initial;
  }

  invoke(request: ModelRequest): Promise<ModelResponse> {
    return this.current.invoke(request);
  }
}

/** Records when each call started (performance.now()), in order: the turns' start times. */
export class TimedModel implements Model {
  readonly started: number[] = [];
  readonly #inner: Model;

  constructor(inner: Model) {
    this.#inner = inner;
  }

  invoke(request: ModelRequest): Promise<ModelResponse> {
    this.started.push(performance.now());
    return this.#inner.invoke(request);
  }
}

const DELEGATED = 'lifecycle: delegated';

/** The context message of the request (the first input item), where the task's state is. */
const contextOf = (request: ModelRequest): string => {
  const first = request.input[0];
  return first?.type === 'message' ? first.text : '';
};

interface Gate {
  open: () => void;
  opened: Promise<void>;
}

const gate = (): Gate => {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((done) => {
    open = done;
  });
  return { open: () => open(), opened };
};

/**
 * Parents that delegate one child each, and the children: it answers from what each request
 * shows, so the order in which tasks call it does not matter. A parent spawns a sub-task, then
 * answers "waiting" (and parks) until its context shows the sub-task completed, then answers
 * "done". A child's call is held until the benchmark releases it (`release(childId)`), so the
 * child's change reaches a parent that has already parked.
 */
export class ChildPairModel implements Model {
  /** Children whose call is held, by task id. */
  readonly #held = new Map<string, Gate>();
  readonly #heldWaiters = new Set<() => void>();
  /** When each parent asked for its final answer (Date.now()), by task id. */
  readonly doneAt = new Map<string, number>();
  #calls = 0;

  async invoke(request: ModelRequest): Promise<ModelResponse> {
    const index = this.#calls++;
    const context = contextOf(request);
    if (context.includes(DELEGATED)) {
      const held = gate();
      this.#held.set(request.cacheKey, held);
      for (const waiter of this.#heldWaiters) waiter();
      await held.opened;
      return scripted({ text: 'Child done.' }, index);
    }
    const spawned = request.input.some((item) => item.type === 'tool_call');
    if (!spawned) {
      return scripted(
        { toolCalls: [{ name: 'spawn_subtask', arguments: { name: 'Child', goal: 'Help.' } }] },
        index
      );
    }
    if (!context.includes('TASK_STATE_COMPLETED')) return scripted({ text: 'Waiting.' }, index);
    this.doneAt.set(request.cacheKey, Date.now());
    return scripted({ text: 'Parent done.' }, index);
  }

  /** The id of a child whose call is held, once there is one (oldest first). */
  async heldChild(timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const first = this.#held.keys().next();
      if (!first.done) return first.value;
      if (Date.now() > deadline) throw new Error('no child called the model in time');
      await new Promise<void>((done) => {
        const waiter = () => {
          this.#heldWaiters.delete(waiter);
          done();
        };
        this.#heldWaiters.add(waiter);
        setTimeout(waiter, 50);
      });
    }
  }

  release(childId: string): void {
    this.#held.get(childId)?.open();
    this.#held.delete(childId);
  }
}

/** A model that answers every call with a line of text: a conversation as long as it is asked. */
export class AnswerEveryCall implements Model {
  #calls = 0;

  async invoke(_request: ModelRequest): Promise<ModelResponse> {
    return scripted({ text: `answer ${this.#calls + 1}` }, this.#calls++);
  }
}
