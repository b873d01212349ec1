import * as z from 'zod';
import { SubStateSchema, TaskStateNameSchema } from '../task/extension.schema.js';

/**
 * What travels between states of the turn state machine: references only, never transcripts
 * (a state payload is capped at 256 KiB; the task, plan and tool results live in the store).
 */
export const TurnRefSchema = z.strictObject({
  taskId: z.string().min(1),
  generation: z.int().min(1),
  /** Model turns completed when this state began. */
  turn: z.int().min(0),
});
export type TurnRef = z.infer<typeof TurnRefSchema>;

export const ToolCallRefSchema = z.strictObject({ ref: TurnRefSchema, callId: z.string().min(1) });
export type ToolCallRef = z.infer<typeof ToolCallRefSchema>;

/**
 * Wait on a task token: INPUT_REQUIRED with a sub-state, or WORKING while children run. With
 * `timeoutSeconds` (a call awaiting approval, until its deadline) the wait ends by itself then;
 * without, at the deployment's park timeout.
 */
export const ParkRouteSchema = z.strictObject({
  next: z.literal('park'),
  subState: SubStateSchema.nullable(),
  timeoutSeconds: z.int().min(1).optional(),
  /**
   * Set when the turn found nothing waiting: the task's version as the turn left it and the
   * inbox count it read. The park stores its token on exactly that, without reading the
   * task again; if either has moved on, it reads and decides as it would without.
   */
  decidedOn: z.strictObject({ version: z.int().min(1), inboxCount: z.int().min(0) }).optional(),
});

export const RouteSchema = z.discriminatedUnion('next', [
  /** The turn goes on from where the task is: the next Take Turn state decides. */
  z.strictObject({ next: z.literal('turn') }),
  z.strictObject({ next: z.literal('execute_tools'), calls: z.array(ToolCallRefSchema).min(1) }),
  ParkRouteSchema,
  /** Continue as new: the next generation's execution takes over. */
  z.strictObject({ next: z.literal('renew') }),
  z.strictObject({ next: z.literal('end'), state: TaskStateNameSchema }),
  /** A newer generation owns the task (renewal or a cut turn): this execution stops quietly. */
  z.strictObject({ next: z.literal('superseded') }),
]);
export type Route = z.infer<typeof RouteSchema>;
export type ParkRoute = z.infer<typeof ParkRouteSchema>;
export type ParkDecidedOn = NonNullable<ParkRoute['decidedOn']>;
export type RouteName = Route['next'];

export interface StepResult {
  ref: TurnRef;
  route: Route;
}
