import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';

/** Every call the server ran, in order: what the tests count. */
export type NotesCall = { tool: string; args: unknown };

/**
 * A small notes store served over MCP with the official SDK: a read tool, an idempotent write, a
 * non-idempotent append, a destructive delete, a tool that fails and one that answers too much.
 */
export const notesServer = (onCall: (call: NotesCall) => void = () => undefined): McpServer => {
  const notes = new Map<string, string>();
  let appended = 0;
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  const record = (tool: string, args: unknown) => onCall({ tool, args });

  server.registerTool(
    'get_note',
    {
      description: 'Reads a note by its id.',
      inputSchema: { id: z.string().min(1) },
      annotations: { readOnlyHint: true },
    },
    async ({ id }) => {
      record('get_note', { id });
      const text = notes.get(id);
      return text === undefined
        ? { content: [{ type: 'text', text: `no note ${id}` }], isError: true }
        : { content: [{ type: 'text', text }], structuredContent: { id, text } };
    }
  );
  server.registerTool(
    'put_note',
    {
      description: 'Writes a note under its id (the same call twice leaves the same note).',
      inputSchema: { id: z.string().min(1), text: z.string().max(1_000) },
      annotations: { readOnlyHint: false, idempotentHint: true },
    },
    async ({ id, text }) => {
      record('put_note', { id, text });
      notes.set(id, text);
      return { content: [{ type: 'text', text: `saved ${id}` }] };
    }
  );
  server.registerTool(
    'append_note',
    {
      description: 'Adds a note under a new id (each call adds one).',
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: false, idempotentHint: false },
    },
    async ({ text }) => {
      record('append_note', { text });
      appended += 1;
      notes.set(`n${appended}`, text);
      return { content: [{ type: 'text', text: `added n${appended}` }] };
    }
  );
  server.registerTool(
    'delete_note',
    {
      description: 'Deletes a note.',
      inputSchema: { id: z.string().min(1) },
      annotations: { readOnlyHint: false, destructiveHint: true },
    },
    async ({ id }) => {
      record('delete_note', { id });
      return { content: [{ type: 'text', text: notes.delete(id) ? 'deleted' : 'absent' }] };
    }
  );
  server.registerTool(
    'dump',
    {
      description: 'Answers with as many characters as asked.',
      inputSchema: { size: z.int().min(0) },
      annotations: { readOnlyHint: true },
    },
    async ({ size }) => {
      record('dump', { size });
      return { content: [{ type: 'text', text: 'x'.repeat(size) }] };
    }
  );
  return server;
};
