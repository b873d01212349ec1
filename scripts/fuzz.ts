/**
 * `npm run fuzz`: the A2A fuzzer of test/fuzz at a larger scale than `npm test` runs it, on the
 * handler in this process (the default) or against a running stack over HTTP. Exits 1 when any
 * request got an internal error, an answer in neither binding's shape, or had a wrong-typed field
 * coerced or refused with another error than InvalidParams.
 *
 *   npm run fuzz                                   10,000 requests, seed 24, in this process
 *   npm run fuzz -- --requests 50000 --seed 7
 *   npm run fuzz -- --url http://127.0.0.1:8080 --token <token> [--other-token <token>]
 *   npm run fuzz -- --json                         the whole report, examples included, as JSON
 */
import { parseArgs } from 'node:util';
import { httpTarget } from '../test/fuzz/http-target.js';
import { inProcessTarget } from '../test/fuzz/in-process-target.js';
import { describeReport, runFuzz } from '../test/fuzz/run.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '10000' },
    seed: { type: 'string', default: '24' },
    url: { type: 'string' },
    token: { type: 'string' },
    'other-token': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});

const whole = (name: string, text: string) => {
  if (!/^\d+$/.test(text)) throw new Error(`--${name} ${text} is not a whole number`);
  return Number(text);
};

const main = async () => {
  const requests = whole('requests', values.requests);
  const seed = whole('seed', values.seed);
  if (values.url !== undefined && values.token === undefined) {
    throw new Error('--url needs --token (the bearer token npm start prints)');
  }
  const target =
    values.url === undefined
      ? inProcessTarget()
      : await httpTarget({
          url: values.url,
          token: values.token ?? '',
          otherToken: values['other-token'],
        });
  const started = Date.now();
  const report = await runFuzz(target, {
    seed,
    requests,
    onProgress: (done) => {
      if (!values.json && done % 1_000 === 0) process.stderr.write(`  ${done} requests\n`);
    },
  });
  await target.close();
  if (values.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    process.stdout.write(`${describeReport(report)}\n`);
    for (const example of report.examples) {
      process.stdout.write(
        `\n${JSON.stringify(example.verdict)}\n  ${example.request.method} ${example.request.path}` +
          ` ${JSON.stringify(example.request.query ?? {})} ${JSON.stringify(example.request.headers)}\n` +
          `  ${example.request.body ?? ''}\n  → ${example.status} ${example.body}\n`
      );
    }
    process.stdout.write(`\n${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
  const failed = ['internal', 'shape', 'coerced', 'wrong-refusal', 'stored'].some(
    (outcome) => (report.outcomes[outcome] ?? 0) > 0
  );
  process.exitCode = failed ? 1 : 0;
};

main().catch((error: unknown) => {
  process.stderr.write(`fuzz: ${(error as Error).message}\n`);
  process.exitCode = 2;
});
