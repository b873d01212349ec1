import './polyfill.js';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { startLocalStack } from './local-stack.js';
import { profileOf, withProfile } from './profiles.js';

/**
 * `npm start`: the whole system on loopback. Data (tables and parked executions) lives in
 * `.local/data`, so a parked conversation is still there after a restart; `--in-memory` forgets
 * everything on exit.
 */
const main = async () => {
  const java = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (java.error !== undefined || java.status !== 0) {
    console.error(
      'tiny-harness needs Java 17+ for DynamoDB Local: install it (e.g. apt-get install openjdk-17-jre-headless) and run npm start again.'
    );
    process.exit(1);
  }
  const inMemory = process.argv.includes('--in-memory');
  const profile = profileOf(process.argv.slice(2));
  Object.assign(process.env, withProfile(process.env, profile));
  const port = Number(process.env.TINY_HARNESS_PORT ?? 8080);
  const dataDir = inMemory
    ? undefined
    : resolve(process.env.TINY_HARNESS_DATA_DIR ?? '.local/data');
  process.env.TINY_HARNESS_LOG_LEVEL ??= 'warn';
  // The AWS SDK's notice about Node 22 is not ours to act on here; it would split the banner.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // Every request is authenticated. With no tokens configured, this run gets one, for `you`.
  let generatedToken: string | undefined;
  if (!process.env.TINY_HARNESS_BEARER_TOKENS) {
    generatedToken = `local-${randomBytes(18).toString('base64url')}`;
    process.env.TINY_HARNESS_BEARER_TOKENS = `${generatedToken}=you`;
  }
  console.log('tiny-harness: starting DynamoDB Local, the state machine and the A2A endpoint…');
  const started = Date.now();
  const stack = await startLocalStack({ port, dataDir });
  const provider = stack.runtime.config.TINY_HARNESS_MODEL_PROVIDER;
  const BUILT_IN: Record<string, string> = {
    demo: 'the built-in demo model (no provider configured: it echoes what it receives)',
    conformance:
      "the conformance model (plays the A2A conformance kit's reference agent; docs/a2a/conformance.md)",
  };
  const model =
    BUILT_IN[provider] ??
    `${provider}${provider === 'scripted' ? ` (${stack.runtime.config.TINY_HARNESS_MODEL_SCRIPT})` : ''}`;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'Hello!' }] } },
  });
  const streamBody = JSON.stringify({
    message: { messageId: 'm-2', role: 'ROLE_USER', parts: [{ text: 'Hello again!' }] },
  });
  const token = generatedToken ?? '<a token from TINY_HARNESS_BEARER_TOKENS>';
  console.log(
    [
      `tiny-harness is up in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      `  A2A endpoint   ${stack.url}/  (A2A 1.0: JSON-RPC at /, HTTP+JSON routes, SSE streams)`,
      `  agent card     ${stack.url}/.well-known/agent-card.json`,
      `  model          ${model}`,
      ...(profile === undefined ? [] : [`  profile        ${profile}`]),
      `  tasks          ${stack.runtime.config.TINY_HARNESS_TASK_LIFECYCLE === 'delegated' ? 'delegated: worked to their end and completed' : 'conversations: each parks for your next message'}`,
      `  state machine  ${stack.stateMachineArn}`,
      `  data           ${dataDir ?? 'in memory (gone on exit)'}`,
      `  caller         ${generatedToken === undefined ? 'tokens from TINY_HARNESS_BEARER_TOKENS' : `bearer token ${generatedToken} (participant "you")`}`,
      '',
      'Send a first message:',
      `  curl -s ${stack.url}/ -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' -H 'Authorization: Bearer ${token}' \\`,
      `    -d '${body}'`,
      'Or watch it work, as Server-Sent Events:',
      `  curl -sN ${stack.url}/message:stream -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' -H 'Authorization: Bearer ${token}' \\`,
      `    -d '${streamBody}'`,
      '',
      'Ctrl-C stops everything.',
    ].join('\n')
  );
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log('\ntiny-harness: stopping…');
    await stack.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
};

main().catch((error: unknown) => {
  console.error(`tiny-harness could not start: ${(error as Error).message}`);
  process.exit(1);
});
