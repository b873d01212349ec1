import type { Model, ModelRequest, ModelResponse } from '../../core/ports/model.js';

/**
 * A model built on first use: the provider's API key is read from Secrets Manager once per cold
 * start, when the first model call needs it, not at import (handlers that never call the model
 * never read the secret). A failed build is retried on the next call.
 */
export class LazyModel implements Model {
  readonly #build: () => Promise<Model>;
  #model: Promise<Model> | undefined;

  constructor(build: () => Promise<Model>) {
    this.#build = build;
  }

  async invoke(request: ModelRequest): Promise<ModelResponse> {
    this.#model ??= this.#build().catch((error: unknown) => {
      this.#model = undefined;
      throw error;
    });
    return (await this.#model).invoke(request);
  }
}
