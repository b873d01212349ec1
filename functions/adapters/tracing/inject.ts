import { context, propagation } from '@opentelemetry/api';

/** The active span's W3C headers (`traceparent`, `tracestate`); none without an active span. */
export const traceHeaders = (): Record<string, string> => {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
};
