import {
  AgentCard,
  type AgentExtension,
  type AgentSkill,
  type SecurityRequirement,
  type SecurityScheme,
} from '@a2a-js/sdk';
import { AUDIT_EXTENSION_URI, AUDIT_JSON_RPC_METHOD } from '../audit/identifiers.js';
import {
  DEFAULT_AGENT_ID,
  EVENT_MEDIA_TYPE,
  TASK_EXTENSION_URI,
  TASK_MEDIA_TYPE,
} from './identifiers.js';

export const AGENT_NAME = 'tiny-harness';
export const AGENT_DESCRIPTION =
  'A tiny agent harness: tasks, plans, participants, tools and skills over A2A';
export const AGENT_VERSION = '0.1.0';
export const PROTOCOL_VERSION = '1.0';
/** The bindings the harness serves at its base URL, the preferred one first. */
export const PROTOCOL_BINDINGS = ['JSONRPC', 'HTTP+JSON'] as const;

export interface AgentCardOptions {
  /** The absolute URL the A2A endpoint is served at (both bindings share it). */
  baseUrl: string;
  /** The agent's own participant id on the tasks it creates; `tiny-harness` by default. */
  agentId?: string | undefined;
  name?: string | undefined;
  description?: string | undefined;
  version?: string | undefined;
  /** Skills from configuration; none by default. */
  skills?: readonly AgentSkill[] | undefined;
  /** Passed through untouched. The harness itself authenticates nobody (a perimeter does). */
  securitySchemes?: Readonly<Record<string, SecurityScheme>> | undefined;
  securityRequirements?: readonly SecurityRequirement[] | undefined;
}

/** The task extension as the card advertises it. */
export const taskExtension = (agentId: string): AgentExtension => ({
  uri: TASK_EXTENSION_URI,
  description:
    'Tasks with a goal, acceptance criteria, participants, sub-task links and a plan, carried ' +
    'in Task.metadata; task and control envelopes change and end them.',
  required: false,
  // The participant id the agent takes on its tasks, so a client can name it in a task envelope.
  params: { agent_id: agentId },
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
  defaultInputModes: ['text/plain', TASK_MEDIA_TYPE, EVENT_MEDIA_TYPE],
  defaultOutputModes: ['text/plain', TASK_MEDIA_TYPE],
  skills: [...(options.skills ?? [])],
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
