import * as z from 'zod';
import {
  type NotesCall,
  notesServer as sampleNotesServer,
} from '../../functions/local/sample-mcp/notes-server.js';

export type { NotesCall };

/**
 * The sample notes server (functions/local/sample-mcp/) with one tool more for the tests: `dump`
 * answers with as many characters as asked (a result past the transcript's bound).
 */
export const notesServer = (
  onCall: (call: NotesCall) => void = () => undefined,
  notes?: Map<string, string>
) => {
  const server = sampleNotesServer({ onCall, ...(notes === undefined ? {} : { notes }) });
  server.registerTool(
    'dump',
    {
      description: 'Answers with as many characters as asked.',
      inputSchema: { size: z.int().min(0) },
      annotations: { readOnlyHint: true },
    },
    async ({ size }) => {
      onCall({ tool: 'dump', args: { size } });
      return { content: [{ type: 'text', text: 'x'.repeat(size) }] };
    }
  );
  return server;
};
