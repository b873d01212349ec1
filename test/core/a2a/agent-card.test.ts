import { readFileSync } from 'node:fs';
import { AgentCard } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import {
  buildAgentCard,
  cardToJson,
  DEFAULT_SKILLS,
  parseAgentSkills,
  type SkillConfig,
  TOOL_CALL_PROMISE,
} from '../../../functions/core/a2a/agent-card.js';
import {
  EVENT_MEDIA_TYPE,
  TASK_EXTENSION_URI,
  TASK_MEDIA_TYPE,
} from '../../../functions/core/a2a/identifiers.js';
import { AUDIT_EXTENSION_URI } from '../../../functions/core/audit/identifiers.js';

const BASE_URL = 'https://agents.example.com/a2a';

const served = (card: AgentCard) =>
  // What goes over the wire: the JSON text, not the object.
  JSON.parse(JSON.stringify(cardToJson(card))) as Record<string, unknown> & {
    capabilities: { streaming?: boolean; pushNotifications?: boolean; extensions: unknown[] };
    supportedInterfaces: Array<{ url: string; protocolBinding: string; protocolVersion: string }>;
    skills: unknown[];
  };

const skill: SkillConfig = {
  id: 'research',
  name: 'Research',
  description: 'Finds and summarises sources.',
  tags: ['research'],
  examples: ['What changed in A2A 1.0?'],
};

describe('the agent card', () => {
  it('identifies the harness by default', () => {
    const json = served(buildAgentCard({ baseUrl: BASE_URL }));
    expect(json.name).toBe('tiny-harness');
    expect(json.description).toBe(
      'A tiny agent harness: tasks, plans, participants, tools and skills over A2A. A tool call that is neither read-only nor idempotent runs at most once, never twice: when a crash leaves it unknown whether it ran, it goes back to its approvers, and approving sends it again while rejecting leaves it; read-only and idempotent calls are retried.'
    );
    expect(json.version).toBe('0.1.0');
  });

  it('advertises the task extension as optional, with a description', () => {
    const json = served(buildAgentCard({ baseUrl: BASE_URL }));
    expect(json.capabilities.extensions).toEqual([
      {
        uri: TASK_EXTENSION_URI,
        description: expect.stringMatching(/\S/),
        required: false,
        params: {
          agent_id: 'tiny-harness',
          json_rpc_methods: ['tiny-harness/ForkTask', 'tiny-harness/GetTaskAt'],
          http_routes: ['POST /tasks/{id}:fork', 'GET /tasks/{id}:at'],
        },
      },
      {
        uri: AUDIT_EXTENSION_URI,
        description: expect.stringMatching(/GetTaskTimeline/),
        required: false,
        params: {
          json_rpc_method: 'tiny-harness/GetTaskTimeline',
          http_route: 'GET /tasks/{id}:timeline',
        },
      },
    ]);
  });

  it('names the configured agent id in the extension params', () => {
    const json = served(buildAgentCard({ baseUrl: BASE_URL, agentId: 'helper' }));
    expect(json.capabilities.extensions[0]).toMatchObject({ params: { agent_id: 'helper' } });
  });

  it('serves JSON-RPC and HTTP+JSON at the base URL, both at protocol 1.0', () => {
    const json = served(buildAgentCard({ baseUrl: BASE_URL }));
    expect(json.supportedInterfaces).toEqual([
      { url: BASE_URL, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: BASE_URL, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
    // A 1.0 card has no top-level url or protocolVersion.
    expect(json).not.toHaveProperty('url');
    expect(json).not.toHaveProperty('protocolVersion');
  });

  it('advertises streaming and push notifications', () => {
    const json = served(buildAgentCard({ baseUrl: BASE_URL }));
    expect(json.capabilities.streaming).toBe(true);
    expect(json.capabilities.pushNotifications).toBe(true);
  });

  it('accepts text, the task and the event envelope; answers with text and the task', () => {
    const json = served(buildAgentCard({ baseUrl: BASE_URL }));
    expect(json.defaultInputModes).toEqual(['text/plain', TASK_MEDIA_TYPE, EVENT_MEDIA_TYPE]);
    expect(json.defaultOutputModes).toEqual(['text/plain', TASK_MEDIA_TYPE]);
  });

  it('declares no security scheme unless one is passed through', () => {
    const json = served(buildAgentCard({ baseUrl: BASE_URL }));
    expect(json).not.toHaveProperty('securitySchemes');
    expect(json).not.toHaveProperty('securityRequirements');
    const card = buildAgentCard({
      baseUrl: BASE_URL,
      securitySchemes: {
        perimeter: {
          scheme: {
            $case: 'httpAuthSecurityScheme',
            value: { description: '', scheme: 'Bearer', bearerFormat: 'JWT' },
          },
        },
      },
      securityRequirements: [{ schemes: { perimeter: { list: [] } } }],
    });
    expect(served(card)).toMatchObject({
      securitySchemes: { perimeter: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
      securityRequirements: [{ schemes: { perimeter: {} } }],
    });
  });

  it('declares a default skill describing the harness when none is configured (§4.4.5: skills are required)', () => {
    const json = served(buildAgentCard({ baseUrl: BASE_URL }));
    expect(json.skills).toEqual([
      expect.objectContaining({
        id: 'tasks-and-plans',
        name: 'Tasks, plans and sub-tasks',
        tags: ['tasks', 'plans', 'sub-tasks', 'participants'],
      }),
    ]);
    expect(DEFAULT_SKILLS[0]?.description).toMatch(/plan/);
  });

  it('declares the configured skills instead, each with its required fields', () => {
    const json = served(buildAgentCard({ baseUrl: BASE_URL, skills: [skill] }));
    expect(json.skills).toEqual([
      {
        id: 'research',
        name: 'Research',
        description: 'Finds and summarises sources.',
        tags: ['research'],
        examples: ['What changed in A2A 1.0?'],
      },
    ]);
  });

  it('reads skills from their configured JSON, refusing what a card could not carry', () => {
    expect(parseAgentSkills(JSON.stringify([skill]))).toEqual([skill]);
    expect(() => parseAgentSkills('[{"id": "x"')).toThrow(/not JSON/);
    expect(() => parseAgentSkills('[]')).toThrow();
    expect(() => parseAgentSkills(JSON.stringify([{ ...skill, tags: [] }]))).toThrow(/tags/);
    expect(() => parseAgentSkills(JSON.stringify([{ ...skill, description: '' }]))).toThrow(
      /description/
    );
    expect(() => parseAgentSkills(JSON.stringify([skill, skill]))).toThrow(/same id/);
    expect(() => parseAgentSkills(JSON.stringify([{ ...skill, colour: 'red' }]))).toThrow(/colour/);
  });

  it('round-trips through the SDK codec unchanged', () => {
    const card = buildAgentCard({ baseUrl: BASE_URL, skills: [skill], name: 'renamed' });
    expect(AgentCard.fromJSON(served(card))).toEqual(card);
  });
});

describe('what the card promises of a tool call a crash interrupted', () => {
  it('is said in the same words in the README and docs/tools.md', () => {
    for (const path of ['README.md', 'docs/tools.md']) {
      const text = readFileSync(path, 'utf8').replace(/\s+/g, ' ');
      expect(text, path).toContain(TOOL_CALL_PROMISE);
    }
  });
});
