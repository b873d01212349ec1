import { type OutputUnit, type Schema, type SchemaDraft, Validator } from '@cfworker/json-schema';
import type {
  JsonSchemaType,
  JsonSchemaValidator as SdkValidator,
  jsonSchemaValidator as SdkValidatorProvider,
} from '@modelcontextprotocol/sdk/validation/types.js';
import type { ToolArguments } from '../../core/ports/tool-runner.js';

/** The dialect a schema names by `$schema`; MCP's default (none named) is 2020-12. */
const draftOf = (schema: Record<string, unknown>): SchemaDraft => {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (dialect.includes('draft-04')) return '4';
  if (dialect.includes('draft-07') || dialect.includes('draft-06')) return '7';
  if (dialect.includes('2019-09')) return '2019-09';
  return '2020-12';
};

/**
 * Errors that only say a child failed (`Property "id" does not match schema.`): the child's own
 * error says why, so these are dropped when it is there.
 */
const SUMMARY_KEYWORDS = new Set(['properties', 'items', 'prefixItems', 'false']);

const problemsOf = (errors: readonly OutputUnit[]): string => {
  const leaves = errors.filter((error) => !SUMMARY_KEYWORDS.has(error.keyword));
  return (leaves.length > 0 ? leaves : errors)
    .map((error) => `${error.instanceLocation.replace(/^#/, '') || '(arguments)'} ${error.error}`)
    .join('; ');
};

/**
 * The one JSON Schema validator of the MCP client: @cfworker/json-schema (drafts 4 to 2020-12,
 * formats included), which interprets a schema instead of generating code, and is a twentieth of
 * Ajv's size in a Lambda bundle. It is given to the SDK's client too (its check of a tool's
 * structured output), so the SDK's default validator is never built (cdk/lambda-bundle.ts
 * leaves it out of the bundle).
 */
export class JsonSchemaChecker implements SdkValidatorProvider {
  /** Every error, not the first: the model is told all that is wrong with its arguments at once. */
  check(schema: Record<string, unknown>): (value: unknown) => string | undefined {
    const validator = new Validator(schema as Schema, draftOf(schema), false);
    return (value) => {
      const result = validator.validate(value);
      return result.valid ? undefined : problemsOf(result.errors);
    };
  }

  getValidator<T>(schema: JsonSchemaType): SdkValidator<T> {
    const check = this.check(schema as Record<string, unknown>);
    return (input) => {
      const problems = check(input);
      return problems === undefined
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: problems };
    };
  }
}

/**
 * A tool's arguments checked by its own JSON Schema. A schema the validator cannot read (not an
 * object schema, a `$ref` that leads nowhere) throws here, at listing, so a tool that could never
 * be checked is never offered. Arguments are sent as the model wrote them: the server applies its
 * own defaults.
 */
export const jsonSchemaArguments = (
  checker: JsonSchemaChecker,
  schema: Record<string, unknown>
): ToolArguments => {
  if (schema.type !== 'object') throw new Error('an input schema is an object schema');
  const check = checker.check(schema);
  // A schema whose references do not resolve fails on its first use: use it once now.
  check({});
  // The dialect is the validator's; the model is shown the schema without it.
  const { $schema: _dialect, ...parameters } = schema;
  return {
    parameters,
    parse: (value) => {
      const problems = check(value);
      return problems === undefined ? { ok: true, value } : { ok: false, message: problems };
    },
  };
};
