/**
 * Tool names as each provider accepts them. OpenAI, Anthropic and Bedrock all take
 * `[A-Za-z0-9_-]{1,64}`; a registry name outside that (a dotted plugin tool, a long name) is
 * encoded per request and decoded on the way back, so the model never sees a name it cannot
 * echo and the harness never runs a name it did not offer.
 */
const ALLOWED = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_LENGTH = 64;

const hash = (text: string): string => {
  // FNV-1a, 32 bits: a short, stable suffix that keeps two long names apart.
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    value ^= text.charCodeAt(index);
    value = Math.imul(value, 0x01000193) >>> 0;
  }
  return value.toString(36);
};

export const encodeToolName = (name: string): string => {
  if (ALLOWED.test(name)) return name;
  const cleaned = name.replace(/[^A-Za-z0-9_-]/g, '_');
  const suffix = `_${hash(name)}`;
  return `${cleaned.slice(0, MAX_LENGTH - suffix.length)}${suffix}`;
};

/** The encoding for one request: both directions, built from the names offered. */
export class ToolNameCodec {
  readonly #toProvider = new Map<string, string>();
  readonly #fromProvider = new Map<string, string>();

  constructor(names: readonly string[]) {
    for (const name of names) {
      const encoded = encodeToolName(name);
      const clash = this.#fromProvider.get(encoded);
      if (clash !== undefined && clash !== name) {
        throw new Error(`tool names ${clash} and ${name} encode to the same provider name`);
      }
      this.#toProvider.set(name, encoded);
      this.#fromProvider.set(encoded, name);
    }
  }

  encode(name: string): string {
    return this.#toProvider.get(name) ?? encodeToolName(name);
  }

  /** A name the model made up stays as it is: the validating invoker answers `tool.not_found`. */
  decode(providerName: string): string {
    return this.#fromProvider.get(providerName) ?? providerName;
  }
}
