import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type NotesCall, notesServer } from './mcp-notes-server.js';

/**
 * The notes server over Streamable HTTP on loopback, stateless: each POST is served by a fresh
 * server over the same notes, so any number of clients (a stack, the same stack restarted after a
 * crash) may connect. Every call it runs is in `calls`, in order: what the tests count.
 */
export const serveNotesOverHttp = async () => {
  const calls: NotesCall[] = [];
  const notes = new Map<string, string>();
  const http = createServer((request, response) => {
    // Stateless: no stream for server-initiated messages, no session to end.
    if (request.method !== 'POST') {
      response.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    const server = notesServer((call) => calls.push(call), notes);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    void server
      .connect(transport)
      .then(() => transport.handleRequest(request, response))
      .catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    notes,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
};
