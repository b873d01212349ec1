import * as z from 'zod';
import { RoleSchema } from '../../task/extension.schema.js';
import { defineIntrinsic, refuse } from '../tool.js';
import { isParticipant } from './step-argument.js';

export const SetParticipantRoleInputSchema = z.strictObject({
  participant_id: z.string().min(1),
  role: RoleSchema,
});

export const setParticipantRole = defineIntrinsic({
  name: 'set_participant_role',
  description: "Change a participant's role; only an admin may do this.",
  input: SetParticipantRoleInputSchema,
  idempotent: true,
  run: (args, { extension, actor }) => {
    const actorIsAdmin = extension.participants.some(
      (participant) => participant.id === actor && participant.role === 'admin'
    );
    if (!actorIsAdmin) return refuse('channel.not_a_member', 'only an admin may change roles');
    if (!isParticipant(extension, args.participant_id)) {
      return refuse('channel.not_a_member', 'no such participant on this task');
    }
    return {
      ok: true,
      command: { kind: 'set_role', participantId: args.participant_id, role: args.role },
      result: `${args.participant_id} is now ${args.role}`,
    };
  },
});
