import { NotAParticipantError, RoleRequiredError } from '../errors.js';
import type { Participant, Role, TaskExtension } from './extension.schema.js';

/**
 * Who may do what on a task: the one table every intake path asks (docs/identity.md prints it,
 * and a test holds the two together). Reading the task (GetTask, its stream, its timeline and
 * usage) and sending it a message are every participant's. Approving a tool call is decided by
 * the tool's own policy (`approvers`), never a watcher's, and is not in this table.
 *
 * - A watcher follows the task: it reads and comments, and changes nothing.
 * - The assignee does the work: it may rename or describe it, open a `/sub-task`, and complete
 *   it once its acceptance criteria are met; it may not change what it is judged by (the
 *   criteria), nor accept them unmet, nor cancel work it was given.
 * - The reporter asked for the work: it decides what done means (criteria, reviews), may accept
 *   criteria unmet by completing, may cancel, and sets what the work may spend (its budget).
 * - An admin may do all of that, and change who takes part.
 */
export const PERMISSIONS = {
  edit_details: ['assignee', 'reporter', 'admin'],
  edit_criteria: ['reporter', 'admin'],
  edit_participants: ['admin'],
  open_sub_task: ['assignee', 'reporter', 'admin'],
  complete: ['assignee', 'reporter', 'admin'],
  accept_unmet_criteria: ['reporter', 'admin'],
  cancel: ['reporter', 'admin'],
  review_criteria: ['reporter', 'admin'],
  set_budget: ['reporter', 'admin'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

/** What each permission is called in an error, so the refusal says what was asked for. */
const DESCRIPTIONS: Record<Permission, string> = {
  edit_details: "change the task's name or description",
  edit_criteria: "change the task's acceptance criteria",
  edit_participants: 'change who takes part',
  open_sub_task: 'open a sub-task',
  complete: 'complete the task',
  accept_unmet_criteria: 'accept unmet acceptance criteria by completing the task',
  cancel: 'cancel the task',
  review_criteria: 'reject an acceptance criterion',
  set_budget: "set the task's budget",
};

export const participantOf = (
  extension: TaskExtension,
  participantId: string
): Participant | undefined => extension.participants.find(({ id }) => id === participantId);

const article = (role: Role): string => (role === 'assignee' || role === 'admin' ? 'an' : 'a');

/** `an assignee, a reporter or an admin` */
const rolesText = (roles: readonly Role[]): string => {
  const named = roles.map((role) => `${article(role)} ${role}`);
  return named.length === 1
    ? (named[0] ?? '')
    : `${named.slice(0, -1).join(', ')} or ${named.at(-1)}`;
};

/** Who may, in words (`a reporter or an admin`), for a refusal or a status text to name. */
export const whoMay = (permission: Permission): string => rolesText(PERMISSIONS[permission]);

export const mayDo = (role: Role, permission: Permission): boolean =>
  (PERMISSIONS[permission] as readonly Role[]).includes(role);

/**
 * The participant, if their role allows the permission; a stranger is refused as not a member
 * (the task is "not found" to them), a participant whose role does not allow it with
 * `participant.role_required`, naming the roles that may.
 */
export const requirePermission = (
  extension: TaskExtension,
  participantId: string,
  permission: Permission
): Participant => {
  const participant = participantOf(extension, participantId);
  if (participant === undefined) {
    throw new NotAParticipantError(`${participantId} is not a participant of the task`);
  }
  if (!mayDo(participant.role, permission)) {
    throw new RoleRequiredError(
      `${participantId} is ${article(participant.role)} ${participant.role}: only ${whoMay(permission)} may ${DESCRIPTIONS[permission]}`
    );
  }
  return participant;
};
