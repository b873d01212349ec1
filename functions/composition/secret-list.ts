/**
 * One list of secrets per configuration, which grows: the logger and the A2A service are built
 * with it at start, and a secret read from Secrets Manager later (a model's key, a remote agent's
 * or an MCP server's token or client secret) is added as it is read, so it is masked from then
 * on. Keyed by the configuration object: one per cold start, and a test's own.
 */
const lists = new WeakMap<object, { secrets: string[]; seeded: boolean }>();

const entryOf = (config: object) => {
  let entry = lists.get(config);
  if (entry === undefined) {
    entry = { secrets: [], seeded: false };
    lists.set(config, entry);
  }
  return entry;
};

/** The configuration's list, holding `configured` (the secrets known at start) from its first use. */
export const secretListOf = (config: object, configured: () => string[]): readonly string[] => {
  const entry = entryOf(config);
  if (!entry.seeded) {
    entry.secrets.unshift(...configured().filter((secret) => !entry.secrets.includes(secret)));
    entry.seeded = true;
  }
  return entry.secrets;
};

/** Adds a secret just read to the configuration's list, before anyone uses it. */
export const rememberSecret = (config: object, secret: string): void => {
  const { secrets } = entryOf(config);
  if (!secrets.includes(secret)) secrets.push(secret);
};
