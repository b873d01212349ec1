import { context, propagation } from '@opentelemetry/api';

/**
 * A fetch that sends the active span's W3C `traceparent` (and `tracestate`): every A2A call to a
 * remote agent carries it, so the agent's spans join or link to the trace that called it. With no
 * active span (tracing off) the propagator writes nothing.
 */
export const fetchWithTraceparent =
  (base: typeof fetch): typeof fetch =>
  (input, init) => {
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    if (Object.keys(carrier).length === 0) return base(input, init);
    const headers = new Headers(
      init?.headers ?? (input instanceof Request ? input.headers : undefined)
    );
    for (const [name, value] of Object.entries(carrier)) headers.set(name, value);
    return base(input, { ...init, headers });
  };
