import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import {
  bundleAliases,
  handlerEntry,
  LAMBDA_BUNDLING,
  mcpDefine,
  modelProviderDefine,
  tracingDefine,
} from './constructs/harness-function.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Each Lambda bundle's minified JavaScript at most, its source map apart (issue 10). */
export const BUNDLE_BUDGET_BYTES = 1_000_000;

/**
 * What connecting MCP servers may add to a step's bundle (the SDK's client and transport, the
 * JSON Schema validator, the harness's adapter, and in the turn step the Secrets Manager client
 * their credentials are read with). The turn step of a deployment that configures
 * MCP servers holds it on top of its model provider's SDK, the tool step on top of the remote
 * agents' A2A client, both still within BUNDLE_BUDGET_BYTES with tracing (docs/benchmark.md,
 * "Lambda bundles").
 */
export const MCP_CLIENT_BUDGET_BYTES = 160_000;

/** The functions the stack deploys, by handler entry (functions/handlers/<name>.ts). */
export const LAMBDA_HANDLERS = [
  'turn-step',
  'tool-step',
  'stream',
  'a2a',
  'push',
  'reconcile',
  'archive',
  'remote-follow',
  'remote-push',
  'migrate',
];

export interface Bundle {
  /** The minified JavaScript, as it is deployed (index.mjs). */
  code: Uint8Array;
  /** Its source map (index.mjs.map, a separate file). */
  map: Uint8Array;
  /** What went into it: every input file, relative to the project root. */
  metafile: Metafile;
}

/**
 * A handler bundled in memory with the options `cdk synth` bundles it with
 * (cdk/constructs/harness-function.ts); the turn step for one model provider, either step with or
 * without MCP servers; any handler with or without tracing.
 */
export const bundleHandler = async (
  name: string,
  options: { modelProvider?: string; mcpServers?: boolean; tracing?: boolean } = {}
): Promise<Bundle> => {
  const bundling = LAMBDA_BUNDLING;
  const result = await build({
    entryPoints: [handlerEntry(name)],
    absWorkingDir: ROOT,
    outfile: 'index.mjs',
    bundle: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
    platform: 'node',
    format: bundling.format,
    target: bundling.target,
    mainFields: [...bundling.mainFields],
    banner: { js: bundling.banner },
    minify: bundling.minify,
    sourcemap: bundling.sourceMap,
    sourcesContent: bundling.sourcesContent,
    keepNames: bundling.keepNames,
    external: [...bundling.externalModules],
    define: {
      ...(options.modelProvider === undefined ? {} : modelProviderDefine(options.modelProvider)),
      ...(options.mcpServers === undefined ? {} : mcpDefine(options.mcpServers)),
      // As `cdk synth` builds it: without tracing unless the deployment configures it.
      ...tracingDefine(options.tracing ?? false),
    },
    alias: bundleAliases(options.mcpServers),
  });
  const output = (suffix: string) => {
    const file = result.outputFiles.find((candidate) => candidate.path.endsWith(suffix));
    if (file === undefined) throw new Error(`esbuild wrote no ${suffix} for ${name}`);
    return file.contents;
  };
  return { code: output('index.mjs'), map: output('index.mjs.map'), metafile: result.metafile };
};

/** Writes the bundle as the asset holds it (`index.mjs` and `index.mjs.map`); returns its path. */
export const writeBundle = (bundle: Bundle, dir: string): string => {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'index.mjs');
  writeFileSync(file, bundle.code);
  writeFileSync(`${file}.map`, bundle.map);
  return file;
};
