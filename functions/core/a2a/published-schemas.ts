import * as z from 'zod';
import { TimelineSchema } from '../audit/timeline.schema.js';
import { RouteSchema, TurnRefSchema } from '../loop/route.schema.js';
import { ControlPayloadSchema, EventEnvelopeSchema } from '../task/envelope.schema.js';
import { StatusExtensionSchema, TaskExtensionSchema } from '../task/extension.schema.js';
import { INTRINSICS } from '../tools/intrinsics/index.js';
import { toolParameters } from '../tools/registry.js';
import { TASK_SCHEMA_ID } from './identifiers.js';
import { TaskViewSchema } from './task-view.schema.js';
import { WebConfigSchema } from './web-config.schema.js';

/**
 * The JSON Schemas the repository commits, generated from the zod schemas (the single source).
 * `npm run schemas` writes them; a contract test regenerates them in memory and compares bytes.
 */

export interface PublishedSchema {
  /** Path relative to the repository root. */
  path: string;
  schema: object;
}

export const INTRINSIC_SCHEMA_BASE =
  'https://madarauchiha-314.github.io/tiny-harness/a2a/ext/intrinsics/';

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * Every value with its object keys sorted (code-unit order), recursively; arrays keep their order
 * (enum values, `required`, `oneOf` branches are meaningful in order). Makes the output
 * byte-stable whatever order zod emits keys in.
 */
export const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  // fromEntries defines own properties, so even a `__proto__` key stays a plain key.
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, sortKeys(record[key])])
  );
};

/**
 * JSON Schema 2020-12 of a zod schema, on the **input** side: a field with a default is optional
 * (and its `default` is documented). These schemas validate what a producer may write (a client's
 * task envelope, a stored record from before a field existed, the model's tool arguments); the
 * output side would mark every defaulted field required and refuse documents the parser accepts.
 */
const jsonSchema = (schema: z.ZodType): Record<string, unknown> =>
  z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;

const document = (header: Record<string, unknown>, body: Record<string, unknown>): object =>
  sortKeys({ ...body, ...header }) as object;

/** The text of a schema file: two-space JSON with a trailing newline. */
export const serializeSchema = (schema: object): string => `${JSON.stringify(schema, null, 2)}\n`;

const INTERNAL_SCHEMAS: ReadonlyArray<{ file: string; title: string; schema: z.ZodType }> = [
  {
    file: 'task-extension.v1.json',
    title: 'tiny-harness task extension',
    schema: TaskExtensionSchema,
  },
  {
    file: 'status-extension.v1.json',
    title: 'tiny-harness status extension',
    schema: StatusExtensionSchema,
  },
  {
    file: 'event-envelope.v1.json',
    title: 'tiny-harness event envelope',
    schema: EventEnvelopeSchema,
  },
  {
    file: 'control-payload.v1.json',
    title: 'tiny-harness control envelope payload',
    schema: ControlPayloadSchema,
  },
  { file: 'turn-ref.v1.json', title: 'tiny-harness turn reference', schema: TurnRefSchema },
  { file: 'route.v1.json', title: 'tiny-harness turn route', schema: RouteSchema },
  { file: 'task-view.v1.json', title: 'tiny-harness task view', schema: TaskViewSchema },
  { file: 'web-config.v1.json', title: 'tiny-harness web configuration', schema: WebConfigSchema },
];

export const TIMELINE_SCHEMA_ID =
  'https://madarauchiha-314.github.io/tiny-harness/a2a/ext/audit/v1/timeline.json';

/** Every generated schema file, in a fixed order. */
export const publishedSchemas = (): PublishedSchema[] => [
  {
    path: 'docs/a2a/ext/task.json',
    schema: document(
      { $id: TASK_SCHEMA_ID, title: 'tiny-harness task extension' },
      jsonSchema(TaskExtensionSchema)
    ),
  },
  {
    path: 'docs/a2a/ext/timeline.json',
    schema: document(
      { $id: TIMELINE_SCHEMA_ID, title: 'tiny-harness audit timeline' },
      jsonSchema(TimelineSchema)
    ),
  },
  ...INTRINSICS.map((tool) => ({
    path: `docs/a2a/ext/intrinsics/${tool.name}.json`,
    // Exactly the parameters the model is shown (toolParameters), plus identification.
    schema: document(
      {
        $schema: DIALECT,
        $id: `${INTRINSIC_SCHEMA_BASE}${tool.name}.json`,
        title: tool.name,
        description: tool.description,
      },
      toolParameters(tool.input)
    ),
  })),
  ...INTERNAL_SCHEMAS.map(({ file, title, schema }) => ({
    path: `schemas/${file}`,
    schema: document({ title }, jsonSchema(schema)),
  })),
];

export const SCHEMAS_README_PATH = 'schemas/README.md';

export const SCHEMAS_README = `# schemas/

Generated; do not edit. Regenerate with \`npm run schemas\` (scripts/generate-schemas.ts).

JSON Schema 2020-12 of the zod schemas in \`functions/core\`, the single source. Each file
describes the input side: a field with a default may be omitted. A contract test
(test/contract/schemas-drift.test.ts) fails when a file here no longer matches its zod schema.

| File | zod schema | What it is |
|---|---|---|
| task-extension.v1.json | TaskExtensionSchema | \`Task.metadata["io.github.madarauchiha-314.tiny-harness/task"]\` (also published as docs/a2a/ext/task.json) |
| status-extension.v1.json | StatusExtensionSchema | \`Task.metadata["io.github.madarauchiha-314.tiny-harness/status"]\`: the sub-state while parked |
| event-envelope.v1.json | EventEnvelopeSchema | the data part of media type application/vnd.tiny-harness.event+json |
| control-payload.v1.json | ControlPayloadSchema | the payload of a \`control\` envelope |
| turn-ref.v1.json | TurnRefSchema | what travels between states of the turn state machine |
| route.v1.json | RouteSchema | the route a state returns: which state runs next |
| task-view.v1.json | TaskViewSchema | a task as both renderers show it, and as \`tiny-harness tasks\`, \`watch\` and \`send\` print it with \`--json\` |
| web-config.v1.json | WebConfigSchema | what the web renderer reads at \`/config.json\`: the A2A URL and how to sign in |

The audit extension's timeline (GetTaskTimeline, \`tiny-harness audit --json\`) is published as
docs/a2a/ext/timeline.json.

The web renderer's TypeScript types and validators are generated from these files (and
docs/a2a/ext/timeline.json) into web/src/generated/ by scripts/generate-web-schemas.mjs.
`;
