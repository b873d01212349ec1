import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type NotesCall, notesServer } from './mcp-notes-server.js';

const bodyOf = async (request: IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
};

/** The tool a JSON-RPC body calls (`tools/call`), if it calls one. */
const calledTool = (body: unknown): string | undefined => {
  const message = body as { method?: string; params?: { name?: string } } | undefined;
  return message?.method === 'tools/call' ? message.params?.name : undefined;
};

/**
 * The notes server over Streamable HTTP on loopback, stateless: each POST is served by a fresh
 * server over the same notes, so any number of clients (a stack, the same stack restarted after a
 * crash) may connect. Every call it runs is in `calls`, in order: what the tests count. A call of
 * the `hold` tool waits, before it runs, until `release()`: `arrived` resolves when one comes.
 */
export const serveNotesOverHttp = async (options: { hold?: string } = {}) => {
  const calls: NotesCall[] = [];
  const notes = new Map<string, string>();
  let arrive: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const serve = async (
    request: IncomingMessage,
    response: Parameters<StreamableHTTPServerTransport['handleRequest']>[1]
  ) => {
    const body = await bodyOf(request);
    if (options.hold !== undefined && calledTool(body) === options.hold) {
      arrive();
      await released;
    }
    const server = notesServer((call) => calls.push(call), notes);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  };
  const http = createServer((request, response) => {
    // Stateless: no stream for server-initiated messages, no session to end.
    if (request.method !== 'POST') {
      response.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    serve(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    notes,
    arrived,
    release,
    close: () => {
      release();
      http.closeAllConnections();
      return new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
};
