/**
 * `npm start`'s flags and the variables it reads, checked before anything starts: a bad value
 * is refused in one line naming the flag or the variable, not ten seconds later by the JVM or
 * as a Node RangeError.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readRuntimeConfig } from '../composition/runtime-config.js';
import { DEFAULT_DATA_DIR } from './endpoint-file.js';
import { type ProfileName, profileOf } from './profiles.js';

export const START_HELP = `Usage: npm start [-- options]

Runs tiny-harness on this machine: DynamoDB Local, the state machine, the A2A endpoint.
Then, in another terminal: npx tiny-harness chat

Options (after \`--\`: npm keeps flags before it for itself):
  --port <n>         the A2A endpoint's port on 127.0.0.1 (TINY_HARNESS_PORT, default 8080; 0 picks a free one)
  --data-dir <dir>   where tables, parked executions and the endpoint file live
                     (TINY_HARNESS_DATA_DIR, default ${DEFAULT_DATA_DIR})
  --in-memory        keep no tasks: everything is gone on exit
  --new-token        replace the bearer token kept in the data directory with a new one
                     (TINY_HARNESS_BEARER_TOKENS unset; the old one stops working)
  --profile <name>   a named set of defaults: \`conformance\` plays the agent the A2A conformance
                     kit expects (docs/a2a/conformance.md); a variable you set yourself wins
  -h, --help         this text

\`npm start --in-memory\` (without \`--\`) works too: npm passes it on as npm_config_in_memory.
Every runtime variable of docs/configuration.md applies (TINY_HARNESS_MODEL_PROVIDER, ...).`;

export interface StartOptions {
  help: boolean;
  port: number;
  /** The data directory: tables and parked executions (unless in memory), the endpoint file. */
  dataDir: string;
  inMemory: boolean;
  /** Replace the data directory's bearer token with a new one. */
  newToken: boolean;
  profile: ProfileName | undefined;
}

/** A refusal to start, printed as it is. */
export class StartOptionsError extends Error {
  override readonly name = 'StartOptionsError';
}

const portFrom = (text: string, name: string): number => {
  const port = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(port) || port > 65_535) {
    throw new StartOptionsError(
      `${name}=${text} is not a port: give a whole number from 0 to 65535 (0 picks a free one)`
    );
  }
  return port;
};

/**
 * The options from the command line, then npm's own forwarding of flags given without `--`
 * (`npm start --in-memory` sets npm_config_in_memory), then the TINY_HARNESS_* variables.
 */
export const readStartOptions = (argv: readonly string[], env: NodeJS.ProcessEnv): StartOptions => {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        help: { type: 'boolean', short: 'h' },
        port: { type: 'string' },
        'data-dir': { type: 'string' },
        'in-memory': { type: 'boolean' },
        'new-token': { type: 'boolean' },
        profile: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new StartOptionsError(
      `${(error as Error).message.replace(/\. To specify.*$/s, '')}\n\n${START_HELP}`
    );
  }
  const values = parsed.values as {
    help?: boolean;
    port?: string;
    'data-dir'?: string;
    'in-memory'?: boolean;
    'new-token'?: boolean;
    profile?: string;
  };
  const npmFlag = (name: string) => env[`npm_config_${name}`];
  const port =
    values.port !== undefined
      ? portFrom(values.port, '--port')
      : npmFlag('port') !== undefined
        ? portFrom(npmFlag('port') as string, '--port')
        : env.TINY_HARNESS_PORT !== undefined
          ? portFrom(env.TINY_HARNESS_PORT, 'TINY_HARNESS_PORT')
          : 8080;
  const inMemory =
    values['in-memory'] === true ||
    ['true', ''].includes(npmFlag('in_memory') ?? 'unset') ||
    ['true', '1'].includes(env.TINY_HARNESS_IN_MEMORY ?? '');
  const dataDir = resolve(
    values['data-dir'] ?? npmFlag('data_dir') ?? env.TINY_HARNESS_DATA_DIR ?? DEFAULT_DATA_DIR
  );
  let profile: ProfileName | undefined;
  try {
    profile = values.profile === undefined ? undefined : profileOf(['--profile', values.profile]);
  } catch (error) {
    throw new StartOptionsError((error as Error).message);
  }
  const newToken =
    values['new-token'] === true || ['true', ''].includes(npmFlag('new_token') ?? 'unset');
  return { help: values.help === true, port, dataDir, inMemory, newToken, profile };
};

/**
 * The runtime configuration as `npm start` will read it, checked now: the variables the local
 * stack sets itself get stand-ins, everything else is the user's.
 */
export const checkRuntimeConfig = (env: NodeJS.ProcessEnv): void => {
  try {
    readRuntimeConfig({
      ...env,
      TINY_HARNESS_TABLE: 'tiny-harness-local',
      TINY_HARNESS_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:local',
    });
  } catch (error) {
    throw new StartOptionsError((error as Error).message);
  }
};
