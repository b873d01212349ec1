import middy from '@middy/core';
import { registrationAgents } from '../composition/remote-agents.js';
import { parseRemoteAgents } from '../composition/remote-agents-config.js';

/**
 * Registration of the remote agents at deployment (a CDK trigger runs it whenever the directory
 * changes): each agent's card is read, and an agent whose card offers no interface the harness
 * can call fails the deployment, named, as `npm start` refuses to start. An agent that does not
 * answer yet does not (it may be deployed after us): its card is read when it is first called.
 */
export const registerRemoteAgents = async (directory: string | undefined) => {
  const registrations = await registrationAgents(parseRemoteAgents(directory)).register();
  const refused = registrations.flatMap((registration) =>
    registration.outcome === 'refused' ? [registration.reason] : []
  );
  if (refused.length > 0) throw new Error(refused.join('; '));
  return registrations.map((registration) =>
    registration.outcome === 'ready'
      ? { agent: registration.agent, outcome: 'ready', binding: registration.card.binding }
      : { agent: registration.agent, outcome: registration.outcome, reason: registration.reason }
  );
};

export const handler = middy(async () => {
  const registrations = await registerRemoteAgents(process.env.TINY_HARNESS_REMOTE_AGENTS);
  console.log(
    JSON.stringify({ level: 'info', message: 'remote agents registered', registrations })
  );
  return registrations;
});
