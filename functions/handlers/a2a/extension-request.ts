/**
 * What the extensions' JSON-RPC methods (the audit's, the fork's) share: telling their bodies
 * apart before any A2A dispatch, the request's envelope, and how a params error is said.
 */
import * as z from 'zod';
import { A2aError } from '../../service/a2a-errors.js';

export const ExtensionRequestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
  method: z.string(),
  params: z.unknown(),
});

/** Whether a JSON-RPC body calls one of `methods` (read before any A2A dispatch). */
export const callsMethod = (body: string, methods: ReadonlySet<string>): boolean => {
  try {
    const method = (JSON.parse(body) as { method?: unknown } | null)?.method;
    return typeof method === 'string' && methods.has(method);
  } catch {
    return false;
  }
};

/** A params error, naming the first field refused. */
export const invalidParams = (error: z.ZodError): A2aError => {
  const issue = error.issues[0];
  return new A2aError(
    'InvalidParams',
    `invalid params: ${issue?.path.join('.') || 'params'}: ${issue?.message ?? ''}`
  );
};
