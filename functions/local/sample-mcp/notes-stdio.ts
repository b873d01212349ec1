import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { notesServer } from './notes-server.js';

/**
 * The sample notes server on stdio, as `npm start` runs it when no MCP server is configured. Its
 * notes live in TINY_HARNESS_NOTES_FILE (npm start: the data directory), or in memory.
 */
const file = process.env.TINY_HARNESS_NOTES_FILE || undefined;
await notesServer({ file }).connect(new StdioServerTransport());
