import * as z from 'zod';

/**
 * The auditor's timeline: one merged, time-ordered account of a task and its sub-task tree. The
 * wire form of the audit extension (docs/a2a/audit.md) and of `tiny-harness audit --json`.
 */
export const TIMELINE_ENTRY_KINDS = [
  'task_created',
  'message_accepted',
  'message_refused',
  'state_changed',
  'progress',
  'model_call',
  'tool_call',
  'plan_changed',
  'compaction',
  'child_requested',
  'child_changed',
  'wait_ended',
  'execution_started',
  'execution_ended',
  'retry',
  'step_failed',
  'task_edited',
  'approval_requested',
  'approval_granted',
  'approval_rejected',
  'approval_expired',
  'forked_from',
  'forked',
] as const;
export const TimelineEntryKindSchema = z.enum(TIMELINE_ENTRY_KINDS);
export type TimelineEntryKind = z.infer<typeof TimelineEntryKindSchema>;

export const ACTOR_KINDS = [
  'participant',
  'agent',
  'model',
  'tool',
  'child',
  'parent',
  'timeout',
  'hook',
  'harness',
] as const;

export const ActorSchema = z
  .strictObject({
    kind: z.enum(ACTOR_KINDS),
    /** The participant, model, tool or task id; null for the harness itself or a timeout. */
    id: z.string().nullable(),
  })
  .describe('Who or what caused the entry.');
export type Actor = z.infer<typeof ActorSchema>;

export const EntrySourceSchema = z
  .strictObject({
    kind: z.enum(['execution', 'event_log', 'record']),
    /** `<execution name>#<event id>`, `log#<seq>`, or the record's key. */
    ref: z.string(),
  })
  .describe('Where the entry was read, so an auditor can check it against the source.');
export type EntrySource = z.infer<typeof EntrySourceSchema>;

export const TimelineEntrySchema = z
  .strictObject({
    /** ISO 8601, millisecond precision. */
    at: z.string(),
    task_id: z.string(),
    /** 0 for the task asked about, 1 for its sub-tasks, ... */
    depth: z.int().min(0),
    kind: TimelineEntryKindSchema,
    actor: ActorSchema.nullable(),
    /** One line for people. */
    summary: z.string(),
    /** Kind-specific facts (tokens, cost, arguments, verdicts, states, ...). */
    details: z.record(z.string(), z.unknown()),
    source: EntrySourceSchema,
  })
  .describe('One thing that happened to a task.');
export type TimelineEntry = z.infer<typeof TimelineEntrySchema>;

export const TimelineTaskSchema = z.strictObject({
  task_id: z.string(),
  parent_id: z.string().nullable(),
  depth: z.int().min(0),
  name: z.string(),
  /** The A2A state name, as the task (or, for a remote child, its row) last reported it. */
  state: z.string(),
  /** The remote agent's id for a child on another agent; null on this harness. */
  agent: z.string().nullable(),
  generations: z.int().min(0),
});
export type TimelineTask = z.infer<typeof TimelineTaskSchema>;

export const TimelineSchema = z
  .strictObject({
    task_id: z.string(),
    /**
     * The OpenTelemetry trace of the task's delegation tree (32 hex digits), where every span of
     * its turns, model calls and tool calls is, when the deployment traces; null when it does not.
     */
    trace_id: z.string().nullable(),
    tasks: z.array(TimelineTaskSchema),
    entries: z.array(TimelineEntrySchema),
    /** What could not be read (an execution history neither live nor archived, ...). */
    gaps: z.array(z.string()),
  })
  .describe('The auditor timeline of a task and its sub-task tree (tiny-harness audit extension).');
export type Timeline = z.infer<typeof TimelineSchema>;

/** How much of a tool's arguments, a result or a model's text an entry carries. */
export const TEXT_BOUND = 2_000;

/** `text` cut to `bound` characters, with the full size beside it. */
export const bounded = (text: string, bound = TEXT_BOUND) => ({
  text: text.length > bound ? `${text.slice(0, bound)}…` : text,
  size: text.length,
  truncated: text.length > bound,
});
