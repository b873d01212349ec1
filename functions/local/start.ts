import './polyfill.js';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import type { RuntimeConfig } from '../composition/runtime-config.js';
import { defaultBudgetsNotice } from '../core/loop/budget.js';
import { banner } from './banner.js';
import { removeEndpoint, writeEndpoint } from './endpoint-file.js';
import { persistentLocalToken, runToken } from './local-token.js';
import { portIsFree } from './port-check.js';
import { withProfile } from './profiles.js';
import { SAMPLE_TOOLS_LINE, sampleMcpServers } from './sample-mcp/default-servers.js';
import {
  checkRuntimeConfig,
  readStartOptions,
  START_HELP,
  StartOptionsError,
} from './start-options.js';

const modelInUse = (config: RuntimeConfig): string => {
  const provider = config.TINY_HARNESS_MODEL_PROVIDER;
  if (provider === 'demo') {
    return 'the built-in demo model (no provider configured: it tours the product, plan, sub-task, question, approval)';
  }
  if (provider === 'conformance') {
    return "the conformance model (plays the A2A conformance kit's reference agent; docs/a2a/conformance.md)";
  }
  if (provider === 'scripted') return `scripted (${config.TINY_HARNESS_MODEL_SCRIPT})`;
  const at = config.TINY_HARNESS_MODEL_BASE_URL ?? "the provider's default endpoint";
  return `${provider} · ${config.TINY_HARNESS_MODEL} · ${at}`;
};

const mcpToolsLine = (config: RuntimeConfig): string => {
  const servers = Object.keys(config.TINY_HARNESS_MCP_SERVERS);
  return servers.length === 0
    ? 'none (TINY_HARNESS_MCP_SERVERS names no server)'
    : `MCP servers ${servers.join(', ')} (TINY_HARNESS_MCP_SERVERS)`;
};

/**
 * `npm start`: the whole system on loopback. Data (tables and parked executions) lives in the
 * data directory, so a parked conversation is still there after a restart; `--in-memory` forgets
 * everything on exit. Options and configuration are checked before anything starts.
 */
const main = async () => {
  const options = readStartOptions(process.argv.slice(2), process.env);
  if (options.help) {
    console.log(START_HELP);
    return;
  }
  // A profile's defaults go under what the user set themselves.
  Object.assign(process.env, withProfile(process.env, options.profile));
  // No MCP server configured: the sample one, so a real tool call and an approval can be tried.
  const sample = process.env.TINY_HARNESS_MCP_SERVERS === undefined;
  if (sample) {
    process.env.TINY_HARNESS_MCP_SERVERS = sampleMcpServers(
      options.inMemory ? undefined : options.dataDir,
      process.env
    );
  }
  checkRuntimeConfig(process.env);
  // Remote agents are registered before anything starts (their module only when there are some).
  const registration = process.env.TINY_HARNESS_REMOTE_AGENTS?.trim()
    ? await import('./remote-registration.js')
    : undefined;
  await registration?.checkRemoteAgents(process.env);
  const java = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (java.error !== undefined || java.status !== 0) {
    console.error(
      'tiny-harness needs Java 17+ for DynamoDB Local: install it (e.g. apt-get install openjdk-17-jre-headless) and run npm start again.'
    );
    process.exit(1);
  }
  if (!(await portIsFree(options.port))) {
    throw new StartOptionsError(
      `port ${options.port} is in use: set TINY_HARNESS_PORT (or npm start -- --port N) to a free port`
    );
  }
  process.env.TINY_HARNESS_LOG_LEVEL ??= 'warn';
  // The AWS SDK's notice about Node 22 is not ours to act on here; it would split the banner.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // Every request is authenticated. With no tokens configured, `you` gets the data directory's.
  let generatedToken: string | undefined;
  if (!process.env.TINY_HARNESS_BEARER_TOKENS) {
    mkdirSync(options.dataDir, { recursive: true });
    generatedToken = options.inMemory
      ? runToken()
      : persistentLocalToken(options.dataDir, { rotate: options.newToken });
    process.env.TINY_HARNESS_BEARER_TOKENS = `${generatedToken}=you`;
  }
  console.log('tiny-harness: starting DynamoDB Local, the state machine and the A2A endpoint…');
  const started = Date.now();
  // Imported only now: the CDK app and the SDKs take seconds to load, and a refusal above
  // should not wait for them.
  const { startLocalStack } = await import('./local-stack.js');
  const { WEB_DIST } = await import('./web-site.js');
  const stack = await startLocalStack({
    port: options.port,
    dataDir: options.inMemory ? undefined : options.dataDir,
    web: {
      dir: WEB_DIST,
      ...(generatedToken === undefined
        ? {}
        : { identity: { token: generatedToken, participant: 'you' } }),
    },
  });
  const remoteAgents =
    registration === undefined
      ? []
      : (await stack.runtime.remote.agents.register()).map(registration.describeRegistration);
  const endpointFile = writeEndpoint(options.dataDir, {
    url: stack.url,
    token: generatedToken ?? null,
    participant: generatedToken === undefined ? null : 'you',
    pid: process.pid,
    started_at: new Date().toISOString(),
  });
  console.log(
    banner({
      url: stack.url,
      seconds: (Date.now() - started) / 1000,
      model: modelInUse(stack.runtime.config),
      profile: options.profile,
      lifecycle: stack.runtime.config.TINY_HARNESS_TASK_LIFECYCLE,
      budgets: defaultBudgetsNotice(
        stack.runtime.config.TINY_HARNESS_DEFAULT_BUDGET,
        stack.runtime.config.TINY_HARNESS_MODEL || undefined,
        stack.runtime.config.TINY_HARNESS_MODEL_PRICES
      ),
      stateMachineArn: stack.stateMachineArn,
      data: options.inMemory ? 'in memory (gone on exit)' : options.dataDir,
      token: generatedToken,
      endpointFile,
      remoteAgents,
      internalPorts: stack.internalPorts,
      tools: sample ? SAMPLE_TOOLS_LINE : mcpToolsLine(stack.runtime.config),
      webParticipant:
        generatedToken === undefined
          ? ([...stack.runtime.config.TINY_HARNESS_BEARER_TOKENS.values()][0] ?? null)
          : 'you',
    })
  );
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log('\ntiny-harness: stopping…');
    removeEndpoint(options.dataDir, process.pid);
    await stack.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
};

main().catch((error: unknown) => {
  if (error instanceof StartOptionsError) {
    console.error(`tiny-harness: ${error.message}`);
    process.exit(2);
  }
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    console.error(
      'tiny-harness could not start: the port is in use: set TINY_HARNESS_PORT (or npm start -- --port N) to a free port'
    );
    process.exit(1);
  }
  console.error(`tiny-harness could not start: ${(error as Error).message}`);
  process.exit(1);
});
