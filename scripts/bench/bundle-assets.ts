import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The file synth-bundles.ts writes the assets into, in the assembly folder. */
export const ASSETS_FILE = 'bench-assets.json';

/** A Lambda function of the synthesized stack and the folder its bundle was built into. */
export interface BundleAsset {
  /** The construct id (TurnStepFunction, A2aFunction, ...). */
  function: string;
  dir: string;
  /** NODE_OPTIONS of the function's environment, as the stack sets it ('' when unset). */
  nodeOptions: string;
}

interface LambdaResource {
  Type?: string;
  Properties?: {
    Code?: { S3Key?: unknown };
    Environment?: { Variables?: Record<string, unknown> };
  };
  Metadata?: Record<string, unknown>;
}

/**
 * Each Lambda function of ours in a synthesized template with its asset folder: the code's S3 key
 * is `<asset hash>.zip` and the assembly keeps the bundle in `asset.<asset hash>/`. Functions
 * CDK brings (the web renderer's deployment, in Python) have no `index.mjs` and are not ours.
 */
export const bundleAssetsOf = (template: unknown, outdir: string): BundleAsset[] => {
  const resources = ((template as { Resources?: Record<string, LambdaResource> }).Resources ??
    {}) as Record<string, LambdaResource>;
  const assets: BundleAsset[] = [];
  for (const resource of Object.values(resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const key = resource.Properties?.Code?.S3Key;
    const path = resource.Metadata?.['aws:cdk:path'];
    if (typeof key !== 'string' || !key.endsWith('.zip') || typeof path !== 'string') continue;
    const parts = path.split('/');
    const id = parts.at(-1) === 'Resource' ? parts.at(-2) : parts.at(-1);
    const options = resource.Properties?.Environment?.Variables?.NODE_OPTIONS;
    const dir = join(outdir, `asset.${key.slice(0, -'.zip'.length)}`);
    if (!existsSync(join(dir, 'index.mjs'))) continue;
    assets.push({
      function: id ?? path,
      dir,
      nodeOptions: typeof options === 'string' ? options : '',
    });
  }
  return assets.sort((a, b) => a.function.localeCompare(b.function));
};
