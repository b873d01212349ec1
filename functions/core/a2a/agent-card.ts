import {
  AgentCard,
  type AgentExtension,
  type AgentSkill,
  type SecurityRequirement,
  type SecurityScheme,
} from '@a2a-js/sdk';
import * as z from 'zod';
import { AUDIT_EXTENSION_URI, AUDIT_JSON_RPC_METHOD } from '../audit/identifiers.js';
import {
  DEFAULT_AGENT_ID,
  EVENT_MEDIA_TYPE,
  FORK_JSON_RPC_METHOD,
  TASK_AT_JSON_RPC_METHOD,
  TASK_EXTENSION_URI,
  TASK_MEDIA_TYPE,
} from './identifiers.js';

export const AGENT_NAME = 'tiny-harness';
/** How the harness treats a tool call a crash interrupted: said the same in the README and docs/tools.md. */
export const TOOL_CALL_PROMISE =
  'A tool call that is neither read-only nor idempotent runs at most once, never twice: when a crash leaves it unknown whether it ran, it goes back to its approvers, and approving sends it again while rejecting leaves it; read-only and idempotent calls are retried.';
export const AGENT_DESCRIPTION = `A tiny agent harness: tasks, plans, participants, tools and skills over A2A. ${TOOL_CALL_PROMISE}`;
export const AGENT_VERSION = '0.1.0';
export const PROTOCOL_VERSION = '1.0';
/** The bindings the harness serves at its base URL, the preferred one first. */
export const PROTOCOL_BINDINGS = ['JSONRPC', 'HTTP+JSON'] as const;

/**
 * A skill as configuration spells it (A2A §4.4.5, in the card's ProtoJSON names): what the agent
 * can do, for a client choosing an agent. `id`, `name`, `description` and at least one tag are
 * required, as the card requires them.
 */
const SkillSchema = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().min(1),
  tags: z.array(z.string().min(1)).min(1),
  examples: z.array(z.string().min(1)).optional(),
  inputModes: z.array(z.string().min(1)).optional(),
  outputModes: z.array(z.string().min(1)).optional(),
});
export type SkillConfig = z.infer<typeof SkillSchema>;

export const AgentSkillsSchema = z
  .array(SkillSchema)
  .min(1)
  .refine((skills) => new Set(skills.map((skill) => skill.id)).size === skills.length, {
    message: 'two skills have the same id',
  });

/** What the harness does when configuration names no skill of its own. */
export const DEFAULT_SKILLS: readonly SkillConfig[] = [
  {
    id: 'tasks-and-plans',
    name: 'Tasks, plans and sub-tasks',
    description:
      'Works on a task with you: keeps its goal and acceptance criteria, plans the work as a ' +
      'graph of steps, asks participants for what it needs, and splits work into sub-tasks it ' +
      'follows to their end. Talk to it in plain text; a task envelope sets the goal, criteria ' +
      'and participants.',
    tags: ['tasks', 'plans', 'sub-tasks', 'participants'],
    examples: [
      'Plan the migration of our billing service and track each step.',
      '/sub-task Draft the release notes',
    ],
  },
];

/**
 * The skills from their configured JSON (an array of skills); throws a message naming what is
 * wrong, so a bad configuration stops the start rather than serving a broken card.
 */
export const parseAgentSkills = (json: string): SkillConfig[] => {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    throw new Error(`not JSON: ${(error as Error).message}`);
  }
  const parsed = AgentSkillsSchema.safeParse(raw);
  if (!parsed.success) throw new Error(z.prettifyError(parsed.error));
  return parsed.data;
};

const toAgentSkill = (skill: SkillConfig): AgentSkill => ({
  id: skill.id,
  name: skill.name,
  description: skill.description,
  tags: [...skill.tags],
  examples: [...(skill.examples ?? [])],
  inputModes: [...(skill.inputModes ?? [])],
  outputModes: [...(skill.outputModes ?? [])],
  securityRequirements: [],
});

/**
 * The media types the agent reads in a message (the card's `defaultInputModes`): plain text, the
 * task extension and the event envelope. A message part naming another is refused with
 * ContentTypeNotSupported (§3.1.1) rather than silently ignored.
 */
export const INPUT_MODES = ['text/plain', TASK_MEDIA_TYPE, EVENT_MEDIA_TYPE] as const;

export interface AgentCardOptions {
  /** The absolute URL the A2A endpoint is served at (both bindings share it). */
  baseUrl: string;
  /** The agent's own participant id on the tasks it creates; `tiny-harness` by default. */
  agentId?: string | undefined;
  name?: string | undefined;
  description?: string | undefined;
  version?: string | undefined;
  /** Skills from configuration; DEFAULT_SKILLS when none are configured. */
  skills?: readonly SkillConfig[] | undefined;
  /** Passed through untouched. The harness itself authenticates nobody (a perimeter does). */
  securitySchemes?: Readonly<Record<string, SecurityScheme>> | undefined;
  securityRequirements?: readonly SecurityRequirement[] | undefined;
}

/** The task extension as the card advertises it. */
export const taskExtension = (agentId: string): AgentExtension => ({
  uri: TASK_EXTENSION_URI,
  description:
    'Tasks with a goal, acceptance criteria, participants, sub-task links and a plan, carried ' +
    'in Task.metadata; task and control envelopes change and end them. A task is forked from a ' +
    'point in its history (tiny-harness/ForkTask, POST /tasks/{id}:fork) and read as it was ' +
    'then (tiny-harness/GetTaskAt, GET /tasks/{id}:at).',
  required: false,
  params: {
    // The participant id the agent takes on its tasks, so a client can name it in an envelope.
    agent_id: agentId,
    json_rpc_methods: [FORK_JSON_RPC_METHOD, TASK_AT_JSON_RPC_METHOD],
    http_routes: ['POST /tasks/{id}:fork', 'GET /tasks/{id}:at'],
  },
});

/** The audit extension: GetTaskTimeline, the auditor's timeline of a task (docs/a2a/audit.md). */
export const auditExtension = (): AgentExtension => ({
  uri: AUDIT_EXTENSION_URI,
  description:
    "The auditor's timeline of a task and its sub-tasks, for its participants: JSON-RPC " +
    'tiny-harness/GetTaskTimeline, or GET /tasks/{id}:timeline.',
  required: false,
  params: { json_rpc_method: AUDIT_JSON_RPC_METHOD, http_route: 'GET /tasks/{id}:timeline' },
});

/** The agent card served at `/.well-known/agent-card.json`. */
export const buildAgentCard = (options: AgentCardOptions): AgentCard => ({
  name: options.name ?? AGENT_NAME,
  description: options.description ?? AGENT_DESCRIPTION,
  supportedInterfaces: PROTOCOL_BINDINGS.map((protocolBinding) => ({
    url: options.baseUrl,
    protocolBinding,
    tenant: '',
    protocolVersion: PROTOCOL_VERSION,
  })),
  provider: undefined,
  version: options.version ?? AGENT_VERSION,
  capabilities: {
    // SendStreamingMessage and SubscribeToTask: SSE tailing the task's durable event log.
    streaming: true,
    pushNotifications: true,
    extensions: [taskExtension(options.agentId ?? DEFAULT_AGENT_ID), auditExtension()],
  },
  securitySchemes: { ...options.securitySchemes },
  securityRequirements: [...(options.securityRequirements ?? [])],
  defaultInputModes: [...INPUT_MODES],
  defaultOutputModes: ['text/plain', TASK_MEDIA_TYPE],
  skills: (options.skills ?? DEFAULT_SKILLS).map(toAgentSkill),
  signatures: [],
});

type JsonObject = Record<string, unknown>;

const asObject = (value: unknown): JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : {};

/**
 * The card's ProtoJSON (what the card endpoint serves), via the SDK's `AgentCard.toJSON`.
 * ProtoJSON drops fields holding their default; this puts back the ones the A2A 1.0 card marks
 * REQUIRED (`skills`, each skill's `tags`) and each extension's `required`, so a client reading
 * the JSON sees "required": false rather than inferring it from an absence.
 */
export const cardToJson = (card: AgentCard): JsonObject => {
  const json = asObject(AgentCard.toJSON(card));
  const capabilities = asObject(json.capabilities);
  const extensions = card.capabilities?.extensions ?? [];
  return {
    ...json,
    capabilities: {
      ...capabilities,
      extensions: extensions.map((extension, index) => ({
        ...asObject((capabilities.extensions as unknown[] | undefined)?.[index]),
        required: extension.required,
      })),
    },
    skills: card.skills.map((skill, index) => ({
      ...asObject((json.skills as unknown[] | undefined)?.[index]),
      tags: [...skill.tags],
    })),
  };
};
