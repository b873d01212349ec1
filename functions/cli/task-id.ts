/**
 * A task id as a person types it: whole, or its first characters (the 8 the audit prints), which
 * name the one task of the caller's whose id starts with them.
 */
import { listTaskViews } from '../view/task-list.js';
import { CliError } from './cli-error.js';
import type { Agent } from './connection.js';

const WHOLE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Enough for any one person's tasks; a prefix is looked up among them. */
const LISTED = 10_000;

export const resolveTaskId = async (
  agent: Pick<Agent, 'client' | 'view'>,
  id: string
): Promise<string> => {
  if (WHOLE_ID.test(id)) return id;
  let ids: string[];
  try {
    ids = (await listTaskViews(agent.client, agent.view, { limit: LISTED })).map((view) => view.id);
  } catch (error) {
    // An agent that lists no tasks: the id goes to it as typed, and it says whether it knows it.
    if (error instanceof CliError) throw error;
    return id;
  }
  if (ids.includes(id)) return id;
  const matches = ids.filter((candidate) => candidate.startsWith(id));
  if (matches.length === 1) return matches[0] as string;
  if (matches.length === 0) {
    throw new CliError(`task not found: none of your tasks has an id that starts with ${id}`);
  }
  throw new CliError(
    `${id} is ambiguous: ${matches.length} of your tasks start with it (${matches.slice(0, 3).join(', ')}${matches.length > 3 ? ', …' : ''}): type more of the id`
  );
};
