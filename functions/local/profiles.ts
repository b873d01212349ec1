/**
 * `npm start -- --profile <name>`: a named set of defaults for the runtime's environment (each one
 * an ordinary, documented variable, and any set explicitly wins). A profile changes what the agent
 * does and how the local endpoint throttles, never the A2A layer.
 */
export const PROFILES = {
  /**
   * The agent the A2A conformance kit expects (docs/a2a/conformance.md): the conformance model,
   * client tasks worked to their end (completed, or parked with a question), a local throttle
   * loose enough for the kit's bursts of requests, a stream cap it does not reach (it calls as
   * one caller, and holds more than the default four streams at once), and webhooks on loopback
   * (where the kit's receiver listens).
   */
  conformance: {
    TINY_HARNESS_MODEL_PROVIDER: 'conformance',
    TINY_HARNESS_TASK_LIFECYCLE: 'delegated',
    TINY_HARNESS_ALLOW_LOOPBACK_WEBHOOKS: 'true',
    TINY_HARNESS_THROTTLE_PER_MINUTE: '6000',
    TINY_HARNESS_THROTTLE_BURST: '1000',
    TINY_HARNESS_STREAMS_PER_CALLER: '1000',
  },
} as const satisfies Record<string, Record<string, string>>;

export type ProfileName = keyof typeof PROFILES;

/** The profile `--profile name` (or `--profile=name`) names; undefined when none. */
export const profileOf = (argv: readonly string[]): ProfileName | undefined => {
  const index = argv.findIndex((arg) => arg === '--profile' || arg.startsWith('--profile='));
  if (index === -1) return undefined;
  const arg = argv[index] ?? '';
  const name = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[index + 1];
  if (name === undefined || !Object.hasOwn(PROFILES, name)) {
    throw new Error(
      `unknown profile ${name === undefined ? '(none given)' : `"${name}"`}: the profiles are ${Object.keys(PROFILES).join(', ')}`
    );
  }
  return name as ProfileName;
};

/** The environment with the profile's defaults under what is already set. */
export const withProfile = (
  env: Record<string, string | undefined>,
  profile: ProfileName | undefined
): Record<string, string | undefined> =>
  profile === undefined ? env : { ...PROFILES[profile], ...definedOnly(env) };

const definedOnly = (env: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));
