import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A model for the fault-injection suite, served over the OpenAI Chat Completions wire format so
 * the stack under test uses its real provider adapter. Its answer is a pure function of the
 * conversation it is given, so a model call repeated after a crash answers exactly as the lost
 * one would have: a task's script is the same however often its process is killed.
 *
 * The script, per task: on `FAULT-GO` it plans two steps (Alpha, Beta), completes Alpha, and
 * says "Step Alpha done."; on `FAULT-CONTINUE` it completes Beta and says "All done.".
 */

interface ChatMessage {
  role: string;
  content?: string | null | Array<{ type: string; text?: string }>;
}

const textOf = (message: ChatMessage | undefined): string => {
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => part.text ?? '').join('');
  return '';
};

export const EXPECTED_REPLIES = { go: 'Step Alpha done.', continue: 'All done.' } as const;

/** A reply: a tool call (name, arguments) or text. */
type Move = { call: string; arguments: unknown } | { text: string };

const SCRIPT: Record<'go' | 'continue', Move[]> = {
  go: [
    {
      call: 'create_plan',
      arguments: {
        steps: [
          { name: 'Alpha', description: 'the first step' },
          { name: 'Beta', description: 'the second step', depends_on: ['Alpha'] },
        ],
      },
    },
    { call: 'complete_step', arguments: { step: 'Alpha', output: 'alpha output' } },
    { text: EXPECTED_REPLIES.go },
  ],
  continue: [
    { call: 'complete_step', arguments: { step: 'Beta', output: 'beta output' } },
    { text: EXPECTED_REPLIES.continue },
  ],
};

/** The script's move for a conversation: where the last FAULT message stands, and how far past it. */
export const moveFor = (messages: ChatMessage[]): { move: Move; key: string } | undefined => {
  let last = -1;
  messages.forEach((message, index) => {
    if (message.role === 'user' && /FAULT-(GO|CONTINUE)/.test(textOf(message))) last = index;
  });
  if (last < 0) return undefined;
  const phase = textOf(messages[last]).includes('FAULT-CONTINUE') ? 'continue' : 'go';
  const done = messages.slice(last + 1).filter((message) => message.role === 'tool').length;
  const move = SCRIPT[phase][done];
  const tag = /task-tag:(\S+)/.exec(textOf(messages[last]))?.[1] ?? 'unknown';
  return move === undefined ? undefined : { move, key: `${tag}:${phase}:${done}` };
};

export interface FaultModel {
  /** The base URL for TINY_HARNESS_MODEL_BASE_URL. */
  url: string;
  /** Every call, by script position (`<task tag>:<phase>:<step>`): more than one is a call lost to a crash. */
  calls: Map<string, number>;
  close(): Promise<void>;
}

export const startFaultModel = async (options: { delayMs: () => number }): Promise<FaultModel> => {
  const calls = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        messages: ChatMessage[];
        tools?: Array<{ function: { name: string } }>;
      };
      const found = moveFor(body.messages);
      const answer = () => {
        if (res.destroyed) return;
        const move = found?.move ?? { text: 'the fault script has no move here' };
        if (found) calls.set(found.key, (calls.get(found.key) ?? 0) + 1);
        const toolName = (name: string) =>
          body.tools?.find((tool) => tool.function.name.includes(name))?.function.name ?? name;
        const message =
          'text' in move
            ? { role: 'assistant', content: move.text }
            : {
                role: 'assistant',
                content: null,
                tool_calls: [
                  {
                    id: `call-${found?.key.replaceAll(':', '-') ?? 'x'}`,
                    type: 'function',
                    function: {
                      name: toolName(move.call),
                      arguments: JSON.stringify(move.arguments),
                    },
                  },
                ],
              };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-fault',
            object: 'chat.completion',
            created: 0,
            model: 'fault-model',
            choices: [{ index: 0, message, finish_reason: 'text' in move ? 'stop' : 'tool_calls' }],
            usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
          })
        );
      };
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, options.delayMs());
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    calls,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
