import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TASK_SCHEMA_ID } from '../../functions/core/a2a/identifiers.js';
import {
  INTRINSIC_SCHEMA_BASE,
  publishedSchemas,
  SCHEMAS_README,
  SCHEMAS_README_PATH,
  serializeSchema,
  sortKeys,
} from '../../functions/core/a2a/published-schemas.js';
import {
  ROLES,
  SUB_STATES,
  TASK_STATE_NAMES,
  TaskExtensionSchema,
} from '../../functions/core/task/extension.schema.js';
import { INTRINSICS } from '../../functions/core/tools/intrinsics/index.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string): string | null =>
  existsSync(`${root}${path}`) ? readFileSync(`${root}${path}`, 'utf8') : null;

const REGENERATE = 'run `npm run schemas` and commit the result';

const expected = new Map<string, string>([
  ...publishedSchemas().map(({ path, schema }) => [path, serializeSchema(schema)] as const),
  [SCHEMAS_README_PATH, SCHEMAS_README],
]);

describe('committed schemas match the zod schemas', () => {
  it.each([...expected.keys()])('%s is byte for byte what the generator writes', (path) => {
    const committed = read(path);
    expect(committed, `${path} is missing: ${REGENERATE}`).not.toBeNull();
    // Compare as strings first for a readable diff, then say what to do about it.
    if (committed !== expected.get(path)) {
      expect(committed, `${path} drifted from its zod schema: ${REGENERATE}`).toBe(
        expected.get(path)
      );
    }
  });

  it.each(['docs/a2a/ext/intrinsics', 'schemas'])('%s holds no stale generated file', (dir) => {
    const stale = readdirSync(`${root}${dir}`)
      .filter((name) => name.endsWith('.json'))
      .map((name) => `${dir}/${name}`)
      .filter((path) => !expected.has(path));
    expect(stale, `stale schema files (no zod schema produces them): ${REGENERATE}`).toEqual([]);
  });

  it('generates the same bytes on every run, keys sorted at every depth', () => {
    const again = publishedSchemas().map(({ path, schema }) => [path, serializeSchema(schema)]);
    expect(new Map(again as Array<[string, string]>)).toEqual(
      new Map([...expected].filter(([path]) => path !== SCHEMAS_README_PATH))
    );
    expect(JSON.stringify(sortKeys({ b: 1, a: { d: [{ f: 1, e: 2 }], c: 3 } }))).toBe(
      '{"a":{"c":3,"d":[{"e":2,"f":1}]},"b":1}'
    );
    expect(sortKeys({ enum: ['z', 'a'] })).toEqual({ enum: ['z', 'a'] });
  });

  it('publishes one schema per intrinsic, identified and titled by its name', () => {
    for (const tool of INTRINSICS) {
      const schema = JSON.parse(read(`docs/a2a/ext/intrinsics/${tool.name}.json`) ?? '{}');
      expect(schema).toMatchObject({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: `${INTRINSIC_SCHEMA_BASE}${tool.name}.json`,
        title: tool.name,
        description: tool.description,
        type: 'object',
        additionalProperties: false,
      });
    }
  });
});

// --- A tiny structural check: enough JSON Schema to validate a task extension. ---------------

type Schema = Record<string, unknown>;

const typeOf = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
};

const typeMatches = (expected: string, actual: string) =>
  expected === actual || (expected === 'number' && actual === 'integer');

/** The problems of `value` against `schema` (a subset of 2020-12), as `path: reason`. */
const check = (schema: Schema, value: unknown, path = '$'): string[] => {
  const problems: string[] = [];
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((type) => typeMatches(type, typeOf(value)))) {
      return [`${path}: expected ${types.join(' or ')}, got ${typeOf(value)}`];
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    problems.push(`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  }
  if ('const' in schema && schema.const !== value) problems.push(`${path}: not the const`);
  if (typeof value === 'string' && typeof schema.minLength === 'number') {
    if (value.length < schema.minLength) problems.push(`${path}: shorter than ${schema.minLength}`);
  }
  if (typeof value === 'number' && typeof schema.minimum === 'number') {
    if (value < schema.minimum) problems.push(`${path}: below ${schema.minimum}`);
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword] as Schema[] | undefined;
    if (branches === undefined) continue;
    const results = branches.map((branch) => check(branch, value, path));
    const passing = results.filter((result) => result.length === 0).length;
    const ok = keyword === 'anyOf' ? passing > 0 : passing === 1;
    // Each branch's problems too, so a failure deep inside a nullable object is still named.
    if (!ok)
      problems.push(`${path}: ${passing} of the ${keyword} branches match`, ...results.flat());
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
      problems.push(`${path}: fewer than ${schema.minItems} items`);
    }
    const items = schema.items as Schema | undefined;
    if (items !== undefined) {
      value.forEach((item, index) => {
        problems.push(...check(items, item, `${path}[${index}]`));
      });
    }
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of (schema.required ?? []) as string[]) {
      if (!Object.hasOwn(object, key)) problems.push(`${path}: missing required ${key}`);
    }
    for (const [key, child] of Object.entries(object)) {
      const property = properties[key];
      if (property !== undefined) problems.push(...check(property, child, `${path}.${key}`));
      else if (schema.additionalProperties === false) problems.push(`${path}: unknown key ${key}`);
    }
  }
  return problems;
};

/** A nullable node's non-null `anyOf` branch; any other node itself. */
const nonNull = (node: Schema): Schema =>
  (node.anyOf as Schema[] | undefined)?.find((option) => option.type !== 'null') ?? node;

/** Follows `properties` / `items` (`[]`) down a path, through nullable `anyOf`s. */
const at = (schema: Schema, ...keys: string[]): Schema =>
  keys.reduce<Schema>((parent, key) => {
    const node = nonNull(parent);
    const child = key === '[]' ? node.items : (node.properties as Record<string, Schema>)?.[key];
    if (child === undefined) throw new Error(`no ${key} under ${JSON.stringify(node)}`);
    return nonNull(child as Schema);
  }, schema);

const sampleExtension = () => ({
  name: 'Quarterly report',
  goal: 'Write the quarterly report',
  description: 'For the board meeting.',
  acceptance_criteria: [{ text: 'Has a summary' }, { text: 'Cites sources', met: true }],
  participants: [
    { id: 'alice', kind: 'human', role: 'reporter', display_name: 'Alice' },
    { id: 'bob', kind: 'human', role: 'admin' },
    { id: 'tiny-harness', kind: 'agent', role: 'assignee' },
  ],
  parent_tasks: [{ task_id: 'task-0' }],
  sub_tasks: [
    { task_id: 'task-2', agent: null, state: 'TASK_STATE_WORKING', sub_state: null },
    {
      task_id: 'remote-9',
      agent: { kind: 'agent', id: 'researcher', version: null },
      state: 'TASK_STATE_INPUT_REQUIRED',
      sub_state: 'awaiting-answer',
    },
  ],
  plan: {
    steps: [
      { id: 'gather-facts', name: 'Gather facts', linked_tasks: [{ task_id: 'task-2' }] },
      {
        id: 'write',
        name: 'Write',
        description: 'Draft it',
        depends_on: ['gather-facts'],
        output: null,
        state: 'pending',
      },
    ],
    revision: 1,
    revisions: [],
  },
  lifecycle: 'delegated',
  model: 'gpt-5',
  reasoning_effort: 'medium',
});

describe('docs/a2a/ext/task.json', () => {
  const schema = JSON.parse(read('docs/a2a/ext/task.json') ?? '{}') as Schema;

  it('is a JSON Schema 2020-12 document identified by the task schema id', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(TASK_SCHEMA_ID);
    expect(schema.title).toEqual(expect.any(String));
  });

  it('forbids unknown keys at the top level and requires name and goal', () => {
    expect(schema.type).toBe('object');
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['name', 'goal']);
  });

  it('spells the enums exactly as the zod schemas do', () => {
    expect(at(schema, 'participants', '[]', 'role').enum).toEqual([...ROLES]);
    expect(at(schema, 'sub_tasks', '[]', 'state').enum).toEqual([...TASK_STATE_NAMES]);
    expect(at(schema, 'sub_tasks', '[]', 'sub_state').enum).toEqual([...SUB_STATES]);
    expect(at(schema, 'plan', 'steps', '[]', 'state').enum).toEqual([
      'pending',
      'active',
      'done',
      'failed',
    ]);
  });

  it('accepts a full extension that the zod schema accepts', () => {
    const sample = sampleExtension();
    expect(TaskExtensionSchema.safeParse(sample).success).toBe(true);
    expect(check(schema, sample)).toEqual([]);
    // What the harness stores (defaults filled in) validates too.
    expect(check(schema, JSON.parse(JSON.stringify(TaskExtensionSchema.parse(sample))))).toEqual(
      []
    );
  });

  it('accepts the minimal extension: name and goal', () => {
    expect(check(schema, { name: 'n', goal: 'g' })).toEqual([]);
  });

  it.each([
    ['a missing goal', { name: 'n' }, '$: missing required goal'],
    ['an unknown top-level key', { name: 'n', goal: 'g', owner: 'x' }, '$: unknown key owner'],
    [
      'an unknown role',
      { name: 'n', goal: 'g', participants: [{ id: 'a', kind: 'human', role: 'boss' }] },
      '$.participants[0].role: "boss" is not one of',
    ],
    [
      'an unknown child state',
      { name: 'n', goal: 'g', sub_tasks: [{ task_id: 't', state: 'working' }] },
      '$.sub_tasks[0].state: "working" is not one of',
    ],
    [
      'an unknown sub-state',
      { name: 'n', goal: 'g', sub_tasks: [{ task_id: 't', sub_state: 'asleep' }] },
      '$.sub_tasks[0].sub_state: 0 of the anyOf branches match',
    ],
    ['an unknown lifecycle', { name: 'n', goal: 'g', lifecycle: 'forever' }, '$.lifecycle:'],
    [
      'an unknown reasoning effort',
      { name: 'n', goal: 'g', reasoning_effort: 'max' },
      '$.reasoning_effort:',
    ],
    [
      'a plan step without a name',
      { name: 'n', goal: 'g', plan: { steps: [{ id: 'a' }] } },
      'missing required name',
    ],
  ])('refuses %s, as zod does', (_label, value, problem) => {
    expect(TaskExtensionSchema.safeParse(value).success).toBe(false);
    expect(check(schema, value).join('\n')).toContain(problem);
  });
});
