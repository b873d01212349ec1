import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HistoryEventLike } from '../../functions/core/audit/execution-history.js';

/** One GetExecutionHistory answer as the service sends it on the wire (awsJson1_0). */
export interface RecordedPage {
  events: Array<Record<string, unknown>>;
  nextToken?: string;
}

/** An event in the service's wire form: epoch seconds with milliseconds, no absent fields. */
export const cloudWireEvent = (event: HistoryEventLike): Record<string, unknown> => {
  const timestamp =
    event.timestamp instanceof Date
      ? event.timestamp.getTime()
      : typeof event.timestamp === 'number'
        ? event.timestamp * 1000
        : Date.parse(event.timestamp);
  return JSON.parse(JSON.stringify({ ...event, timestamp: timestamp / 1000 })) as Record<
    string,
    unknown
  >;
};

/** A history cut into the pages GetExecutionHistory would return for `pageSize`. */
export const recordPages = (
  events: readonly HistoryEventLike[],
  pageSize: number
): RecordedPage[] => {
  const pages: RecordedPage[] = [];
  for (let start = 0; start < events.length; start += pageSize) {
    const page: RecordedPage = {
      events: events.slice(start, start + pageSize).map(cloudWireEvent),
    };
    if (start + pageSize < events.length)
      page.nextToken = Buffer.from(`page-${pages.length + 1}`).toString('base64');
    pages.push(page);
  }
  return pages;
};

/**
 * A Step Functions endpoint that answers GetExecutionHistory from recorded pages (by execution
 * ARN, in order, following nextToken) and nothing else: what the SDK client meets in the cloud.
 */
export const serveRecordedHistories = async (
  recorded: ReadonlyMap<string, RecordedPage[]>
): Promise<{ endpoint: string; requests: number; close(): Promise<void> }> => {
  const state = { requests: 0 };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      state.requests++;
      const target = request.headers['x-amz-target'];
      const input = JSON.parse(body || '{}') as { executionArn?: string; nextToken?: string };
      const pages = recorded.get(input.executionArn ?? '');
      const reply = (status: number, json: unknown) => {
        response.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.0' });
        response.end(JSON.stringify(json));
      };
      if (target !== 'AWSStepFunctions.GetExecutionHistory') {
        reply(400, { __type: 'UnknownOperationException', message: String(target) });
        return;
      }
      if (pages === undefined) {
        reply(400, { __type: 'ExecutionDoesNotExist', message: 'Execution Does Not Exist' });
        return;
      }
      const index =
        input.nextToken === undefined
          ? 0
          : Number(Buffer.from(input.nextToken, 'base64').toString().replace('page-', ''));
      reply(200, pages[index] ?? { events: [] });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    close: () => new Promise((done) => server.close(() => done())),
  };
};
