import { rosterOnly } from '../adapters/remote/no-remote-agents.js';
import type { RemoteAgent, RemoteAgents } from '../core/ports/remote-agents.js';
import type { RemoteAgentConfig } from './remote-agents-config.js';
import type { RuntimeConfig } from './runtime-config.js';

/** A configured remote agent as the loop reads it: who it is and how its children are followed. */
export const rosterEntryOf = (id: string, agent: RemoteAgentConfig): RemoteAgent => ({
  id,
  description: agent.description,
  push: agent.push,
  policy: {
    pollSeconds: agent.pollSeconds,
    maxPollSeconds: agent.maxPollSeconds,
    unreachableSeconds: agent.unreachableSeconds,
  },
});

/**
 * The remote agents by name only (TINY_HARNESS_REMOTE_AGENTS): what the turn step needs to offer
 * them to the model. A child is created on one by the tool step, which holds the A2A client and
 * their credentials; this never reads a card or a secret.
 */
export const remoteAgentRoster = (config: RuntimeConfig): RemoteAgents =>
  rosterOnly(
    Object.entries(config.TINY_HARNESS_REMOTE_AGENTS).map(([id, agent]) =>
      rosterEntryOf(id, agent)
    ),
    'the turn step calls no remote agent: a child is created on one by the tool step'
  );
