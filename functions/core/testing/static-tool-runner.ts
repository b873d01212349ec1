import type { ExternalTool, ToolRunner, ToolRunResult } from '../ports/tool-runner.js';

export interface StaticTool extends ExternalTool {
  run(args: unknown): Promise<ToolRunResult> | ToolRunResult;
}

/** A tool runner over tools defined in code; records every call it ran. */
export class StaticToolRunner implements ToolRunner {
  readonly calls: Array<{ name: string; args: unknown }> = [];
  readonly #tools: readonly StaticTool[];

  constructor(tools: readonly StaticTool[]) {
    this.#tools = tools;
  }

  tools(): readonly ExternalTool[] {
    return this.#tools;
  }

  async run(name: string, args: unknown): Promise<ToolRunResult> {
    const tool = this.#tools.find((candidate) => candidate.name === name);
    if (tool === undefined) throw new Error(`no tool ${name}`);
    this.calls.push({ name, args });
    return tool.run(args);
  }
}
