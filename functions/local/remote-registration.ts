import { buildRemoteAgents } from '../composition/remote-agents.js';
import { readRuntimeConfig } from '../composition/runtime-config.js';
import type { Registration } from '../core/ports/remote-agents.js';
import { StartOptionsError } from './start-options.js';

/** One remote agent as the banner shows it. */
export const describeRegistration = (registration: Registration): string => {
  if (registration.outcome === 'ready') {
    const { card } = registration;
    const delivery = registration.push ? 'push' : 'polled';
    return `${registration.agent}: A2A ${card.version} ${card.binding} at ${card.url} (${delivery})`;
  }
  // A refusal's reason names the agent already.
  if (registration.outcome === 'refused') return registration.reason;
  return `${registration.agent}: not reachable yet: ${registration.reason}`;
};

/**
 * `npm start` registers the remote agents before anything starts: an agent whose card offers no
 * interface the harness can call stops it (exit 2, named), as a bad setting does. One that does
 * not answer yet is not an error: two stacks that delegate to each other start one at a time,
 * and its card is read again when a child is first sent to it.
 */
export const checkRemoteAgents = async (env: NodeJS.ProcessEnv): Promise<Registration[]> => {
  const config = readRuntimeConfig({
    ...env,
    TINY_HARNESS_TABLE: 'tiny-harness-local',
    TINY_HARNESS_STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:local',
  });
  const registrations = await buildRemoteAgents(config).register();
  const refused = registrations.filter((registration) => registration.outcome === 'refused');
  if (refused.length > 0) {
    throw new StartOptionsError(
      refused.map((registration) => describeRegistration(registration)).join('; ')
    );
  }
  return registrations;
};
