import { Readable } from 'node:stream';
import type { StreamLeases } from '../../functions/adapters/streams/dynamodb-stream-leases.js';
import { createA2aHandler } from '../../functions/handlers/a2a.js';
import { withBrowserOrigin } from '../../functions/handlers/browser-origin.js';
import { capStreamsPerCaller } from '../../functions/handlers/stream-cap.js';
import { A2aService } from '../../functions/service/a2a-service.js';
import { inMemoryRuntime, lambdaContext } from '../functions/support.js';
import { apiGatewayEvent } from '../support/api-gateway.js';
import { authorizationFor } from '../support/identity.js';
import type { FuzzTarget } from './target.js';

/** Stream leases in a map: the cap is the deployed one, its store the process's. */
class MapStreamLeases implements StreamLeases {
  readonly #held = new Map<string, Set<string>>();
  async acquire(caller: string, leaseId: string, limit: number): Promise<boolean> {
    const held = this.#held.get(caller) ?? new Set<string>();
    if (held.size >= limit) return false;
    this.#held.set(caller, held.add(leaseId));
    return true;
  }
  async release(caller: string, leaseId: string): Promise<void> {
    this.#held.get(caller)?.delete(leaseId);
  }
}

const readAll = async (body: Readable): Promise<string> => {
  let text = '';
  for await (const chunk of body) text += typeof chunk === 'string' ? chunk : String(chunk);
  return text;
};

/**
 * The A2A handler the Lambda runs (with the stream cap and the browser-origin wrapper), on the
 * in-memory runtime: no model runs and no execution starts, so a blocking send and a stream end
 * at once, on their timers, and each request costs about a millisecond.
 */
export const inProcessTarget = (): FuzzTarget => {
  const { runtime, logs } = inMemoryRuntime();
  const service = new A2aService(runtime, {
    blockingTimeoutMs: 5,
    pollIntervalMs: 1,
    stream: { pollIntervalMs: 1, keepAliveMs: 60_000, maxDurationMs: 15 },
  });
  const leases = new MapStreamLeases();
  const handler = withBrowserOrigin(
    () => undefined,
    createA2aHandler(
      () => runtime,
      () => service
    ).use(
      capStreamsPerCaller(
        () => runtime,
        () => leases
      )
    )
  );
  return {
    callers: { caller: 'alice', other: 'bob' },
    // The audit read model reads execution histories from Step Functions, which is not here.
    servesAudit: false,
    async send(request, as = 'caller') {
      const response = await handler(
        apiGatewayEvent({
          httpMethod: request.method,
          path: request.path,
          headers: { ...request.headers, ...authorizationFor(as === 'caller' ? 'alice' : 'bob') },
          queryStringParameters: request.query,
          multiValueQueryStringParameters: request.multiQuery,
          body: request.body,
        }),
        lambdaContext('A2aFunction')
      );
      const headers = (response.headers ?? {}) as Record<string, string>;
      if (response.body instanceof Readable) {
        return {
          status: response.statusCode,
          headers,
          body: await readAll(response.body),
          streamed: true,
        };
      }
      return { status: response.statusCode, headers, body: response.body, streamed: false };
    },
    footprint: async (world) => {
      const records = await runtime.loop.store.list({ participantId: 'alice' });
      const sum = (of: (record: (typeof records)[number]) => number) =>
        records.reduce((total, record) => total + of(record), 0);
      const configs = await Promise.all(
        [...world.openTasks, ...world.cancelable].map((id) => runtime.pushConfigs.list(id))
      );
      return [
        records.length,
        sum((record) => record.version),
        sum((record) => record.eventSeq),
        sum((record) => record.inboxCount),
        configs.reduce((total, list) => total + list.length, 0),
      ].join('/');
    },
    errorLogs: () => logs().filter((line) => line.level === 'error'),
    close: async () => undefined,
  };
};
