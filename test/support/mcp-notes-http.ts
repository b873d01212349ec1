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
 * OAuth 2.0 token endpoint (`/token`, client credentials) issued and has not revoked.
 */
export const startNotesOverHttp = async () => {
  const calls: NotesCall[] = [];
  const authorizations: Array<string | undefined> = [];
  const tokenRequests: Array<{ authorization: string | undefined; body: string }> = [];
  const issued = new Set<string>();
  const server = notesServer((call) => calls.push(call));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await server.connect(transport);
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
    close: async () => {
      await server.close();
      await new Promise((resolve) => http.close(resolve));
    },
  };
};
