import * as z from 'zod';
import type { McpApprovalPolicy } from '../adapters/mcp/approval-policy.js';
import { APPROVER_ROLES } from '../core/ports/tool-runner.js';
import {
  AuthSchema,
  authSecrets,
  authUrls,
  cloudSecretProblems,
  environmentSecretValues,
  type NamedSecret,
  plainHttpProblems,
  secretArnsOf,
} from './auth-config.js';
import { namedRecord, parseJsonVariable } from './json-config.js';

/**
 * The MCP servers whose tools the agent may call (`TINY_HARNESS_MCP_SERVERS`): server name →
 * where it is (a Streamable HTTP URL, or locally a command speaking stdio), its credentials and
 * the tools it may offer. A server's tools reach the model as `<server>__<tool>`.
 */

/** Server names prefix tool names: no `_`, so `__` always splits the server from the tool. */
export const SERVER_NAME = /^[a-z0-9][a-z0-9-]{0,30}$/;

/** Characters of one tool result kept in the transcript; the rest is cut, its size recorded. */
export const DEFAULT_MAX_RESULT_CHARS = 16_000;

// --- Approval (a participant's yes before a call that can do harm; docs/tools.md) ---

/** The longest an approval may wait: the local interpreter's timers hold up to 24.8 days. */
export const MAX_APPROVAL_SECONDS = 24 * 24 * 3600;

export const DEFAULT_APPROVAL = {
  require: 'destructive',
  approvers: ['reporter', 'admin'],
  timeoutSeconds: 3600,
} as const satisfies McpApprovalPolicy;

const ApprovalSchema = z
  .strictObject({
    require: z
      .union([z.enum(['destructive', 'not-read-only', 'never']), z.array(z.string().min(1)).min(1)])
      .default(DEFAULT_APPROVAL.require),
    approvers: z
      .array(z.enum(APPROVER_ROLES))
      .min(1)
      .default([...DEFAULT_APPROVAL.approvers]),
    timeoutSeconds: z
      .int()
      .min(1)
      .max(MAX_APPROVAL_SECONDS)
      .default(DEFAULT_APPROVAL.timeoutSeconds),
  })
  .default({ ...DEFAULT_APPROVAL, approvers: [...DEFAULT_APPROVAL.approvers] });

/** Tools `approval.require` names must be on the allow-list: a typo would silently approve nothing. */
const requireOnAllowList = (
  server: { tools: string[]; approval: { require: McpApprovalPolicy['require'] } },
  context: z.RefinementCtx
) => {
  const { require } = server.approval;
  if (typeof require === 'string') return;
  for (const name of require.filter((tool) => !server.tools.includes(tool))) {
    context.addIssue({
      code: 'custom',
      path: ['approval', 'require'],
      message: `${name} is not in tools (the allow-list)`,
    });
  }
};

// --- end of approval ---

const common = {
  /**
   * The allow-list: the server's tools the agent may call, by the server's own names. A tool the
   * server does not list is reported at start; a tool it lists and this does not name is hidden.
   */
  tools: z.array(z.string().min(1)).min(1),
  maxResultChars: z.int().min(1_000).max(200_000).default(DEFAULT_MAX_RESULT_CHARS),
  approval: ApprovalSchema,
};

const HttpServerSchema = z
  .strictObject({
    url: z.url({ protocol: /^https?$/, error: 'the server’s Streamable HTTP endpoint, http(s)' }),
    auth: AuthSchema.default({ type: 'none' }),
    ...common,
  })
  .superRefine(requireOnAllowList);

const StdioServerSchema = z
  .strictObject({
    /** A local process speaking MCP on stdin/stdout (npm start and the tests; not on Lambda). */
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    /** Variables added to the child's environment (which otherwise is the SDK's safe default set). */
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().min(1).optional(),
    ...common,
  })
  .superRefine(requireOnAllowList);

export const McpServerSchema = z.union([HttpServerSchema, StdioServerSchema]);
export type McpServerConfig = z.infer<typeof McpServerSchema>;

export const McpServersSchema = namedRecord(
  McpServerSchema,
  SERVER_NAME,
  'not a server name: lower-case letters, digits and "-", at most 31'
);
export type McpServersConfig = z.infer<typeof McpServersSchema>;

/** The configuration's text (JSON) as the schema reads it; '' or unset is no server. */
export const parseMcpServers = (text: string | undefined): McpServersConfig =>
  parseJsonVariable(McpServersSchema, text, {});

// --- Auth: bearer or OAuth 2.0 client credentials, secrets from the environment or Secrets
// Manager (auth-config.ts, shared with the remote agents' directory); the cloud's rules. ---

/** Every secret the servers name, with where (`<server>.auth.token`), for messages and grants. */
export const mcpSecrets = (servers: McpServersConfig): NamedSecret[] =>
  Object.entries(servers).flatMap(([name, server]) =>
    'url' in server ? authSecrets(name, server.auth) : []
  );

/**
 * The values of the environment secrets the servers name (bearer tokens, client secrets), read
 * from `env`; a variable that is not set is a configuration error naming it. Secrets: never logged.
 */
export const mcpServerSecrets = (
  servers: McpServersConfig,
  env: Record<string, string | undefined>
): { values: Map<string, string>; missing: string[] } =>
  environmentSecretValues(mcpSecrets(servers), env);

/** Every secret ARN the servers name: what the turn-step function may read, and nothing else. */
export const mcpSecretArns = (servers: McpServersConfig): string[] =>
  secretArnsOf(mcpSecrets(servers));

/**
 * What a deployment refuses that `npm start` takes: a stdio server (a Lambda function starts no
 * server processes), plain http, and secrets from the environment or by a partial ARN.
 */
export const cloudMcpServersProblems = (servers: McpServersConfig): string[] => {
  const problems = cloudSecretProblems(mcpSecrets(servers));
  for (const [name, server] of Object.entries(servers)) {
    if (!('url' in server)) {
      problems.push(
        `${name}: a deployment connects MCP servers over Streamable HTTP only ("url"); a stdio server ("command") is for npm start`
      );
      continue;
    }
    problems.push(
      ...plainHttpProblems(name, [['url', server.url], ...authUrls(server.auth)], 'MCP servers')
    );
  }
  return problems;
};
