/** The CDK CLI's entry point (`cdk.json` → `npx tsx cdk/bin/app.ts`). */
import { buildWeb } from '../../scripts/build-web.mjs';
import { buildApp } from '../app.js';
import { ConfigurationError } from '../config.js';

// The stack deploys the web renderer's build (web/dist): build it when its sources changed.
await buildWeb();

try {
  const { app } = buildApp({ region: process.env.CDK_DEFAULT_REGION });
  app.synth();
} catch (error) {
  // A bad configuration is the person's to fix: one line that names it, no stack trace.
  if (!(error instanceof ConfigurationError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 1;
}
