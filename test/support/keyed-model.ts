import type { Model, ModelRequest, ModelResponse } from '../../functions/core/ports/model.js';
import { type ScriptedReply, scripted } from '../../functions/core/testing/scripted-model.js';

interface Script {
  replies: ScriptedReply[];
  next: number;
  /** Awaited before the reply at that index. */
  holds: Map<number, Promise<void>>;
}

/**
 * A scripted model with one script per task, chosen by a key the task's input contains (a
 * marker in its goal or first message): tests that share a stack each play their own script,
 * whatever order their tasks run in. An unknown task, or one past its script, fails loudly.
 */
export class KeyedModel implements Model {
  readonly requests: Array<{ key: string; request: ModelRequest }> = [];
  readonly #scripts = new Map<string, Script>();
  readonly #keyOfTask = new Map<string, string>();
  #calls = 0;

  script(key: string, ...replies: ScriptedReply[]): this {
    this.#scripts.set(key, { replies, next: 0, holds: new Map() });
    return this;
  }

  /** The reply at `index` of `key`'s script waits for `until`. */
  hold(key: string, index: number, until: Promise<void>): this {
    this.#scripts.get(key)?.holds.set(index, until);
    return this;
  }

  requestsOf(key: string): ModelRequest[] {
    return this.requests.filter((entry) => entry.key === key).map((entry) => entry.request);
  }

  async invoke(request: ModelRequest): Promise<ModelResponse> {
    let key = this.#keyOfTask.get(request.cacheKey);
    if (key === undefined) {
      const text = [
        request.instructions,
        ...request.input.map((item) => (item.type === 'message' ? item.text : '')),
      ].join('\n');
      key = [...this.#scripts.keys()].find((candidate) => text.includes(candidate));
      if (key === undefined) throw new Error(`no script for task ${request.cacheKey}`);
      this.#keyOfTask.set(request.cacheKey, key);
    }
    const script = this.#scripts.get(key) as Script;
    await script.holds.get(script.next);
    const reply = script.replies[script.next];
    if (reply === undefined) throw new Error(`the script ${key} is exhausted`);
    script.next++;
    this.requests.push({ key, request });
    return scripted(reply, this.#calls++);
  }
}
