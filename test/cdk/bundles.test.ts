/**
 * Only what a function uses is in its bundle. Each handler is bundled as `cdk synth` bundles it
 * (cdk/lambda-bundle.ts, with the options of cdk/constructs/harness-function.ts): the minified JavaScript
 * stays under the budget, and the SDKs in it are exactly those of the calls it makes. Bytes and
 * contents are deterministic; how long a bundle takes to import is the benchmark's to print.
 */
import { describe, expect, it } from 'vitest';
import {
  BUNDLE_BUDGET_BYTES,
  type Bundle,
  bundleHandler,
  LAMBDA_HANDLERS,
  MCP_CLIENT_BUDGET_BYTES,
} from '../../cdk/lambda-bundle.js';
import { MODEL_PROVIDERS } from '../../functions/composition/model-config.js';

/** The SDK packages a bundle may hold, by what they reach. */
const SDKS = {
  dynamodb: '@aws-sdk/client-dynamodb',
  stepFunctions: '@aws-sdk/client-sfn',
  kms: '@aws-sdk/client-kms',
  secretsManager: '@aws-sdk/client-secrets-manager',
  bedrock: '@aws-sdk/client-bedrock-runtime',
  openai: 'openai',
  anthropic: '@anthropic-ai/sdk',
  mcp: '@modelcontextprotocol/sdk',
  jsonSchema: '@cfworker/json-schema',
  // The SDK's default validator: never in a bundle (the MCP client is given the harness's own).
  ajv: 'ajv',
  // The default credential chain's sources past the environment, and the clients they use: in
  // no bundle (Lambda puts the role's credentials in the environment) but Bedrock's, below.
  credentialChain: '@aws-sdk/credential-provider-ini',
  nestedClients: '@aws-sdk/nested-clients',
} as const;
type Sdk = keyof typeof SDKS;

/** The packages of the input files that put bytes into the bundle (tree-shaken ones put none). */
const packagesIn = (bundle: Bundle): Set<string> => {
  const [output] = Object.values(bundle.metafile.outputs).filter((o) => o.entryPoint);
  const packages = new Set<string>();
  for (const [file, { bytesInOutput }] of Object.entries(output!.inputs)) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1];
    if (name !== undefined && bytesInOutput > 0) packages.add(name);
  }
  return packages;
};

const sdksIn = (bundle: Bundle): Sdk[] => {
  const packages = packagesIn(bundle);
  return (Object.keys(SDKS) as Sdk[]).filter((sdk) => packages.has(SDKS[sdk]));
};

/** The SDKs each function's calls need, and no other. */
const SDKS_OF: Record<string, Sdk[]> = {
  stream: ['dynamodb', 'stepFunctions'],
  // The A2A service seals and opens push configs; the audit reads execution histories.
  a2a: ['dynamodb', 'stepFunctions', 'kms'],
  // Delivery reads records and configs, opens their secrets and posts: no execution to drive.
  push: ['dynamodb', 'kms'],
  reconcile: ['dynamodb', 'stepFunctions'],
  archive: ['dynamodb', 'stepFunctions'],
  // Following a remote child calls its agent with the credentials configured for it.
  'remote-follow': ['dynamodb', 'stepFunctions', 'secretsManager'],
  'remote-push': ['dynamodb', 'stepFunctions', 'secretsManager'],
  // The migration at deployment reads and commits task records, nothing else.
  migrate: ['dynamodb'],
};

/**
 * The turn step's, by the provider it is deployed with (`scripted` is refused at synth). Secrets
 * Manager for the providers whose API key may be a secret; none for a remote agent's
 * credentials: a child on a remote agent is created, with them, by the tool step.
 */
const TURN_STEP_SDKS: Record<string, Sdk[]> = {
  demo: ['dynamodb', 'stepFunctions'],
  conformance: ['dynamodb', 'stepFunctions'],
  openai: ['dynamodb', 'stepFunctions', 'secretsManager', 'openai'],
  'openai-chat': ['dynamodb', 'stepFunctions', 'secretsManager', 'openai'],
  anthropic: ['dynamodb', 'stepFunctions', 'secretsManager', 'anthropic'],
  // Bedrock's client also resolves a bearer token (its own chain, which reaches SSO's client).
  bedrock: ['dynamodb', 'stepFunctions', 'bedrock', 'nestedClients'],
};

/** The tool step's, whatever the provider (it calls no model): a remote agent's credentials. */
const TOOL_STEP_SDKS: Sdk[] = ['dynamodb', 'stepFunctions', 'secretsManager'];

/** The steps as each is bundled for a deployment: the turn step by provider, the tool step once. */
const STEP_BUNDLES: [label: string, name: string, provider: string | undefined, sdks: Sdk[]][] = [
  ...Object.entries(TURN_STEP_SDKS).map(
    ([provider, sdks]) =>
      [`turn-step with ${provider}`, 'turn-step', provider, sdks] as [string, string, string, Sdk[]]
  ),
  ['tool-step', 'tool-step', undefined, TOOL_STEP_SDKS],
];

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

describe('each Lambda bundle holds what its function uses, under 1 MB', () => {
  it('covers every function the stack deploys and every provider it may be deployed with', () => {
    expect(Object.keys(SDKS_OF).sort()).toEqual(
      LAMBDA_HANDLERS.filter((name) => name !== 'turn-step' && name !== 'tool-step').sort()
    );
    expect(Object.keys(TURN_STEP_SDKS).sort()).toEqual(
      MODEL_PROVIDERS.filter((provider) => provider !== 'scripted').sort()
    );
  });

  it.each(Object.entries(SDKS_OF))('%s', async (name, sdks) => {
    const bundle = await bundleHandler(name);
    console.info(`${name}: ${kib(bundle.code.length)} (source map ${kib(bundle.map.length)})`);
    expect(bundle.code.length).toBeLessThanOrEqual(BUNDLE_BUDGET_BYTES);
    expect(sdksIn(bundle)).toEqual(sdks);
  });

  it.each(STEP_BUNDLES)('%s', async (label, name, provider, sdks) => {
    const bundle = await bundleHandler(name, { modelProvider: provider, mcpServers: false });
    console.info(`${label}: ${kib(bundle.code.length)}`);
    expect(bundle.code.length).toBeLessThanOrEqual(BUNDLE_BUDGET_BYTES);
    expect(sdksIn(bundle)).toEqual(sdks);
  });

  // A deployment with MCP servers and tracing, the largest either step gets: it holds the client,
  // the harness's validator and the Secrets Manager client their credentials are read with, and
  // never Ajv. What MCP adds is bounded, and the whole fits the budget with every provider.
  it.each(STEP_BUNDLES)('%s, MCP servers and tracing', async (label, name, provider, sdks) => {
    const without = await bundleHandler(name, {
      modelProvider: provider,
      mcpServers: false,
      tracing: true,
    });
    const bundle = await bundleHandler(name, {
      modelProvider: provider,
      mcpServers: true,
      tracing: true,
    });
    const added = bundle.code.length - without.code.length;
    console.info(`${label} (MCP, tracing): ${kib(bundle.code.length)} (MCP +${kib(added)})`);
    expect(sdksIn(bundle).sort()).toEqual(
      [...new Set([...sdks, 'secretsManager', 'mcp', 'jsonSchema'])].sort()
    );
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThanOrEqual(MCP_CLIENT_BUDGET_BYTES);
    expect(bundle.code.length).toBeLessThanOrEqual(BUNDLE_BUDGET_BYTES);
  });

  it('ships its source map apart, without the sources', async () => {
    const bundle = await bundleHandler('push');
    const code = new TextDecoder().decode(bundle.code);
    expect(code.trimEnd().endsWith('//# sourceMappingURL=index.mjs.map')).toBe(true);
    const map = JSON.parse(new TextDecoder().decode(bundle.map)) as {
      sources: string[];
      sourcesContent?: unknown;
    };
    expect(map.sources).toContain('functions/handlers/push.ts');
    expect(map.sourcesContent).toBeUndefined();
  });
});
