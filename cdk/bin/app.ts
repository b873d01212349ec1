/** The CDK CLI's entry point (`cdk.json` → `npx tsx cdk/bin/app.ts`). */
import { buildApp } from '../app.js';

const { app } = buildApp();
app.synth();
