import { type Message, Role, TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EVENT_MEDIA_TYPE,
  STATUS_METADATA_KEY,
  TASK_METADATA_KEY,
} from '../../functions/core/a2a/identifiers.js';
import type { LocalStack } from '../../functions/local/local-stack.js';
import {
  chatBody,
  type FakeOpenAiServer,
  startFakeOpenAiServer,
} from '../support/fake-openai-server.js';
import { asTask, clientFor, startStack } from '../support/local-stack.js';

let counter = 0;
const message = (parts: Message['parts'], taskId = '', contextId = ''): Message => ({
  messageId: `e2e-openai-${Date.now()}-${++counter}`,
  contextId,
  taskId,
  role: Role.ROLE_USER,
  parts,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

const send = (value: Message) => ({
  tenant: '',
  message: value,
  configuration: undefined,
  metadata: undefined,
});

interface ChatRequestBody {
  model: string;
  messages: Array<{ role: string; content?: string | null; tool_call_id?: string }>;
  tools: Array<{ type: string; function: { name: string } }>;
}

describe('npm start against an OpenAI-compatible server (TINY_HARNESS_MODEL_PROVIDER=openai-chat)', () => {
  let server: FakeOpenAiServer;
  let stack: LocalStack | undefined;

  beforeAll(async () => {
    server = await startFakeOpenAiServer();
    stack = await startStack({
      env: {
        TINY_HARNESS_MODEL_PROVIDER: 'openai-chat',
        TINY_HARNESS_MODEL: 'local-model',
        TINY_HARNESS_MODEL_BASE_URL: server.url,
      },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await server?.close();
  });

  it('plans, completes the step and answers through the real SDK and wire format; a control completes the task', async () => {
    server.reply(
      chatBody({
        calls: [
          {
            id: 'call_plan',
            name: 'create_plan',
            arguments: { steps: [{ name: 'Gather facts', description: 'Collect the sources' }] },
          },
        ],
      }),
      chatBody({
        calls: [
          {
            id: 'call_step',
            name: 'complete_step',
            arguments: { step: 'Gather facts', output: 'Three sources found.' },
          },
        ],
      }),
      chatBody({ text: 'Facts gathered. Anything else?' })
    );
    const alice = await clientFor(stack!, 'alice');

    const parked = asTask(
      await alice.sendMessage(
        send(
          message([
            {
              content: { $case: 'text', value: 'research the topic' },
              metadata: undefined,
              filename: '',
              mediaType: 'text/plain',
            },
          ])
        )
      )
    );

    expect(parked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(parked.metadata?.[STATUS_METADATA_KEY]).toEqual({ sub_state: 'awaiting-next-message' });
    expect(parked.status?.message?.parts[0]?.content).toEqual({
      $case: 'text',
      value: 'Facts gathered. Anything else?',
    });
    const extension = parked.metadata?.[TASK_METADATA_KEY] as {
      plan: { steps: Array<{ name: string; state: string; output: string | null }> } | null;
    };
    expect(extension.plan?.steps).toEqual([
      expect.objectContaining({
        name: 'Gather facts',
        state: 'done',
        output: 'Three sources found.',
      }),
    ]);

    // Three Chat Completions calls, each offering the tools, each carrying the earlier results.
    const requests = server.requests;
    expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual(
      Array(3).fill('POST /v1/chat/completions')
    );
    const bodies = requests.map((request) => request.body as ChatRequestBody);
    for (const body of bodies) {
      expect(body.model).toBe('local-model');
      expect(body.messages[0]?.role).toBe('system');
      expect(body.tools.map((tool) => tool.function.name)).toEqual(
        expect.arrayContaining(['create_plan', 'complete_step'])
      );
    }
    const toolResults = (body: ChatRequestBody) =>
      body.messages.filter((entry) => entry.role === 'tool').map((entry) => entry.tool_call_id);
    expect(bodies.map(toolResults)).toEqual([[], ['call_plan'], ['call_plan', 'call_step']]);
    expect(JSON.stringify(bodies[0]?.messages)).toContain('research the topic');

    const completed = asTask(
      await alice.sendMessage(
        send(
          message(
            [
              {
                content: {
                  $case: 'data',
                  value: { kind: 'control', payload: { action: 'complete' } },
                },
                metadata: undefined,
                filename: '',
                mediaType: EVENT_MEDIA_TYPE,
              },
            ],
            parked.id,
            parked.contextId
          )
        )
      )
    );
    expect(completed.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // Completing is the participant's decision: no further model call.
    expect(server.requests).toHaveLength(3);
  }, 60_000);
});
