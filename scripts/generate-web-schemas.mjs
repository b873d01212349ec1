#!/usr/bin/env node
// The web renderer's types and validators, generated from the committed JSON Schemas (the files
// the zod source publishes): `node scripts/generate-web-schemas.mjs`. Writes web/src/generated/
// (gitignored): for each schema a TypeScript type (json-schema-to-typescript) and, where the
// browser checks what it receives, a standalone validator (ajv), so no validator library and no
// zod reach the bundle. A file is rewritten only when its text changes; a second run is instant.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { compile } from 'json-schema-to-typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'web/src/generated');

/** What the web needs: the schema file, the type's name, and whether it validates at run time. */
const SCHEMAS = [
  { file: 'schemas/task-extension.v1.json', type: 'TaskExtension', validate: true },
  { file: 'schemas/status-extension.v1.json', type: 'StatusExtension', validate: false },
  { file: 'schemas/control-payload.v1.json', type: 'ControlPayload', validate: false },
  { file: 'schemas/task-view.v1.json', type: 'TaskView', validate: false },
  { file: 'schemas/web-config.v1.json', type: 'WebConfig', validate: true },
  { file: 'docs/a2a/ext/timeline.json', type: 'Timeline', validate: true },
];

const BANNER = (file) =>
  `// Generated from ${file} by scripts/generate-web-schemas.mjs: do not edit.\n`;

/** `task-extension` from `schemas/task-extension.v1.json`. */
const baseName = (file) =>
  file
    .split('/')
    .at(-1)
    .replace(/(\.v\d+)?\.json$/, '');

/**
 * ajv's one run-time helper our schemas need (minLength counts code points, as JSON Schema
 * says), inlined so the validator imports nothing. Any other helper is a new dependency: refused
 * loudly rather than shipped as a `require` a browser cannot run.
 */
const UCS2LENGTH = `function ucs2length(str) {
  let length = 0;
  for (let pos = 0; pos < str.length; length++) {
    const value = str.charCodeAt(pos++);
    if (value >= 0xd800 && value <= 0xdbff && pos < str.length) {
      const next = str.charCodeAt(pos);
      if ((next & 0xfc00) === 0xdc00) pos++;
    }
  }
  return length;
}
`;

const validatorCode = (schema, file) => {
  // Defaults are filled in as the zod parser fills them (ajv cannot apply the few inside an
  // anyOf; the renderers read those fields with a fallback); unknown keys are refused.
  const ajv = new Ajv2020.default({
    code: { source: true, esm: true, lines: false },
    useDefaults: true,
    allErrors: false,
    strict: true,
    strictSchema: false,
  });
  let code = standaloneCode.default(ajv, ajv.compile(schema));
  code = code.replace(/require\("ajv\/dist\/runtime\/ucs2length"\)\.default/g, 'ucs2length');
  const left = /require\([^)]*\)/.exec(code);
  if (left) throw new Error(`${file}: the validator needs ${left[0]}; inline it here`);
  return `${BANNER(file)}/* eslint-disable */\n// @ts-nocheck\n${UCS2LENGTH}${code}`;
};

const validatorTypes = (type, name, file) =>
  `${BANNER(file)}import type { ${type} } from './${name}.js';

/** Whether \`data\` is a valid ${type}; fills in the schema's defaults as it checks. */
declare const validate: ((data: unknown) => data is ${type}) & {
  errors?: Array<{ instancePath: string; message?: string }> | null;
};
export default validate;
`;

/** Writes what changed; returns the files written. */
export const generateWebSchemas = async () => {
  const written = [];
  const write = (path, text) => {
    const target = join(out, path);
    let old;
    try {
      old = readFileSync(target, 'utf8');
    } catch {
      old = undefined;
    }
    if (old === text) return;
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    written.push(path);
  };

  for (const { file, type, validate } of SCHEMAS) {
    const schema = JSON.parse(readFileSync(join(root, file), 'utf8'));
    const name = baseName(file);
    // The schema's own title would name the type; ours is the name the web code uses.
    const { title: _title, $id: _id, ...body } = schema;
    const types = await compile(body, type, {
      bannerComment: BANNER(file),
      additionalProperties: false,
      unreachableDefinitions: false,
    });
    write(`${name}.ts`, types);
    if (validate) {
      write(`validate-${name}.js`, validatorCode(schema, file));
      write(`validate-${name}.d.ts`, validatorTypes(type, name, file));
    }
  }
  return written;
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const written = await generateWebSchemas();
  console.log(
    written.length === 0
      ? 'web schemas: up to date'
      : `web schemas: wrote ${written.map((path) => `web/src/generated/${path}`).join(', ')}`
  );
}
