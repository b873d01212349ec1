// Synthesizes the CDK app with bundling on, as `cdk synth` does (esbuild, the options of
// cdk/constructs/harness-function.ts), into the folder given, and writes `bench-assets.json`
// there: each Lambda function's asset folder and the NODE_OPTIONS its environment sets. Run by bundles.ts in a child
// process, so the CDK app's memory and esbuild's chatter stay out of the benchmark's process.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../../cdk/app.js';
import { ASSETS_FILE, type BundleAsset, bundleAssetsOf } from './bundle-assets.js';

const outdir = process.argv[2];
if (outdir === undefined) throw new Error('usage: synth-bundles.ts <outdir>');
const { app, stack } = buildApp({ outdir, bundle: true, validateTemplate: false });
const template = app.synth().getStackByName(stack.stackName).template as unknown;
const assets: BundleAsset[] = bundleAssetsOf(template, outdir);
writeFileSync(join(outdir, ASSETS_FILE), JSON.stringify(assets));
