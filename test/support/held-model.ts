import type { Model, ModelRequest, ModelResponse } from '../../functions/core/ports/model.js';

/** A model whose every answer waits until the test releases it: a call "in flight". */
export class HeldModel implements Model {
  readonly requests: ModelRequest[] = [];
  #release: ((response: ModelResponse) => void) | undefined;
  #called: (() => void) | undefined;
  readonly called = new Promise<void>((resolve) => {
    this.#called = resolve;
  });

  invoke(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    this.#called?.();
    return new Promise((resolve) => {
      this.#release = resolve;
    });
  }

  answer(response: Partial<ModelResponse>): void {
    this.#release?.({
      text: '',
      toolCalls: [],
      usage: { inputTokens: 100, cachedInputTokens: 0, outputTokens: 10 },
      model: 'held',
      finishReason: 'stop',
      ...response,
    });
  }
}
