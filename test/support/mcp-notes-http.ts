import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type NotesCall, notesServer } from './mcp-notes-server.js';

export const TOKEN = 'mcp-secret-token-1234567890';
export const CLIENT_ID = 'harness';
export const CLIENT_SECRET = 'client-secret-0987654321';

/**
 * The notes server on loopback over Streamable HTTP, behind a bearer token: `TOKEN`, or one its
 * OAuth 2.0 token endpoint (`/token`, client credentials) issued and has not revoked. Each
 * client's session is its own server (as a real multi-client server keeps them); a request of a
 * session it does not hold (ended: `endSessions`) is answered 404, as MCP says.
 */
export const startNotesOverHttp = async () => {
  const calls: NotesCall[] = [];
  const authorizations: Array<string | undefined> = [];
  const tokenRequests: Array<{ authorization: string | undefined; body: string }> = [];
  const issued = new Set<string>();
  const sessions = new Map<string, ReturnType<typeof notesServer>>();
  const transports = new Map<string, StreamableHTTPServerTransport>();
  let initializations = 0;
  const openSession = async () => {
    initializations += 1;
    const server = notesServer((call) => calls.push(call));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, server);
        transports.set(id, transport);
      },
    });
    await server.connect(transport);
    return transport;
  };
  const issue = (request: IncomingMessage, response: ServerResponse, body: string) => {
    tokenRequests.push({ authorization: request.headers.authorization, body });
    const basic = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`;
    const form = new URLSearchParams(body);
    if (
      request.headers.authorization !== basic ||
      form.get('grant_type') !== 'client_credentials'
    ) {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end('{"error":"invalid_client"}');
      return;
    }
    const token = `access-${randomUUID()}`;
    issued.add(token);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600 }));
  };
  const http: Server = createServer((request, response) => {
    if (request.url === '/token') {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      request.on('end', () => issue(request, response, body));
      return;
    }
    authorizations.push(request.headers.authorization);
    const bearer = request.headers.authorization?.replace(/^Bearer /, '');
    if (bearer !== TOKEN && (bearer === undefined || !issued.has(bearer))) {
      response.writeHead(401).end();
      return;
    }
    const session = request.headers['mcp-session-id'];
    if (typeof session !== 'string') {
      void openSession().then((transport) => transport.handleRequest(request, response));
      return;
    }
    const transport = transports.get(session);
    if (transport === undefined) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(
        '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}'
      );
      return;
    }
    void transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    tokenUrl: `http://127.0.0.1:${port}/token`,
    calls,
    authorizations,
    tokenRequests,
    /** Every token issued so far stops working (as when they expire early). */
    revokeAll: () => issued.clear(),
    /** Sessions started (initialize requests). */
    initializations: () => initializations,
    /** The server forgets every session (as after a restart, or an idle timeout). */
    endSessions: async () => {
      const open = [...sessions.values()];
      sessions.clear();
      transports.clear();
      await Promise.all(open.map((server) => server.close()));
    },
    close: async () => {
      await Promise.all([...sessions.values()].map((server) => server.close()));
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
};
