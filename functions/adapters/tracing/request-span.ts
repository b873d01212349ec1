import { propagation, ROOT_CONTEXT, type Span, SpanKind } from '@opentelemetry/api';
import { HARNESS } from './attributes.js';
import { type Tracing, within } from './tracing.js';

type Headers_ = Record<string, string | undefined> | null | undefined;

/** A header by name, whatever its case (API Gateway keeps the client's). */
const headerGetter = {
  keys: (carrier: Headers_) => Object.keys(carrier ?? {}),
  get: (carrier: Headers_, key: string) => {
    const entries = Object.entries(carrier ?? {});
    return entries.find(([name]) => name.toLowerCase() === key)?.[1];
  },
};

/**
 * An incoming A2A request as a server span, a child of the caller's `traceparent` when it sent
 * one: a task it creates or a message it brings is linked from here (tracedTaskStore).
 */
export const inRequestSpan = async <T>(
  tracing: Tracing,
  headers: Headers_,
  run: (span: Span | undefined) => Promise<T>
): Promise<T> => {
  // Written out for esbuild to fold (tracing.ts): without tracing, only the return below.
  if ((globalThis.tinyHarnessBundledTracing ?? true) && tracing.enabled) {
    const parent = propagation.extract(ROOT_CONTEXT, headers, headerGetter);
    const span = tracing.tracer.startSpan(
      'a2a request',
      { kind: SpanKind.SERVER, attributes: { [HARNESS.a2aOperation]: 'unknown' } },
      parent
    );
    return within(tracing, span, () => run(span));
  }
  return run(undefined);
};

/** The request's span named by the operation it turned out to be (`a2a SendMessage`). */
export const nameRequest = (
  span: Span | undefined,
  operation: string | undefined,
  status: number
): void => {
  if (span === undefined) return;
  span.updateName(`a2a ${operation ?? 'request'}`);
  span.setAttributes({
    [HARNESS.a2aOperation]: operation ?? 'unknown',
    [HARNESS.a2aStatus]: status,
    'rpc.system': 'a2a',
    ...(operation === undefined ? {} : { 'rpc.method': operation }),
  });
};
