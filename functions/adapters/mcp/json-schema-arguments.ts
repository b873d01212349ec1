import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ToolArguments } from '../../core/ports/tool-runner.js';

export type JsonSchemaValidator = InstanceType<typeof Ajv2020.default>;

/**
 * One validator per process: MCP tools describe their arguments in JSON Schema (2020-12 by the
 * specification's default). Defaults are filled in, as the model's JSON Schema promises.
 */
export const jsonSchemaValidator = (): JsonSchemaValidator => {
  const ajv = new Ajv2020.default({ allErrors: true, strict: false, useDefaults: true });
  addFormats.default(ajv);
  return ajv;
};

/**
 * A tool's arguments checked by its own JSON Schema. Compiled once (at listing); a schema the
 * validator cannot compile throws there, so a tool that could never be checked is never offered.
 */
export const jsonSchemaArguments = (
  validator: JsonSchemaValidator,
  schema: Record<string, unknown>
): ToolArguments => {
  // The dialect is the validator's; the model is shown the schema without it.
  const { $schema: _dialect, ...parameters } = schema;
  const validate = validator.compile(parameters);
  return {
    parameters,
    parse: (value) => {
      // The validator fills defaults in place: it works on a copy of what the model sent.
      const copy = structuredClone(value);
      if (validate(copy)) return { ok: true, value: copy };
      const problems = (validate.errors ?? []).map(
        (error) => `${error.instancePath || '(arguments)'} ${error.message ?? 'is invalid'}`
      );
      return { ok: false, message: problems.join('; ') };
    },
  };
};
