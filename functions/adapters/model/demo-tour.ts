import type { ModelInputItem, ModelRequest, ModelToolCall } from '../../core/ports/model.js';

/**
 * The demo model's tour of the product, driven by the conversation alone (so a restart replays
 * it the same way): "plan <something>" makes a plan of three steps and gives the first to a
 * sub-task; the sub-task meets its acceptance criterion with evidence and answers; back in the
 * parent the step is done and the person is asked to choose; their answer finishes the plan.
 */

export type TourMove = { toolCalls: Omit<ModelToolCall, 'id'>[] } | { text: string };

export const QUESTION = 'Which idea shall I write up?';
const OPTIONS = ['the first', 'the second', 'the third'];
const STEPS = ['Gather ideas', 'Choose one', 'Write it up'] as const;
const CRITERION = 'Three ideas are listed';
/** How a child's goal names the topic, so the child can read it back from its own task. */
const GOAL_PREFIX = 'List three ideas for ';

const call = (name: string, args: object): Omit<ModelToolCall, 'id'> => ({
  name,
  arguments: JSON.stringify(args),
});

const cut = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/** The context message that opens every request: the task and its plan as tagged blocks. */
const contextOf = (request: ModelRequest): string => {
  const first = request.input[0];
  return first?.type === 'message' && first.role === 'user' ? first.text : '';
};

const offers = (request: ModelRequest, ...names: string[]) =>
  names.every((name) => request.tools.some((tool) => tool.name === name));

/** The calls of the model's last turn that the last tool result answers. */
const answeredCall = (input: readonly ModelInputItem[]): string | undefined => {
  const last = input.at(-1);
  if (last?.type !== 'tool_result') return undefined;
  const made = input.find((item) => item.type === 'tool_call' && item.callId === last.callId);
  return made?.type === 'tool_call' ? made.name : undefined;
};

/** Whether the plan (the context's `<plan>` block, `- [x] id: name`) has step `name` not done. */
const stepOpen = (context: string, name: string) => {
  const mark = new RegExp(`^- \\[(.)\\] \\S+: ${name}(?: \\(after| →|$)`, 'm').exec(context)?.[1];
  return mark !== undefined && mark !== 'x';
};

/** The ids of the task's unmet acceptance criteria, as the context lists them (`- [ ] c1: …`). */
const unmetCriteria = (context: string): string[] =>
  [...context.matchAll(/^- \[ \] (c\d+):/gm)].map((match) => match[1] as string);

/** The first thing the sub-task is told: make the plan's first step its own task. */
const startTour = (sender: string, topic: string): TourMove => ({
  toolCalls: [
    call('create_plan', {
      steps: [
        {
          name: STEPS[0],
          description: `Three ideas for ${topic}, gathered by a sub-task`,
          depends_on: [],
        },
        {
          name: STEPS[1],
          description: `${sender} chooses the idea to follow`,
          depends_on: [STEPS[0]],
        },
        {
          name: STEPS[2],
          description: 'A short write-up of the chosen idea',
          depends_on: [STEPS[1]],
        },
      ],
    }),
    call('spawn_subtask', {
      name: cut(`Gather ideas for ${topic}`, 80),
      goal: `${GOAL_PREFIX}${topic}`,
      acceptance_criteria: [CRITERION],
      step: STEPS[0],
    }),
  ],
});

const ideasFor = (topic: string) =>
  [
    `1. ${topic}, the short way`,
    `2. ${topic}, the thorough way`,
    `3. ${topic}, with a friend`,
  ].join('\n');

/** A sub-task with criteria to meet: meets each with evidence, then answers (and completes). */
const childMove = (
  request: ModelRequest,
  context: string,
  fresh: boolean
): TourMove | undefined => {
  if (!/^lifecycle: delegated$/m.test(context)) return undefined;
  const topic = /^goal: List three ideas for (.+)$/m.exec(context)?.[1];
  if (topic === undefined) return undefined;
  const unmet = unmetCriteria(context);
  if (fresh && unmet.length > 0 && offers(request, 'meet_criterion')) {
    return {
      toolCalls: unmet.map((criterion) =>
        call('meet_criterion', {
          criterion,
          evidence: `(demo model) my answer lists three ideas for ${topic}`,
        })
      ),
    };
  }
  if (answeredCall(request.input) === 'meet_criterion') {
    return { text: `(demo model) Three ideas for ${topic}:\n${ideasFor(topic)}` };
  }
  return undefined;
};

/** The person who said `text`, from the `[participant]` tag the transcript puts before it. */
const senderOf = (text: string) => /^\[([^\]]+)\]/.exec(text)?.[1];

/** The parent's moves: start, wait for the sub-task, ask, finish. */
const parentMove = (request: ModelRequest, context: string): TourMove | undefined => {
  const last = request.input.at(-1);
  const answered = answeredCall(request.input);
  if (answered === 'spawn_subtask') {
    return {
      text: `(demo model) I made a plan of three steps (${STEPS.join(' → ')}) and gave "${STEPS[0]}" to a sub-task, which must meet its acceptance criterion with evidence. I will ask you to choose when it reports back.`,
    };
  }
  if (answered === 'complete_step' || answered === 'meet_criterion') {
    if (stepOpen(context, STEPS[2])) return undefined;
    return {
      text: '(demo model) Done: every step of the plan is complete. Next, a tool call that waits for your approval: say "note buy milk", then "delete note n1".',
    };
  }
  if (last?.type !== 'message' || last.role !== 'user') return undefined;
  const done = /Sub-task (\S+) is TASK_STATE_(COMPLETED|FAILED|CANCELED|REJECTED): ?([\s\S]*)/.exec(
    last.text
  );
  if (done !== null && stepOpen(context, STEPS[0])) {
    const [, child, state = '', summary = ''] = done;
    if (state !== 'COMPLETED') {
      return {
        text: `(demo model) The sub-task ${child} ended ${state.toLowerCase()}: the plan stops here.`,
      };
    }
    const asker = /^- (\S+) \(human, reporter\)/m.exec(request.instructions)?.[1];
    const output = cut(summary.replace(/<\/untrusted>\s*$/, '').trim(), 500);
    return {
      toolCalls: [
        call('complete_step', {
          step: STEPS[0],
          output: output || 'ideas gathered by the sub-task',
        }),
        call('ask_participant', {
          participant_id: asker ?? 'you',
          question: QUESTION,
          options: OPTIONS,
        }),
      ],
    };
  }
  const reply = new RegExp(`Reply from (\\S+) to "${QUESTION.replace('?', '\\?')}": (.+)$`).exec(
    last.text
  );
  if (reply !== null && stepOpen(context, STEPS[1])) {
    const chosen = cut((reply[2] as string).trim(), 200);
    const criteria = offers(request, 'meet_criterion') ? unmetCriteria(context) : [];
    return {
      toolCalls: [
        call('complete_step', { step: STEPS[1], output: `${reply[1]} chose ${chosen}` }),
        call('complete_step', { step: STEPS[2], output: `(demo model) A write-up of ${chosen}.` }),
        ...criteria.map((criterion) =>
          call('meet_criterion', {
            criterion,
            evidence: `(demo model) the plan is done: ${reply[1]} chose ${chosen} and it is written up`,
            steps: [STEPS[2]],
          })
        ),
      ],
    };
  }
  const words = /^\[[^\]]+\]\s*plan\b\s*(.*)$/is.exec(last.text.trim());
  if (words !== null && offers(request, 'create_plan', 'spawn_subtask')) {
    const topic = cut((words[1] ?? '').trim() || 'your request', 120);
    return startTour(senderOf(last.text) ?? 'you', topic);
  }
  return undefined;
};

/** The tour's next move for this request, if the conversation is on it. */
export const tourMove = (request: ModelRequest): TourMove | undefined => {
  const context = contextOf(request);
  const last = request.input.at(-1);
  const fresh = last?.type === 'message' && last.role === 'user' && request.input.length > 1;
  return childMove(request, context, fresh) ?? parentMove(request, context);
};
