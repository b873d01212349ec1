import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startNotesOverHttp, TOKEN } from '../../support/mcp-notes-http.js';

/**
 * The turn and tool step Lambdas' composition roots: the MCP servers are connected once, by the
 * first step that offers or runs tools; a park, a renewal or a failure never waits on them.
 */
describe('the step Lambdas connect their MCP servers for the steps that use tools only', () => {
  let notes: Awaited<ReturnType<typeof startNotesOverHttp>>;
  beforeAll(async () => {
    notes = await startNotesOverHttp();
    vi.stubEnv('TINY_HARNESS_TABLE', 't');
    vi.stubEnv(
      'TINY_HARNESS_STATE_MACHINE_ARN',
      'arn:aws:states:us-east-1:000000000000:stateMachine:t'
    );
    vi.stubEnv('TINY_HARNESS_LOG_LEVEL', 'error');
    vi.stubEnv('NOTES_TOKEN', TOKEN);
    vi.stubEnv(
      'TINY_HARNESS_MCP_SERVERS',
      JSON.stringify({
        notes: {
          url: notes.url,
          auth: { type: 'bearer', token: { env: 'NOTES_TOKEN' } },
          tools: ['get_note'],
        },
      })
    );
    vi.resetModules();
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await notes.close();
  });

  it('the turn step builds park, renew and fail without them, connects once for a turn, and runs no tool call', async () => {
    const { lambdaTurnStepRuntime } = await import(
      '../../../functions/composition/lambda/turn-step.js'
    );
    for (const op of ['park', 'renew', 'fail']) {
      const runtime = lambdaTurnStepRuntime(op);
      expect(runtime, op).not.toBeInstanceOf(Promise);
      expect((await runtime).loop.runner, op).toBeUndefined();
    }
    expect(notes.initializations()).toBe(0);

    const turn = await lambdaTurnStepRuntime('turn');
    expect(turn.loop.tools.definitions().map((tool) => tool.name)).toContain('notes__get_note');
    expect(await lambdaTurnStepRuntime('turn')).toBe(turn);
    expect(notes.initializations()).toBe(1);
    expect(() => lambdaTurnStepRuntime('execute_tool')).toThrow(/tool step function/);
    await (turn.loop.runner as unknown as { close(): Promise<void> }).close();
  });

  it('the tool step connects once for its tool calls and refuses every other step', async () => {
    const { lambdaToolStepRuntime } = await import(
      '../../../functions/composition/lambda/tool-step.js'
    );
    expect(() => lambdaToolStepRuntime('turn')).toThrow(/tool calls only, not turn/);
    const before = notes.initializations();
    const tool = await lambdaToolStepRuntime('execute_tool');
    expect(await lambdaToolStepRuntime('execute_tool')).toBe(tool);
    expect(notes.initializations()).toBe(before + 1);
    expect(tool.loop.runner).toBeDefined();
    await (tool.loop.runner as unknown as { close(): Promise<void> }).close();
  });
});
