import { ParticipantsRefusedError } from '../errors.js';
import { MAX_PARTICIPANTS, type Participant } from './extension.schema.js';

/** The roles a client creating a task may give itself. */
const CREATOR_ROLES: readonly Participant['role'][] = ['reporter', 'admin'];

const refuse = (index: number, participant: Participant, why: string): never => {
  throw new ParticipantsRefusedError(`participants[${index}] (${participant.id}): ${why}`);
};

/** Refuses a list naming one id twice: one person with two roles has no single answer to "who". */
export const requireDistinctIds = (participants: readonly Participant[]): void => {
  const seen = new Set<string>();
  for (const [index, participant] of participants.entries()) {
    if (seen.has(participant.id)) refuse(index, participant, 'named twice');
    seen.add(participant.id);
  }
};

export const requireWithinCap = (count: number): void => {
  if (count > MAX_PARTICIPANTS) {
    throw new ParticipantsRefusedError(
      `a task has at most ${MAX_PARTICIPANTS} participants; this would have ${count}`
    );
  }
};

/**
 * The participants of a task a client creates. Naming someone puts the task in their list and,
 * with a role that acts, gives them a say (or a duty) they did not ask for, so a creator may name
 * itself as reporter or admin (reporter when it does not name itself), this agent only as the
 * assignee (it always is: a task a client starts is the agent's work), and anyone else only as a
 * watcher, who reads and comments and changes nothing. An admin gives others other roles later,
 * on the record (a task envelope, audited).
 */
export const newTaskParticipants = (
  named: readonly Participant[],
  creator: { sender: string; agentId: string }
): Participant[] => {
  const { sender, agentId } = creator;
  requireDistinctIds(named);
  for (const [index, participant] of named.entries()) {
    if (participant.id === sender) {
      if (!CREATOR_ROLES.includes(participant.role)) {
        refuse(index, participant, 'the creator of a task joins as its reporter or an admin');
      }
    } else if (participant.id === agentId) {
      if (participant.role !== 'assignee' || participant.kind !== 'agent') {
        refuse(index, participant, `the agent ${agentId} is the task's assignee, as an agent`);
      }
    } else if (participant.role !== 'watcher') {
      refuse(
        index,
        participant,
        'a new task names others only as watchers (an admin may give them another role later)'
      );
    }
  }
  const participants = [...named];
  if (!participants.some(({ id }) => id === sender)) {
    participants.unshift({ id: sender, kind: 'human', role: 'reporter', display_name: '' });
  }
  if (!participants.some(({ id }) => id === agentId)) {
    participants.push({ id: agentId, kind: 'agent', role: 'assignee', display_name: '' });
  }
  requireWithinCap(participants.length);
  return participants;
};
