/**
 * What `ajv` and `ajv-formats` resolve to in a Lambda bundle that holds the MCP client
 * (cdk/constructs/harness-function.ts, `mcpBundling`). The SDK's client imports Ajv for its default
 * validator, which it builds only when given none; the harness always gives it its own
 * (json-schema-arguments.ts), so Ajv's ~160 KB stay out of the bundle.
 */
export default function ajvLeftOut(): never {
  throw new Error(
    'Ajv is not in this Lambda bundle: the MCP client is given the harness’s JSON Schema validator'
  );
}
