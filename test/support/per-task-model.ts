import type { Model, ModelRequest, ModelResponse } from '../../functions/core/ports/model.js';
import { type ScriptedReply, scripted } from '../../functions/core/testing/scripted-model.js';

/**
 * A scripted model with one script per task: the first task that calls it plays the first
 * script, the second task the second, and so on (a request's cache key is its task id). A script
 * may wait on a gate before its first reply, so a test decides when a child runs.
 */
export interface TaskScript {
  replies: ScriptedReply[];
  /** Awaited before the script's first reply. */
  gate?: Promise<void>;
  /** Awaited before the reply at that index: a turn that takes as long as the test wants. */
  holds?: Record<number, Promise<void>>;
}

export class PerTaskModel implements Model {
  readonly requests: ModelRequest[] = [];
  readonly #scripts: TaskScript[];
  readonly #assigned = new Map<string, TaskScript & { next: number }>();
  #calls = 0;

  constructor(scripts: TaskScript[]) {
    this.#scripts = scripts.map((script) => ({ ...script, replies: [...script.replies] }));
  }

  async invoke(request: ModelRequest): Promise<ModelResponse> {
    let script = this.#assigned.get(request.cacheKey);
    if (script === undefined) {
      const next = this.#scripts[this.#assigned.size];
      if (next === undefined) throw new Error(`no script for a task ${this.#assigned.size + 1}`);
      script = { ...next, next: 0 };
      this.#assigned.set(request.cacheKey, script);
    }
    await script.gate;
    await script.holds?.[script.next];
    const reply = script.replies[script.next];
    if (reply === undefined) throw new Error(`the script of ${request.cacheKey} is exhausted`);
    script.next++;
    this.requests.push(request);
    return scripted(reply, this.#calls++);
  }
}
