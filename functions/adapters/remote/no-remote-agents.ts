import type { RemoteAgent, RemoteAgents } from '../../core/ports/remote-agents.js';

/**
 * The remote agents of a function that names them but calls none: `list` and `get` answer from
 * the roster, and every call is refused with `reason`, a bug said as such. The function's bundle
 * and role hold neither the agents' A2A client nor their credentials.
 */
export const rosterOnly = (roster: readonly RemoteAgent[], reason: string): RemoteAgents => {
  const byId = new Map(roster.map((agent) => [agent.id, agent]));
  const refuse = async (): Promise<never> => {
    throw new Error(reason);
  };
  return {
    list: () => roster,
    get: (agent) => byId.get(agent),
    register: refuse,
    card: refuse,
    send: refuse,
    getTask: refuse,
    cancelTask: refuse,
    findTask: refuse,
  };
};

/**
 * The remote agents of a function that calls none (the A2A, stream and reconcile functions): a
 * remote child is created by the tool step and followed, and cancelled, by its follow function.
 * Their links and followers are still the loop's; their cards, credentials and SDK are not.
 */
export const NO_REMOTE_AGENTS: RemoteAgents = rosterOnly(
  [],
  'this function calls no remote agent: only the tool step and the remote follow and push functions are given their credentials'
);
