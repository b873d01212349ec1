import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';

/** One call the server ran: what a journal keeps and the tests count. */
export type NotesCall = { tool: string; args: unknown };

export interface NotesServerOptions {
  /** A JSON file the notes are kept in (read at start, written on each change); unset: memory. */
  file?: string | undefined;
  /** Told of every call the server runs, before it runs. */
  onCall?: (call: NotesCall) => void;
  /** The notes, shared by several server instances (one per HTTP request); unset: its own. */
  notes?: Map<string, string>;
}

const readNotes = (file: string | undefined): Map<string, string> => {
  if (file === undefined || !existsSync(file)) return new Map();
  const parsed = z.record(z.string(), z.string()).parse(JSON.parse(readFileSync(file, 'utf8')));
  return new Map(Object.entries(parsed));
};

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/**
 * The sample MCP server `npm start` runs when no server is configured (and the tests use): a
 * notes store on the official SDK with a tool of each kind an approval policy tells apart. Two
 * read-only tools, an idempotent write, a write that adds a note on each call, and a destructive
 * delete, which the default policy makes wait for a participant's approval.
 */
export const notesServer = (options: NotesServerOptions = {}): McpServer => {
  const notes = options.notes ?? readNotes(options.file);
  const save = () => {
    if (options.file !== undefined) {
      writeFileSync(options.file, `${JSON.stringify(Object.fromEntries(notes), null, 2)}\n`);
    }
  };
  const record = (tool: string, args: unknown) => options.onCall?.({ tool, args });
  const server = new McpServer({ name: 'notes', version: '1.0.0' });

  server.registerTool(
    'list_notes',
    {
      description: 'Lists the ids of every note, with its first line.',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    async () => {
      record('list_notes', {});
      if (notes.size === 0) return text('no notes');
      return text(
        [...notes].map(([id, note]) => `${id}: ${note.split('\n', 1)[0] ?? ''}`).join('\n')
      );
    }
  );
  server.registerTool(
    'get_note',
    {
      description: 'Reads a note by its id.',
      inputSchema: { id: z.string().min(1) },
      annotations: { readOnlyHint: true },
    },
    async ({ id }) => {
      record('get_note', { id });
      const note = notes.get(id);
      return note === undefined
        ? { ...text(`no note ${id}`), isError: true }
        : { ...text(note), structuredContent: { id, text: note } };
    }
  );
  server.registerTool(
    'put_note',
    {
      description: 'Writes a note under its id (the same call twice leaves the same note).',
      inputSchema: { id: z.string().min(1).max(64), text: z.string().max(1_000) },
      annotations: { readOnlyHint: false, idempotentHint: true, destructiveHint: false },
    },
    async ({ id, text: note }) => {
      record('put_note', { id, text: note });
      notes.set(id, note);
      save();
      return text(`saved ${id}`);
    }
  );
  server.registerTool(
    'append_note',
    {
      description: 'Adds a note under a new id (each call adds one).',
      inputSchema: { text: z.string().max(1_000) },
      annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: false },
    },
    async ({ text: note }) => {
      record('append_note', { text: note });
      let id = notes.size + 1;
      while (notes.has(`n${id}`)) id += 1;
      notes.set(`n${id}`, note);
      save();
      return text(`added n${id}`);
    }
  );
  server.registerTool(
    'delete_note',
    {
      description: 'Deletes a note for good.',
      inputSchema: { id: z.string().min(1) },
      annotations: { readOnlyHint: false, destructiveHint: true },
    },
    async ({ id }) => {
      record('delete_note', { id });
      const deleted = notes.delete(id);
      save();
      return text(deleted ? `deleted ${id}` : `no note ${id}: nothing deleted`);
    }
  );
  return server;
};

/** The sample server's tools, all offered by `npm start`'s default configuration. */
export const NOTES_TOOLS = ['list_notes', 'get_note', 'put_note', 'append_note', 'delete_note'];
