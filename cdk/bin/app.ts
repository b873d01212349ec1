/** The CDK CLI's entry point (`cdk.json` → `npx tsx cdk/bin/app.ts`). */
import { buildWeb } from '../../scripts/build-web.mjs';
import { configuredApp, harnessStackIn } from '../app.js';
import { ConfigurationError } from '../config.js';

try {
  // The configuration is checked first: a bad one is refused before the page is built.
  const { app, config } = configuredApp({ region: process.env.CDK_DEFAULT_REGION });
  // The stack deploys the web renderer's build (web/dist): build it when its sources changed.
  await buildWeb();
  harnessStackIn(app, config);
  app.synth();
} catch (error) {
  // A bad configuration is the person's to fix: one line that names it, no stack trace.
  if (!(error instanceof ConfigurationError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 1;
}
