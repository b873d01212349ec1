import { join } from 'node:path';
import { NOTES_TOOLS } from './notes-server.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
/** The sample server's stdio entry point, run with tsx as `npm start` runs itself. */
export const NOTES_STDIO_ENTRY = join(import.meta.dirname, 'notes-stdio.ts');

/**
 * `TINY_HARNESS_MCP_SERVERS` when the user configured none: the sample notes server on stdio,
 * every tool offered, the default approval policy (its `delete_note` waits for the reporter's or
 * an admin's approval). Its notes go to TINY_HARNESS_NOTES_FILE, else the data directory's
 * `notes.json`; with no data directory (`--in-memory`) they stay in memory.
 */
export const sampleMcpServers = (
  dataDir: string | undefined,
  env: Record<string, string | undefined>
): string => {
  const file = env.TINY_HARNESS_NOTES_FILE || (dataDir && join(dataDir, 'notes.json'));
  return JSON.stringify({
    notes: {
      command: process.execPath,
      args: ['--import', 'tsx', NOTES_STDIO_ENTRY],
      cwd: ROOT,
      env: file ? { TINY_HARNESS_NOTES_FILE: file } : {},
      tools: NOTES_TOOLS,
    },
  });
};

/** The banner's line about the sample server, or undefined when servers are configured. */
export const SAMPLE_TOOLS_LINE =
  'notes, the sample MCP server (functions/local/sample-mcp/): try "note buy milk", "notes", then "delete note n1": a destructive call, it waits for your approval';
