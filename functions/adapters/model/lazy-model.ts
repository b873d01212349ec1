import type { Model, ModelRequest, ModelResponse } from '../../core/ports/model.js';

/**
 * A model built on first use: the provider's adapter (and its SDK) is loaded, and its API key
 * read from Secrets Manager, when the first model call needs it, not at import (a turn step that
 * drains or parks never pays for them). A failed build is retried on the next call.
 */
export class LazyModel implements Model {
  readonly #build: () => Promise<Model>;
  #model: Promise<Model> | undefined;

  constructor(build: () => Promise<Model>) {
    this.#build = build;
  }

  /** The built model, building it now if no call has yet. */
  model(): Promise<Model> {
    this.#model ??= this.#build().catch((error: unknown) => {
      this.#model = undefined;
      throw error;
    });
    return this.#model;
  }

  async invoke(request: ModelRequest): Promise<ModelResponse> {
    return (await this.model()).invoke(request);
  }
}
