import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ApproverRole, ToolApproval } from '../../core/ports/tool-runner.js';

/**
 * Which of a server's tools need a participant's approval before a call runs (configuration):
 * `destructive` (the default) those the server may let destroy something, `not-read-only` any
 * tool that is not read-only, `never` none, or the tools named.
 */
export interface McpApprovalPolicy {
  require: 'destructive' | 'not-read-only' | 'never' | readonly string[];
  approvers: readonly ApproverRole[];
  timeoutSeconds: number;
}

/**
 * Whether a tool may destroy something, read as MCP defines its annotations: `destructiveHint`
 * defaults to true and means nothing for a read-only tool, so an unannotated tool is destructive.
 */
export const mayDestroy = (tool: Pick<Tool, 'annotations'>): boolean =>
  tool.annotations?.readOnlyHint !== true && tool.annotations?.destructiveHint !== false;

/** The approval a call of `tool` (the server's own name) needs under `policy`; null: none. */
export const approvalFor = (
  policy: McpApprovalPolicy,
  tool: Pick<Tool, 'name' | 'annotations'>
): ToolApproval | null => {
  const { require } = policy;
  const needed =
    require === 'destructive'
      ? mayDestroy(tool)
      : require === 'not-read-only'
        ? tool.annotations?.readOnlyHint !== true
        : require === 'never'
          ? false
          : require.includes(tool.name);
  return needed ? { approvers: policy.approvers, timeoutSeconds: policy.timeoutSeconds } : null;
};
