import * as z from 'zod';
import { defineIntrinsic, refuse } from '../tool.js';
import { isParticipant } from './step-argument.js';

export const AskParticipantInputSchema = z.strictObject({
  participant_id: z.string().min(1),
  question: z.string().min(1),
  options: z.array(z.string().min(1)).default([]).describe('Optional closed set of answers.'),
});

export const askParticipant = defineIntrinsic({
  name: 'ask_participant',
  description: 'Ask a participant for a small input, opinion or judgement call; the task waits.',
  input: AskParticipantInputSchema,
  idempotent: false,
  run: (args, { extension, askedThisTurn }) => {
    if (!isParticipant(extension, args.participant_id)) {
      return refuse('channel.not_a_member', 'no such participant on this task');
    }
    // The task can wait on one answer at a time; the reference silently kept only the last one.
    if (askedThisTurn) {
      return refuse('tool.refused', 'one question per turn: this question was not sent');
    }
    return {
      ok: true,
      command: {
        kind: 'wait_for_reply',
        participantId: args.participant_id,
        question: args.question,
        options: args.options,
      },
      result: `question sent to ${args.participant_id}; the task waits for the answer`,
    };
  },
});
