import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../../functions/adapters/model/demo-model.js';
import type { ModelRequest } from '../../../functions/core/ports/model.js';

const request = (input: ModelRequest['input']): ModelRequest => ({
  instructions: '<role>you are the assignee</role>',
  input,
  tools: [],
  cacheKey: 't-1',
  maxOutputTokens: 100,
});

const CONTEXT =
  '<task>\nname: hi\n</task>\n<plan>\nnone\n</plan>\n<state_summary>\nAlice said hello.\n</state_summary>';

describe('the demo model', () => {
  it("says back the participant's last words", async () => {
    const reply = await new DemoModel().invoke(
      request([
        { type: 'message', role: 'user', text: CONTEXT },
        { type: 'message', role: 'user', text: 'Hello!' },
      ])
    );
    expect(reply.text).toBe(
      '(demo model) I received: Hello!\nConfigure a model provider for real answers.'
    );
  });

  it("never echoes the harness's own context markup, even when only the context is left", async () => {
    const reply = await new DemoModel().invoke(
      request([
        {
          type: 'message',
          role: 'user',
          text: `${CONTEXT}\n${'x'.repeat(300_000)}\n</state_summary>`,
        },
      ])
    );
    expect(reply.text).not.toMatch(/<\/?[a-z_]+>/);
    expect(reply.text).toContain('I received your message.');
  });

  it('skips markup lines around framed text and cuts a long line', async () => {
    const reply = await new DemoModel().invoke(
      request([
        { type: 'message', role: 'user', text: CONTEXT },
        {
          type: 'message',
          role: 'user',
          text: `<untrusted source="agent">\n${'y'.repeat(500)}\n</untrusted>`,
        },
      ])
    );
    expect(reply.text).toContain(`I received: ${'y'.repeat(200)}…`);
    expect(reply.text).not.toContain('untrusted');
  });
});
