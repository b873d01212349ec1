// What a Lambda bundle's source map costs (`npm run bench:source-maps`): each function's bundle,
// built as `cdk synth` builds it (cdk/lambda-bundle.ts), imported by a fresh Node process with
// the map read at the first error (the deployment: functions/adapters/system/lazy-source-maps.ts)
// and with Node's `--enable-source-maps` (which reads it at every import), and what the first
// stack trace costs. It prints figures; it asserts nothing. docs/deploy.md explains them.
//
//   npm run bench:source-maps                     # every function, 7 processes each, medians
//   npm run bench:source-maps -- --runs 15        # more processes
//   npm run bench:source-maps -- --node /path/to/node22   # another Node (Lambda runs 22)

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bundleHandler, LAMBDA_HANDLERS, writeBundle } from '../cdk/lambda-bundle.js';

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    node: { type: 'string', default: process.execPath },
    'model-provider': { type: 'string', default: 'openai' },
  },
});
const RUNS = Number(flags.runs);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error('--runs takes a positive integer');
const NODE = flags.node ?? process.execPath;

/**
 * One fresh process: the import's wall and CPU milliseconds, then the first error's stack
 * (the handler, invoked with no configuration, throws from inside the bundle) and a second's.
 */
const PROBE = `
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const stackOf = async (handler) => {
  try { await handler({ Records: [] }, { getRemainingTimeInMillis: () => 60_000 }); }
  catch (error) { const [w, c] = [performance.now(), cpu()]; error.stack; return [performance.now() - w, cpu() - c]; }
  throw new Error('the handler did not throw');
};
const [w, c] = [performance.now(), cpu()];
const { handler } = await import(process.env.BUNDLE);
const imported = [performance.now() - w, cpu() - c];
const first = await stackOf(handler);
const second = await stackOf(handler);
console.log(JSON.stringify({ imported, first, second }));`;

interface Sample {
  imported: [number, number];
  first: [number, number];
  second: [number, number];
}

const sample = (bundle: string, nodeOptions: string[]): Sample => {
  const out = execFileSync(NODE, [...nodeOptions, '--input-type=module', '-e', PROBE], {
    env: { PATH: process.env.PATH, BUNDLE: bundle },
  });
  return JSON.parse(out.toString().trim().split('\n').at(-1) ?? '') as Sample;
};

const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1] ?? NaN;
const ms = (value: number) => value.toFixed(0).padStart(5);

const dir = mkdtempSync(join(tmpdir(), 'tiny-harness-source-maps-'));
try {
  const version = execFileSync(NODE, ['--version']).toString().trim();
  console.log(
    `Node ${version}, ${cpus().length} CPUs, load ${loadavg()[0]?.toFixed(1)}; ${RUNS} processes per row, medians (ms); turn step built for ${flags['model-provider']}`
  );
  console.log(
    'function     JS KiB  map KiB | import wall/CPU: lazy map  --enable-source-maps | first stack wall/CPU: lazy  --enable-source-maps | later stacks'
  );
  for (const name of LAMBDA_HANDLERS) {
    const built = await bundleHandler(
      name,
      name === 'turn-step' ? { modelProvider: flags['model-provider'] } : {}
    );
    const bundle = writeBundle(built, join(dir, name));
    const lazy: Sample[] = [];
    const eager: Sample[] = [];
    for (let run = 0; run < RUNS; run++) {
      lazy.push(sample(bundle, []));
      eager.push(sample(bundle, ['--enable-source-maps']));
    }
    const of = (samples: Sample[], key: keyof Sample, at: 0 | 1) =>
      median(samples.map((s) => s[key][at]));
    console.log(
      [
        name.padEnd(10),
        ms(built.code.length / 1024).padStart(8),
        ms(built.map.length / 1024).padStart(8),
        ` | ${ms(of(lazy, 'imported', 0))} /${ms(of(lazy, 'imported', 1))}`,
        `${ms(of(eager, 'imported', 0))} /${ms(of(eager, 'imported', 1))}`.padStart(22),
        ` | ${ms(of(lazy, 'first', 0))} /${ms(of(lazy, 'first', 1))}`,
        `${ms(of(eager, 'first', 0))} /${ms(of(eager, 'first', 1))}`.padStart(22),
        ` | ${of(lazy, 'second', 0).toFixed(1)}`,
      ].join(' ')
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
