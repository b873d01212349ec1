import { appendFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { notesServer } from './mcp-notes-server.js';

/**
 * The notes server on stdio, as a stack's configuration starts it (`command`). Each call is
 * appended to NOTES_CALLS_FILE (one JSON line) so a test counts the calls the server ran.
 */
const callsFile = process.env.NOTES_CALLS_FILE;
const server = notesServer((call) => {
  if (callsFile !== undefined) appendFileSync(callsFile, `${JSON.stringify(call)}\n`);
});
await server.connect(new StdioServerTransport());
