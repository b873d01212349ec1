#!/usr/bin/env node
// Idempotent set-up: fetch the DynamoDB Local jar into .local/dynamodb (gitignored, never
// committed), and build the web renderer into web/dist (scripts/build-web.mjs). `npm run setup`,
// `npm start`, `npm test` and `.ci/run` call this; a second run is instant.
//
// The jar comes from the npm registry: `amplify-dynamodb-simulator` bundles AWS's DynamoDB Local
// (1.25.1 in 2.9.30) under `package/emulator/`. We `npm pack` the pinned version and extract only
// that folder, instead of depending on the package (which would add ~250 packages and ~300 MB).
// The jar is under the Amazon DynamoDB Local License Agreement: fetch it, never redistribute it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWeb } from './build-web.mjs';

const PACKAGE = 'amplify-dynamodb-simulator';
const VERSION = '2.9.30';
/** The registry's integrity for the pinned tarball: a republished or tampered tarball is refused. */
const INTEGRITY =
  'sha512-xTeeRLvzEfqyd5lh3bH4c0kHvSHHmmhD5ZDsHFKAQ5g2Zl6JqlFdutaQhCLHzxEp6Ry1o7TB6niIoXuQAnSewQ==';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const localDir = join(root, '.local');
const target = join(localDir, 'dynamodb');
const jar = join(target, 'DynamoDBLocal.jar');
const marker = join(target, '.installed.json');
const show = (path) => relative(root, path) || '.';

const fail = (message) => {
  console.error(`setup: ${message}`);
  process.exit(1);
};

const run = (command, args, options = {}) => {
  const result = spawnSync(command, args, { encoding: 'utf8', ...options });
  if (result.error) fail(`${command} could not run: ${result.error.message}`);
  if (result.status !== 0) {
    const stderr = (result.stderr ?? '').trim().split('\n').slice(-5).join('\n');
    fail(`${command} ${args.join(' ')} exited with ${result.status}\n${stderr}`);
  }
  return result.stdout ?? '';
};

const installDynamoDb = () => {
  // 1. Java: DynamoDB Local is a Java program.
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (java.error || java.status !== 0) {
    fail(
      'java not found: install Java 17 to run DynamoDB Local (e.g. `apt-get install openjdk-17-jre-headless`).'
    );
  }
  const javaVersion = (java.stderr || java.stdout).split('\n')[0]?.trim();
  console.log(`setup: java found (${javaVersion})`);

  // 2. Already installed? The marker is written last, so its presence means a complete install.
  const readMarker = () => {
    try {
      return JSON.parse(readFileSync(marker, 'utf8'));
    } catch {
      return undefined;
    }
  };
  const installed = readMarker();
  if (installed?.package === `${PACKAGE}@${VERSION}` && existsSync(jar)) {
    console.log(
      `setup: DynamoDB Local already in ${show(target)} (${PACKAGE}@${VERSION}); nothing to do`
    );
    return;
  }

  // 3. Fetch the tarball. The staging folder is inside .local so the final rename never crosses
  //    file systems (a rename from /tmp into the repository could fail with EXDEV).
  mkdirSync(localDir, { recursive: true });
  const staging = join(localDir, `.staging-dynamodb-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    console.log(`setup: fetching ${PACKAGE}@${VERSION} from the npm registry (about 57 MB)...`);
    const started = Date.now();
    const packed = JSON.parse(
      run('npm', ['pack', `${PACKAGE}@${VERSION}`, '--json', '--pack-destination', staging], {
        cwd: staging,
      })
    );
    const entry = Array.isArray(packed) ? packed[0] : undefined;
    if (!entry?.filename) fail('npm pack printed no file name');
    if (entry.integrity !== INTEGRITY) {
      fail(`tarball integrity mismatch: expected ${INTEGRITY}, got ${entry.integrity}`);
    }
    const tarball = join(staging, entry.filename);
    console.log(
      `setup: fetched ${entry.filename} in ${((Date.now() - started) / 1000).toFixed(1)} s (integrity verified)`
    );

    // 4. Extract only package/emulator/ with the system tar.
    run('tar', ['-xzf', tarball, '-C', staging, 'package/emulator']);
    const emulator = join(staging, 'package', 'emulator');
    if (!existsSync(join(emulator, 'DynamoDBLocal.jar'))) {
      fail(`the tarball has no package/emulator/DynamoDBLocal.jar`);
    }
    rmSync(target, { recursive: true, force: true });
    renameSync(emulator, target);
    console.log(`setup: extracted package/emulator/ into ${show(target)}`);

    // 5. Verify, then write the marker last.
    if (!existsSync(jar)) fail(`${show(jar)} is missing after extraction`);
    writeFileSync(
      marker,
      `${JSON.stringify(
        {
          package: `${PACKAGE}@${VERSION}`,
          integrity: INTEGRITY,
          installedAt: new Date().toISOString(),
        },
        null,
        2
      )}\n`
    );
    console.log(`setup: DynamoDB Local ready: ${show(jar)}`);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
};

installDynamoDb();
try {
  await buildWeb();
} catch (error) {
  fail(`the web renderer did not build: ${error.message}`);
}
