import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../../functions/adapters/model/demo-model.js';
import { frameUntrusted } from '../../../functions/core/loop/framing.js';
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

describe('the demo model with the sample notes server', () => {
  const NOTES_TOOLS = ['notes__append_note', 'notes__list_notes', 'notes__delete_note'].map(
    (name) => ({ name, description: name, parameters: {} })
  );
  const withNotes = (input: ModelRequest['input']): ModelRequest => ({
    ...request(input),
    tools: NOTES_TOOLS,
  });
  const said = (text: string): ModelRequest['input'] => [
    { type: 'message', role: 'user', text: CONTEXT },
    { type: 'message', role: 'user', text },
  ];

  it('calls the notes tools on a few words: note, notes, delete note', async () => {
    const model = new DemoModel();
    const calls = async (text: string) => (await model.invoke(withNotes(said(text)))).toolCalls;
    expect(await calls('[you] note buy milk')).toEqual([
      { id: expect.any(String), name: 'notes__append_note', arguments: '{"text":"buy milk"}' },
    ]);
    expect(await calls('[you] notes')).toMatchObject([{ name: 'notes__list_notes' }]);
    expect(await calls('[you] delete note n1')).toMatchObject([
      { name: 'notes__delete_note', arguments: '{"id":"n1"}' },
    ]);
    // Without the tools offered, the same words are only said back.
    expect((await model.invoke(request(said('[you] notes')))).toolCalls).toEqual([]);
  });

  it('says what the tool answered, and never calls again for the words it already acted on', async () => {
    const reply = await new DemoModel().invoke(
      withNotes([
        ...said('[you] delete note n1'),
        { type: 'tool_call', callId: 'c1', name: 'notes__delete_note', arguments: '{"id":"n1"}' },
        {
          type: 'tool_result',
          callId: 'c1',
          output: frameUntrusted('tool', '[tool.rejected] notes__delete_note did not run'),
        },
      ])
    );
    expect(reply).toMatchObject({
      toolCalls: [],
      text: '(demo model) notes__delete_note answered:\n[tool.rejected] notes__delete_note did not run',
    });
    const later = await new DemoModel().invoke(
      withNotes([
        ...said('[you] delete note n1'),
        { type: 'message', role: 'assistant', text: '(demo model) done' },
      ])
    );
    expect(later.toolCalls).toEqual([]);
  });
});
