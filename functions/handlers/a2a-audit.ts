/**
 * The audit extension's two doors (docs/a2a/audit.md): the JSON-RPC method
 * `tiny-harness/GetTaskTimeline` and `GET /tasks/{id}:timeline`. The A2A entry point asks these
 * first; anything else is the A2A bindings' own.
 */
import * as z from 'zod';
import { AUDIT_JSON_RPC_METHOD, AUDIT_REST_SUFFIX } from '../core/audit/identifiers.js';
import { A2aError, toA2aError } from '../service/a2a-errors.js';
import { taskTimeline } from '../service/audit-timeline.js';
import { callsMethod, ExtensionRequestSchema, invalidParams } from './a2a/extension-request.js';
import type { JsonRpcReply } from './a2a/json-rpc.js';
import { jsonRpcFailure } from './a2a/json-rpc.js';
import type { RestReply } from './a2a/rest-request.js';
import { restFailure } from './a2a/rest-request.js';

type Audit = Parameters<typeof taskTimeline>[0];

const ParamsSchema = z.strictObject({
  id: z.string().min(1),
  /** Follow sub-tasks on this harness (default true). */
  subTasks: z.boolean().optional(),
});

/** Whether a JSON-RPC body calls the extension's method (read before any A2A dispatch). */
export const isAuditJsonRpc = (body: string): boolean =>
  callsMethod(body, new Set([AUDIT_JSON_RPC_METHOD]));

export const answerAuditJsonRpc = async (
  body: string,
  caller: string,
  audit: Audit
): Promise<JsonRpcReply> => {
  const request = ExtensionRequestSchema.safeParse(JSON.parse(body));
  if (!request.success) {
    return jsonRpcFailure(null, new A2aError('InvalidRequest', 'not a JSON-RPC 2.0 request'));
  }
  const id = request.data.id ?? null;
  const operation = AUDIT_JSON_RPC_METHOD;
  const params = ParamsSchema.safeParse(request.data.params);
  if (!params.success) return { ...jsonRpcFailure(id, invalidParams(params.error)), operation };
  try {
    const timeline = await taskTimeline(audit, {
      taskId: params.data.id,
      caller,
      subTasks: params.data.subTasks ?? true,
    });
    return { status: 200, body: { jsonrpc: '2.0', id, result: timeline }, operation };
  } catch (error) {
    return { ...jsonRpcFailure(id, toA2aError(error)), operation };
  }
};

const ROUTE = new RegExp(`^/tasks/([^/:]+)${AUDIT_REST_SUFFIX}$`);

/** The task id of `GET /tasks/{id}:timeline`, or undefined for any other request. */
export const auditRouteTaskId = (method: string, path: string): string | undefined => {
  if (method !== 'GET') return undefined;
  const segment = ROUTE.exec(path)?.[1];
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
};

export const answerAuditRest = async (
  taskId: string,
  query: Readonly<Record<string, string | undefined>>,
  caller: string,
  audit: Audit
): Promise<RestReply> => {
  const operation = 'GetTaskTimeline';
  const subTasks = query.subTasks;
  if (subTasks !== undefined && subTasks !== 'true' && subTasks !== 'false') {
    return {
      ...restFailure(new A2aError('InvalidParams', 'subTasks must be true or false')),
      operation,
    };
  }
  try {
    const timeline = await taskTimeline(audit, { taskId, caller, subTasks: subTasks !== 'false' });
    return { status: 200, body: timeline, operation };
  } catch (error) {
    return { ...restFailure(toA2aError(error)), operation };
  }
};
