import type { RemoteAgents } from '../../core/ports/remote-agents.js';

const refuse = async (): Promise<never> => {
  throw new Error(
    'this function calls no remote agent: only the turn step and the remote follow and push functions are given their credentials'
  );
};

/**
 * The remote agents of a function that calls none (the A2A, stream and reconcile functions): a
 * remote child is created by the turn step and followed, and cancelled, by its follow function.
 * Their links and followers are still the loop's; their cards, credentials and SDK are not, so
 * the function's bundle and role hold neither. A call reaching this is a bug, said as such.
 */
export const NO_REMOTE_AGENTS: RemoteAgents = {
  list: () => [],
  get: () => undefined,
  register: refuse,
  card: refuse,
  send: refuse,
  getTask: refuse,
  cancelTask: refuse,
  findTask: refuse,
};
