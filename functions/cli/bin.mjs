#!/usr/bin/env node
// The `tiny-harness` command: runs the TypeScript entry point through tsx, as `npm start` does.
import { register } from 'tsx/esm/api';

register();
const { run } = await import('./main.ts');
await run(process.argv);
