// Prints the template the cloud deploys (synthesized without bundling) as JSON on stdout: run by
// synth-template.ts in a process of its own, so aws-cdk-lib and cdk-nag never load into the
// local stack's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../cdk/app.js';

const outdir = mkdtempSync(join(tmpdir(), 'tiny-harness-synth-'));
try {
  const { app, stack } = buildApp({ outdir, bundle: false });
  process.stdout.write(JSON.stringify(app.synth().getStackByName(stack.stackName).template));
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
