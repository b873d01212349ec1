import type * as z from 'zod';
import { type TaskExtension, TaskExtensionSchema } from './extension.schema.js';

/**
 * Reading a stored task extension. Its two large members, the sub-task rows and the plan, are
 * read apart, each once per value: a store hands every read of the same revision of a part the
 * same (frozen) value, and nothing changes a value in place, so a record read again reads only its
 * small members again, not a thousand rows.
 */

const LARGE_MEMBERS = ['sub_tasks', 'plan'] as const;
type LargeMember = (typeof LARGE_MEMBERS)[number];

const SmallMembersSchema = TaskExtensionSchema.omit({ sub_tasks: true, plan: true });
const MEMBER_SCHEMAS: Record<LargeMember, z.ZodType> = {
  sub_tasks: TaskExtensionSchema.shape.sub_tasks,
  plan: TaskExtensionSchema.shape.plan,
};
/** The members in the schema's order: a reading's keys keep it, as one parse's would. */
const MEMBER_ORDER = Object.keys(TaskExtensionSchema.shape) as (keyof TaskExtension)[];

/** Each large member's value's reading (and each reading's own). */
const memberReadings = new WeakMap<object, unknown>();

const readMember = (
  member: LargeMember,
  value: unknown
): { data: unknown; issues?: undefined } | { issues: number } => {
  const held = typeof value === 'object' && value !== null ? memberReadings.get(value) : undefined;
  if (held !== undefined) return { data: held };
  const parsed = MEMBER_SCHEMAS[member].safeParse(value);
  if (!parsed.success) return { issues: parsed.error.issues.length };
  if (typeof value === 'object' && value !== null) memberReadings.set(value, parsed.data);
  if (typeof parsed.data === 'object' && parsed.data !== null) {
    memberReadings.set(parsed.data, parsed.data);
  }
  return { data: parsed.data };
};

/**
 * A stored extension's reading, as `TaskExtensionSchema` parses it; or, when it is not one, how
 * many issues it has.
 */
export type ExtensionReading =
  | { extension: TaskExtension; issues?: undefined; cause?: undefined }
  | { extension?: undefined; issues: number; cause?: z.ZodError };

export const parseExtension = (stored: unknown): ExtensionReading => {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) {
    const parsed = TaskExtensionSchema.safeParse(stored);
    return parsed.success ? { extension: parsed.data } : { issues: 1, cause: parsed.error };
  }
  const { sub_tasks: subTasks, plan, ...small } = stored as Record<string, unknown>;
  const smallParsed = SmallMembersSchema.safeParse(small);
  const members = { sub_tasks: readMember('sub_tasks', subTasks), plan: readMember('plan', plan) };
  const issues =
    (smallParsed.success ? 0 : smallParsed.error.issues.length) +
    (members.sub_tasks.issues ?? 0) +
    (members.plan.issues ?? 0);
  if (!smallParsed.success || issues > 0) {
    return { issues, ...(smallParsed.success ? {} : { cause: smallParsed.error }) };
  }
  const parts: Record<string, unknown> = {
    ...smallParsed.data,
    sub_tasks: (members.sub_tasks as { data: unknown }).data,
    plan: (members.plan as { data: unknown }).data,
  };
  const extension: Record<string, unknown> = {};
  for (const key of MEMBER_ORDER) if (parts[key] !== undefined) extension[key] = parts[key];
  return { extension: extension as TaskExtension };
};
