/**
 * A fetch that sends the active span's W3C `traceparent` (and `tracestate`): every A2A call to a
 * remote agent carries it, so the agent's spans join or link to the trace that called it. With no
 * active span (tracing off) the propagator writes nothing. The API is imported on the first call
 * rather than with this module: the remote agents' adapter is in every bundle that calls an agent,
 * and a bundle without tracing (tracing.ts) then holds none of it.
 */
export const fetchWithTraceparent = (base: typeof fetch): typeof fetch => {
  // Written out for esbuild to fold (tracing.ts): without tracing, the fetch as it is.
  if (globalThis.tinyHarnessBundledTracing ?? true) {
    return async (input, init) => {
      const carrier = (await import('./inject.js')).traceHeaders();
      if (Object.keys(carrier).length === 0) return base(input, init);
      const headers = new Headers(
        init?.headers ?? (input instanceof Request ? input.headers : undefined)
      );
      for (const [name, value] of Object.entries(carrier)) headers.set(name, value);
      return base(input, { ...init, headers });
    };
  }
  return base;
};
