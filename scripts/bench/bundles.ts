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

/**
 * One step's bundle as one deployment gets it (the turn step for one model provider, the tool
 * step for any): without MCP servers, with them, and with them and tracing.
 */
export interface StepVariantFigures {
  step: 'turn-step' | 'tool-step';
  /** The turn step's model provider; null for the tool step, which holds none. */
  provider: string | null;
  bytes: number;
  mcp_bytes: number;
  traced_bytes: number;
  /** Import time in a fresh `node` (median) of each of the three. */
  import_ms: number;
  mcp_import_ms: number;
  traced_import_ms: number;
}

/**
 * The turn step bundled for each provider a deployment may use (not `scripted`, which `cdk synth`
 * refuses), and the tool step, each without and with MCP servers (the define and the left-out
 * modules `cdk synth` uses for `mcpServers`) and with MCP servers and tracing, each measured as
 * `measureBundle` does.
 */
export const measureStepVariants = async (
  importRuns: number,
  onProgress: (message: string) => void
): Promise<StepVariantFigures[]> => {
  const outdir = mkdtempSync(join(tmpdir(), 'bench-steps-'));
  const timed = async (file: string) => {
    const runs: number[] = [];
    for (let n = 0; n < importRuns; n++) runs.push(await importMs(file, ''));
    return median(runs);
  };
  const variants: [StepVariantFigures['step'], string | null][] = [
    ...MODEL_PROVIDERS.filter((name) => name !== 'scripted').map(
      (provider) => ['turn-step', provider] as [StepVariantFigures['step'], string]
    ),
    ['tool-step', null],
  ];
  try {
    const started = performance.now();
    const figures: StepVariantFigures[] = [];
    for (const [step, provider] of variants) {
      const modelProvider = provider ?? undefined;
      const label = provider === null ? step : `${step}-${provider}`;
      const plain = await bundleHandler(step, { modelProvider, mcpServers: false });
      const mcp = await bundleHandler(step, { modelProvider, mcpServers: true });
      const traced = await bundleHandler(step, { modelProvider, mcpServers: true, tracing: true });
      figures.push({
        step,
        provider,
        bytes: plain.code.length,
        mcp_bytes: mcp.code.length,
        traced_bytes: traced.code.length,
        import_ms: await timed(writeBundle(plain, join(outdir, label))),
        mcp_import_ms: await timed(writeBundle(mcp, join(outdir, `${label}-mcp`))),
        traced_import_ms: await timed(writeBundle(traced, join(outdir, `${label}-traced`))),
      });
    }
    onProgress(
      `bundled ${figures.length} step variants, with and without MCP and tracing, in ${((performance.now() - started) / 1000).toFixed(1)} s`
    );
    return figures;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
};
