/**
 * Masks secrets in inbound text before it reaches hooks, the inbox, the transcript or a log line.
 * People paste keys into chats; once a key is in the history it is replayed to the model on every
 * turn and kept for the task's lifetime, so it is masked at the door instead.
 *
 * Pure (no I/O): a false negative leaks a key, a false positive garbles a message, so each
 * pattern needs a prefix no ordinary word has, or a shape (length, a digit) words lack.
 */

import type { Message } from '@a2a-js/sdk';

export const REDACTED = '[redacted]';

/**
 * Configured secrets shorter than this are not masked: a two-letter "secret" would mask every
 * occurrence of those letters in every message.
 */
export const MIN_CONFIGURED_SECRET_LENGTH = 8;

/** Not preceded by a letter or digit: `xsk-…` is not a key, `KEY=sk-…` and `"sk-…` are. */
const START = '(?<![A-Za-z0-9])';
/** Not followed by one: the match takes the whole run, so no tail of a key survives. */
const END = '(?![A-Za-z0-9])';

/** A bearer credential rather than a word: long, or with a digit or a token symbol. */
const looksLikeToken = (token: string, trailingDots = 0): boolean =>
  token.length + trailingDots >= 20 || (token.length >= 8 && /[0-9._~+/=]/.test(token));

/** `replace` gets the match and its capture groups, as `String.prototype.replace` passes them. */
type Rule = { pattern: RegExp; replace: (match: string, ...groups: string[]) => string };

const RULES: readonly Rule[] = [
  {
    // OpenAI (`sk-…`, `sk-proj-…`) and Anthropic (`sk-ant-api03-…`) keys. The 20-character body
    // keeps ordinary hyphenated words out ("sk-learn").
    pattern: new RegExp(`${START}sk-[A-Za-z0-9_-]{20,}`, 'g'),
    replace: () => REDACTED,
  },
  {
    // GitHub personal, OAuth, user-to-server, server-to-server and refresh tokens.
    pattern: new RegExp(`${START}gh[pousr]_[A-Za-z0-9]{20,}${END}`, 'g'),
    replace: () => REDACTED,
  },
  {
    // GitHub fine-grained personal access tokens.
    pattern: new RegExp(`${START}github_pat_[A-Za-z0-9_]{20,}`, 'g'),
    replace: () => REDACTED,
  },
  {
    // AWS access key ids: long-term (AKIA) and temporary (ASIA), 16 more upper-case letters or digits.
    pattern: new RegExp(`${START}(?:AKIA|ASIA)[A-Z0-9]{16}${END}`, 'g'),
    replace: () => REDACTED,
  },
  {
    // A secret access key has no prefix of its own; its name next to it is the signal, in
    // shell, ini, YAML and JSON spellings. The name stays, the value goes.
    pattern:
      /(?<![A-Za-z0-9])((?:aws[_-]?)?secret[_-]?access[_-]?key["']?\s*[:=]\s*["']?)[^\s"',;]+/gi,
    replace: (_match, name) => `${name}${REDACTED}`,
  },
  {
    // `Bearer <token>` (RFC 6750 b64token). "the bearer of bad news" must survive, so the token
    // must look like one: 20 characters or more, or 8 or more with a digit or a token symbol.
    // A trailing "." ends the sentence, not the token (no JWT ends in one). The scheme is a
    // lookbehind, so a word left alone is not consumed: "bearer Bearer <token>" still masks.
    pattern: /(?<=(?<![A-Za-z0-9])bearer\s+)[A-Za-z0-9\-._~+/]*[A-Za-z0-9\-_~+/]=*(?=(\.*))/gi,
    // The dots after it still count towards its length: they may be the token's own.
    replace: (token, dots) => (looksLikeToken(token, dots!.length) ? REDACTED : token),
  },
];

const maskConfigured = (text: string, secrets: readonly string[]): string =>
  [...new Set(secrets)]
    .filter((secret) => secret.length >= MIN_CONFIGURED_SECRET_LENGTH)
    // Longest first: a secret that contains another is masked whole, not around the shorter one.
    .sort((a, b) => b.length - a.length)
    .reduce((masked, secret) => masked.split(secret).join(REDACTED), text);

/**
 * `text` with every recognised secret replaced by `[redacted]`: bearer tokens, OpenAI and
 * Anthropic keys, AWS access key ids and secret access keys, GitHub tokens, and each of
 * `extraSecrets` (the deployment's own: configured bearer tokens, provider keys) verbatim.
 */
export const redactSecrets = (text: string, extraSecrets: readonly string[] = []): string => {
  let masked = maskConfigured(text, extraSecrets);
  for (const rule of RULES) masked = masked.replace(rule.pattern, rule.replace);
  return masked;
};

type JsonContainer = Record<string, unknown> | unknown[];

const isContainer = (value: unknown): value is JsonContainer =>
  typeof value === 'object' && value !== null;

/** A key as its own data property: `__proto__` from JSON.parse is a key like any other. */
const put = (target: JsonContainer, key: string | number, value: unknown) =>
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });

/**
 * Every string in a JSON value redacted (keys are names, not content: they stay). Copied with a
 * stack of its own rather than by recursion: a data part nested a few thousand levels deep would
 * otherwise overflow the call stack, and the request with it, however deep the edge lets JSON be.
 */
const redactJson = (value: unknown, extraSecrets: readonly string[]): unknown => {
  const shallow = (item: unknown): unknown => {
    if (typeof item === 'string') return redactSecrets(item, extraSecrets);
    if (Array.isArray(item)) return new Array<unknown>(item.length);
    return isContainer(item) ? {} : item;
  };
  const root = shallow(value);
  const pending: Array<[source: JsonContainer, target: JsonContainer]> = [];
  if (isContainer(value) && isContainer(root)) pending.push([value, root]);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [source, target] = next;
    for (const [key, item] of Object.entries(source)) {
      const copy = shallow(item);
      put(target, Array.isArray(target) ? Number(key) : key, copy);
      if (isContainer(item) && isContainer(copy)) pending.push([item, copy]);
    }
  }
  return root;
};

/**
 * The message with its text redacted, for intake (the service calls it before
 * `startTask`/`receiveMessage`, so the inbox, the transcript, the task record and the hooks never
 * see a secret): text parts, and every string of a data part, so a task envelope's name, goal,
 * description and acceptance criteria (or a plan step, a reason) are masked as the words of a
 * message are. A masked string is still a string: an envelope keeps its shape and is validated
 * as it would have been. File parts are not text: they pass as they are. The message is not
 * mutated.
 */
export const redactMessage = (message: Message, extraSecrets: readonly string[] = []): Message => ({
  ...message,
  parts: message.parts.map((part) => {
    if (part.content?.$case === 'text') {
      return {
        ...part,
        content: { $case: 'text', value: redactSecrets(part.content.value, extraSecrets) },
      };
    }
    if (part.content?.$case === 'data') {
      return {
        ...part,
        content: { $case: 'data', value: redactJson(part.content.value, extraSecrets) },
      };
    }
    return part;
  }),
});
