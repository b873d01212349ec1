import { SpanKind, trace } from '@opentelemetry/api';
import type { ToolRunner } from '../../core/ports/tool-runner.js';
import { GEN_AI, HARNESS } from './attributes.js';
import { type ActiveTracing, within } from './tracing.js';

/** An MCP tool's name is `<server>__<tool>` (mcp-tool-runner.ts): the server is the part before. */
const serverOf = (name: string): string | undefined => {
  const at = name.indexOf('__');
  return at > 0 ? name.slice(0, at) : undefined;
};

/** Attempts per call seen by this process: the invoker retries an idempotent call through `run`. */
const KEPT_CALLS = 1_000;

/**
 * The external tools with a client span per attempt (`tools/call <name>`): tool, server, outcome
 * and attempt. The step running the call is its `execute_tool` span (the turn-step handler's);
 * the outcome is set there too, so a tool's result reads off the conventions' span.
 */
export const tracedToolRunner = (runner: ToolRunner, tracing: ActiveTracing): ToolRunner => {
  const attempts = new Map<string, number>();
  return {
    tools: () => runner.tools(),
    run: (name, args, callContext) => {
      const attempt = (attempts.get(callContext.callId) ?? 0) + 1;
      if (attempts.size >= KEPT_CALLS) attempts.delete(attempts.keys().next().value as string);
      attempts.set(callContext.callId, attempt);
      const server = serverOf(name);
      const step = trace.getActiveSpan();
      const span = tracing.tracer.startSpan(`tools/call ${name}`, {
        kind: SpanKind.CLIENT,
        attributes: {
          'mcp.method.name': 'tools/call',
          [GEN_AI.toolName]: name,
          [GEN_AI.toolCallId]: callContext.callId,
          [HARNESS.toolAttempt]: attempt,
          ...(server === undefined ? {} : { [HARNESS.toolServer]: server }),
          ...(tracing.captureContent
            ? { 'gen_ai.tool.call.arguments': tracing.redact(JSON.stringify(args)) }
            : {}),
        },
      });
      return within(tracing, span, async () => {
        const result = await runner.run(name, args, callContext).catch((error: unknown) => {
          step?.setAttribute(HARNESS.toolOutcome, 'failed');
          throw error;
        });
        const outcome = result.isError ? 'error' : 'ok';
        span.setAttribute(HARNESS.toolOutcome, outcome);
        if (tracing.captureContent) {
          span.setAttribute('gen_ai.tool.call.result', tracing.redact(result.output));
        }
        step?.setAttributes({
          [HARNESS.toolOutcome]: outcome,
          [HARNESS.toolAttempt]: attempt,
          ...(server === undefined ? {} : { [HARNESS.toolServer]: server }),
        });
        return result;
      });
    },
  };
};
