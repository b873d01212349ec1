import fc from 'fast-check';
import { TASK_EXTENSION_URI } from '../../functions/core/a2a/identifiers.js';
import { AUDIT_JSON_RPC_METHOD } from '../../functions/core/audit/identifiers.js';
import { parsePath, withoutValueAt, withValueAt } from './json-path.js';
import { OPERATIONS, type Operation } from './operations.js';
import type { FuzzWorld } from './world.js';
import { WRONG_JSON, WRONG_QUERY } from './wrong-values.js';

/**
 * The requests the fuzzer sends: an A2A operation's params over either binding, valid, with one
 * field of a clearly wrong type, or mangled (any JSON anywhere, unknown and duplicated fields,
 * deep nesting, many parts, a broken JSON-RPC envelope, odd headers, paths and query strings).
 */

export type Binding = 'JSON-RPC' | 'HTTP+JSON';

export interface FuzzRequest {
  binding: Binding;
  operation: string;
  /** How the request was made, for the report. */
  mutation: string;
  method: string;
  path: string;
  query: Record<string, string> | null;
  /** Parameters given more than once, as API Gateway passes them. */
  multiQuery: Record<string, string[]> | null;
  headers: Record<string, string>;
  body: string | null;
  /** The field given a clearly wrong type: the request must be refused with InvalidParams. */
  wrongTyped?: string;
}

type Params = Record<string, unknown>;

/** A params mutation: the params as changed, and the field it gave a wrong type, if any. */
interface Mutated {
  mutation: string;
  params: unknown;
  wrongTyped?: string;
  /** For HTTP+JSON query fields: the text each wrong-typed field carries. */
  queryOverride?: Record<string, string>;
}

/** The fields whose values are any JSON: a data part, metadata, an envelope's payload. */
const DEEP_PATHS = [
  'message.parts[0].data',
  'message.parts[0].data.payload.description',
  'message.metadata.x',
  'message.parts[0].metadata.x',
  'metadata.x',
] as const;

const DEEP = /"@@deep-(\d+)-(object|array)@@"/g;
/** A marker the encoder swaps for JSON nested that deep (too deep for JSON.stringify to write). */
const deepMarker = (depth: number, kind: 'object' | 'array') => `@@deep-${depth}-${kind}@@`;
const expandDeep = (json: string) =>
  json.replace(DEEP, (_, depth: string, kind: string) => {
    const levels = Number(depth);
    return kind === 'array'
      ? `${'['.repeat(levels)}"x"${']'.repeat(levels)}`
      : `${'{"a":'.repeat(levels)}"x"${'}'.repeat(levels)}`;
  });

const restPathFields = (operation: Operation) => new Set(operation.rest.pathFields);

/** The fields that can carry a wrong type on this binding (a path segment is always text). */
const typedFor = (operation: Operation, binding: Binding) =>
  operation.typed.filter((field) => {
    if (binding === 'JSON-RPC') return true;
    if (restPathFields(operation).has(parsePath(field.path)[0] as string)) return false;
    return operation.rest.carries === 'body' || WRONG_QUERY[field.kind] !== undefined;
  });

const wrongType = (operation: Operation, binding: Binding, params: Params) => {
  const fields = typedFor(operation, binding);
  if (fields.length === 0) return fc.constant<Mutated>({ mutation: 'valid', params });
  return fc.constantFrom(...fields).chain((field) => {
    const inQuery = binding === 'HTTP+JSON' && operation.rest.carries === 'query';
    if (inQuery) {
      return fc.constantFrom(...(WRONG_QUERY[field.kind] ?? [])).map(
        (text): Mutated => ({
          mutation: 'wrong-type',
          params,
          wrongTyped: field.path,
          queryOverride: { [field.path]: text },
        })
      );
    }
    return fc.constantFrom(...WRONG_JSON[field.kind]).map(
      (value): Mutated => ({
        mutation: 'wrong-type',
        params: withValueAt(params, field.path, value),
        wrongTyped: field.path,
      })
    );
  });
};

const anyPath = (operation: Operation) =>
  fc.oneof(
    fc.constantFrom(...operation.typed.map((field) => field.path), 'message.parts[1]', 'x'),
    fc.string({ minLength: 1, maxLength: 6 }).map((key) => key.replace(/[.[\]]/g, '_'))
  );

const mangle = (operation: Operation, params: Params): fc.Arbitrary<Mutated> =>
  fc.oneof(
    fc.tuple(anyPath(operation), fc.jsonValue({ maxDepth: 3 })).map(([path, value]) => ({
      mutation: 'any-value',
      params: withValueAt(params, path, value),
    })),
    fc.constantFrom(...operation.typed.map((field) => field.path)).map((path) => ({
      mutation: 'missing-field',
      params: withoutValueAt(params, path),
    })),
    fc
      .tuple(
        fc.oneof(
          fc.constantFrom(...operation.typed.map((field) => field.path)),
          // Where a client's JSON goes as it is: what the edge does not check, the core walks.
          fc.constantFrom(...DEEP_PATHS)
        ),
        fc.constantFrom(10, 60, 64, 65, 70, 500, 3_000, 20_000),
        fc.constantFrom('object' as const, 'array' as const)
      )
      .map(([path, depth, kind]) => ({
        mutation: `deep-${depth}`,
        params: withValueAt(params, path, deepMarker(depth, kind)),
      })),
    fc.constantFrom(99, 100, 101, 1_000, 5_000).map((count) => ({
      mutation: `parts-${count}`,
      params: withValueAt(
        params,
        'message.parts',
        Array.from({ length: count }, (_, index) => ({ text: `p${index}` }))
      ),
    })),
    fc.constantFrom(...operation.typed.map((field) => field.path)).map((path) => {
      const snake = path.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
      return { mutation: 'both-names', params: withValueAt(params, snake, 'x') };
    }),
    fc
      .constantFrom<unknown>(null, [], 'params', 42, [params], true)
      .map((whole) => ({ mutation: 'params-not-object', params: whole }))
  );

const mutated = (operation: Operation, binding: Binding, params: Params) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant<Mutated>({ mutation: 'valid', params }) },
    { weight: 4, arbitrary: wrongType(operation, binding, params) },
    { weight: 3, arbitrary: mangle(operation, params) }
  );

const JSON_HEADERS = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };

/** Headers a client may get wrong, one at a time. */
const oddHeaders = fc.oneof(
  fc.record({
    'A2A-Extensions': fc.constantFrom(
      TASK_EXTENSION_URI,
      `${TASK_EXTENSION_URI}, ${TASK_EXTENSION_URI}`,
      'https://example.com/unknown/v1',
      ' , ,',
      '',
      'x'.repeat(5_000)
    ),
  }),
  fc.record({ 'A2A-Version': fc.constantFrom('0.3', '1.0 ', '', '2.0', '1', '1.0, 1.0') }),
  fc.record({
    'Content-Type': fc.constantFrom(
      'text/plain',
      '',
      'application/json; charset=utf-8',
      'application/a2a+json',
      'multipart/form-data; boundary=x',
      ';;'
    ),
  }),
  fc.record({
    'Last-Event-ID': fc.constantFrom('abc', '-1', '0', '5', '99999999999999999999', ' ', '1.5'),
  })
);

const encodeQuery = (fields: Params): Record<string, string> =>
  Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : JSON.stringify(value),
    ])
  );

const jsonRpcRequest = (operation: Operation, change: Mutated, id: unknown): FuzzRequest => ({
  binding: 'JSON-RPC',
  operation: operation.name,
  mutation: change.mutation,
  method: 'POST',
  path: '/',
  query: null,
  multiQuery: null,
  headers: { ...JSON_HEADERS },
  body: expandDeep(
    JSON.stringify({ jsonrpc: '2.0', id, method: operation.name, params: change.params })
  ),
  ...(change.wrongTyped === undefined ? {} : { wrongTyped: change.wrongTyped }),
});

const restRequest = (operation: Operation, original: Params, change: Mutated): FuzzRequest => {
  const { rest } = operation;
  const params =
    typeof change.params === 'object' && change.params !== null && !Array.isArray(change.params)
      ? (change.params as Params)
      : undefined;
  // The path comes from the valid params: a mangled path field goes in the body or the query.
  const path = rest.path(original);
  const carried = Object.fromEntries(
    Object.entries(params ?? {}).filter(([name]) => !rest.pathFields.includes(name))
  );
  const inQuery = rest.carries === 'query';
  return {
    binding: 'HTTP+JSON',
    operation: operation.name,
    mutation: change.mutation,
    method: rest.method,
    path,
    query: inQuery ? { ...encodeQuery(carried), ...change.queryOverride } : null,
    multiQuery: null,
    headers: { ...JSON_HEADERS },
    body: inQuery ? null : expandDeep(JSON.stringify(params ?? change.params)),
    ...(change.wrongTyped === undefined ? {} : { wrongTyped: change.wrongTyped }),
  };
};

const operationRequest = (world: FuzzWorld) =>
  fc
    .tuple(fc.constantFrom(...OPERATIONS), fc.constantFrom<Binding>('JSON-RPC', 'HTTP+JSON'))
    .chain(([operation, binding]) =>
      operation
        .params(world)
        .chain((params) =>
          fc.tuple(
            fc.constant(params),
            mutated(operation, binding, params),
            fc.oneof(fc.integer(), fc.uuid()),
            fc.oneof(
              { weight: 9, arbitrary: fc.constant(undefined) },
              { weight: 1, arbitrary: oddHeaders }
            )
          )
        )
        .map(([params, change, id, headers]) => {
          const request =
            binding === 'JSON-RPC'
              ? jsonRpcRequest(operation, change, id)
              : restRequest(operation, params, change);
          if (headers === undefined) return request;
          // An odd header may be refused first: the wrong-typed field is then not what answers.
          const { wrongTyped: _, ...rest } = request;
          return {
            ...rest,
            mutation: `${request.mutation}+header`,
            headers: { ...request.headers, ...headers },
          };
        })
    );

/** A JSON-RPC request whose envelope (or body) is what is wrong. */
const brokenJsonRpc = fc
  .oneof(
    fc.constantFrom(
      '',
      'null',
      '[]',
      '{',
      'not json',
      '"SendMessage"',
      '{"jsonrpc":"2.0"}',
      '\uFEFF{}'
    ),
    fc
      .record({
        jsonrpc: fc.constantFrom<unknown>('2.0', '1.0', 2, undefined),
        id: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined)),
        method: fc.constantFrom<unknown>(
          'SendMessage',
          'message/send',
          'tasks/get',
          AUDIT_JSON_RPC_METHOD,
          'constructor',
          '__proto__',
          'toString',
          '',
          5,
          null
        ),
        params: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(undefined)),
      })
      .map((envelope) => JSON.stringify(envelope)),
    fc
      .array(fc.constant({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }), {
        minLength: 1,
        maxLength: 3,
      })
      .map((batch) => JSON.stringify(batch))
  )
  .map(
    (body): FuzzRequest => ({
      binding: 'JSON-RPC',
      operation: 'envelope',
      mutation: 'broken-envelope',
      method: 'POST',
      path: '/',
      query: null,
      multiQuery: null,
      headers: { ...JSON_HEADERS },
      body,
    })
  );

/** An HTTP+JSON request to an odd path, with an odd method or a repeated query parameter. */
const oddRest = (world: FuzzWorld) =>
  fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'),
      path: fc.oneof(
        fc.constantFrom(
          '/tasks/%E0%A4%A',
          '/tasks/%00',
          `/tasks/${'x'.repeat(300)}`,
          `/tasks/${world.openTasks[0]}/pushNotificationConfigs/%2F`,
          '/tasks//pushNotificationConfigs',
          '/message:send/',
          '/v1/message:send',
          '/.well-known/agent-card.json',
          '/tasks/a:b:cancel'
        ),
        fc.string({ maxLength: 20 }).map((tail) => `/tasks/${encodeURIComponent(tail)}`),
        ...(world.servesAudit ? [fc.constant(`/tasks/${world.openTasks[0]}:timeline`)] : [])
      ),
      query: fc.option(fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })), {
        nil: null,
      }),
      repeated: fc.option(fc.constantFrom('historyLength', 'pageSize', 'subTasks', 'id'), {
        nil: undefined,
      }),
      body: fc.option(
        fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
        {
          nil: null,
        }
      ),
    })
    .map(
      ({ method, path, query, repeated, body }): FuzzRequest => ({
        binding: 'HTTP+JSON',
        operation: 'route',
        mutation: repeated === undefined ? 'odd-route' : 'repeated-query',
        method,
        path,
        query: repeated === undefined ? query : { ...query, [repeated]: '2' },
        multiQuery: repeated === undefined ? null : { [repeated]: ['1', '2'] },
        headers: { ...JSON_HEADERS },
        body,
      })
    );

/** Every request the fuzzer sends, against a world that exists. */
export const fuzzRequests = (world: FuzzWorld): fc.Arbitrary<FuzzRequest> =>
  fc.oneof(
    { weight: 16, arbitrary: operationRequest(world) },
    { weight: 2, arbitrary: brokenJsonRpc },
    { weight: 2, arbitrary: oddRest(world) }
  );
