import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { bundleHandler, writeBundle } from '../../cdk/lambda-bundle.js';
import { MODEL_PROVIDERS } from '../../functions/composition/model-config.js';
import { ASSETS_FILE, type BundleAsset } from './bundle-assets.js';
import { median } from './stats.js';

const run = promisify(execFile);
const SYNTH = fileURLToPath(new URL('./synth-bundles.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface BundleFigures {
  /** The entry file, minified (what a cold start loads). */
  bytes: number;
  /** Every JavaScript file of the asset (more than `bytes` only if the bundle is split). */
  js_bytes: number;
  source_map_bytes: number;
  /** Import time in a fresh `node` with the function's NODE_OPTIONS (median). */
  import_ms: number;
  /** The same without NODE_OPTIONS (no `--enable-source-maps`). */
  import_ms_without_node_options: number;
  node_options: string;
}

/** Never reach for instance metadata or a real endpoint while importing. */
const QUIET_ENV = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'us-east-1',
  AWS_EC2_METADATA_DISABLED: 'true',
};

/** The milliseconds `import()` of `file` takes in a fresh `node` process with `nodeOptions`. */
export const importMs = async (file: string, nodeOptions: string): Promise<number> => {
  const script = `const t = performance.now(); await import(${JSON.stringify(
    pathToFileURL(file).href
  )}); process.stdout.write(String(performance.now() - t));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...QUIET_ENV, ...(nodeOptions === '' ? {} : { NODE_OPTIONS: nodeOptions }) },
    timeout: 60_000,
  });
  const ms = Number(stdout.trim());
  if (!Number.isFinite(ms)) throw new Error(`importing ${file} printed "${stdout}"`);
  return ms;
};

const sizes = (dir: string) => {
  let js = 0;
  let maps = 0;
  for (const name of readdirSync(dir)) {
    const size = statSync(join(dir, name)).size;
    if (name.endsWith('.map')) maps += size;
    else if (/\.(m|c)?js$/.test(name)) js += size;
  }
  return { js, maps };
};

export const measureBundle = async (
  asset: BundleAsset,
  importRuns: number
): Promise<BundleFigures> => {
  const entry = join(asset.dir, 'index.mjs');
  const { js, maps } = sizes(asset.dir);
  const withOptions: number[] = [];
  const without: number[] = [];
  for (let n = 0; n < importRuns; n++) {
    withOptions.push(await importMs(entry, asset.nodeOptions));
    without.push(await importMs(entry, ''));
  }
  return {
    bytes: statSync(entry).size,
    js_bytes: js,
    source_map_bytes: maps,
    import_ms: median(withOptions),
    import_ms_without_node_options: median(without),
    node_options: asset.nodeOptions,
  };
};

/** Builds every function's bundle as `cdk synth` does and measures each. */
export const measureBundles = async (
  importRuns: number,
  onProgress: (message: string) => void
): Promise<Record<string, BundleFigures>> => {
  const outdir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  try {
    const started = performance.now();
    await run(process.execPath, ['--import', 'tsx', SYNTH, outdir], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
      timeout: 600_000,
    });
    const assets = JSON.parse(readFileSync(join(outdir, ASSETS_FILE), 'utf8')) as BundleAsset[];
    onProgress(
      `bundled ${assets.length} functions in ${((performance.now() - started) / 1000).toFixed(1)} s`
    );
    const figures: Record<string, BundleFigures> = {};
    for (const asset of assets) figures[asset.function] = await measureBundle(asset, importRuns);
    return figures;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
};

/** The turn step's bundle for one model provider, without and with MCP servers configured. */
export interface TurnStepVariantFigures {
  provider: string;
  bytes: number;
  mcp_bytes: number;
  /** Import time in a fresh `node` (median), without and with the MCP client. */
  import_ms: number;
  mcp_import_ms: number;
}

/**
 * The turn step bundled for each provider a deployment may use (not `scripted`, which `cdk synth`
 * refuses), without and with MCP servers (the define and the left-out modules `cdk synth` uses
 * for `mcpServers`), each measured as `measureBundle` does.
 */
export const measureTurnStepVariants = async (
  importRuns: number,
  onProgress: (message: string) => void
): Promise<TurnStepVariantFigures[]> => {
  const outdir = mkdtempSync(join(tmpdir(), 'bench-turn-step-'));
  const timed = async (file: string) => {
    const runs: number[] = [];
    for (let n = 0; n < importRuns; n++) runs.push(await importMs(file, ''));
    return median(runs);
  };
  try {
    const started = performance.now();
    const figures: TurnStepVariantFigures[] = [];
    for (const provider of MODEL_PROVIDERS.filter((name) => name !== 'scripted')) {
      const plain = await bundleHandler('turn-step', {
        modelProvider: provider,
        mcpServers: false,
      });
      const mcp = await bundleHandler('turn-step', { modelProvider: provider, mcpServers: true });
      figures.push({
        provider,
        bytes: plain.code.length,
        mcp_bytes: mcp.code.length,
        import_ms: await timed(writeBundle(plain, join(outdir, provider))),
        mcp_import_ms: await timed(writeBundle(mcp, join(outdir, `${provider}-mcp`))),
      });
    }
    onProgress(
      `bundled the turn step for ${figures.length} providers, with and without MCP, in ${((performance.now() - started) / 1000).toFixed(1)} s`
    );
    return figures;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
};
