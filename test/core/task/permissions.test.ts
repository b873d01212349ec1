import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NotAParticipantError, RoleRequiredError } from '../../../functions/core/errors.js';
import { ROLES, TaskExtensionSchema } from '../../../functions/core/task/extension.schema.js';
import {
  mayDo,
  PERMISSIONS,
  type Permission,
  requirePermission,
} from '../../../functions/core/task/permissions.js';

const IDENTITY = fileURLToPath(new URL('../../../docs/identity.md', import.meta.url));

/** docs/identity.md's "Who may do what" table: action → the roles marked yes, in column order. */
const documentedTable = (): Map<string, string[]> => {
  const text = readFileSync(IDENTITY, 'utf8');
  const table =
    /\| action \| assignee \| reporter \| admin \| watcher \|\n\| [-| ]+\|\n((?:\|.*\|\n)+)/.exec(
      text
    );
  if (table?.[1] === undefined) throw new Error("docs/identity.md has no 'Who may do what' table");
  const columns = ['assignee', 'reporter', 'admin', 'watcher'];
  return new Map(
    table[1]
      .trim()
      .split('\n')
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim())
      )
      .map(([action = '', ...cells]) => [
        action,
        columns.filter((_, index) => cells[index] === 'yes'),
      ])
  );
};

/** Which row of the docs' table each permission is. */
const ROWS: Record<Permission, string> = {
  edit_details: 'change the name or description',
  edit_criteria: 'change the acceptance criteria',
  edit_participants: 'change the participants',
  open_sub_task: 'open a `/sub-task`',
  complete: 'complete the task',
  accept_unmet_criteria: 'accept unmet criteria by completing',
  cancel: 'cancel the task',
  review_criteria: 'reject a met criterion',
  set_budget: 'set or raise the budget',
};

const task = TaskExtensionSchema.parse({
  name: 'n',
  goal: 'g',
  participants: ROLES.map((role) => ({ id: `the-${role}`, kind: 'human', role })),
});

describe('who may do what', () => {
  it("is docs/identity.md's table, row for row", () => {
    const documented = documentedTable();
    expect([...documented.keys()].sort()).toEqual(Object.values(ROWS).sort());
    for (const [permission, row] of Object.entries(ROWS) as Array<[Permission, string]>) {
      const allowed = ROLES.filter((role) => mayDo(role, permission));
      expect({ row, roles: [...allowed].sort() }).toEqual({
        row,
        roles: [...(documented.get(row) ?? [])].sort(),
      });
    }
  });

  it('gives a watcher nothing to change, and an admin everything', () => {
    for (const permission of Object.keys(PERMISSIONS) as Permission[]) {
      expect(mayDo('watcher', permission)).toBe(false);
      expect(mayDo('admin', permission)).toBe(true);
    }
  });

  it('refuses a role that may not, naming who may; a stranger is not a member', () => {
    expect(() => requirePermission(task, 'the-watcher', 'cancel')).toThrow(
      new RoleRequiredError(
        'the-watcher is a watcher: only a reporter or an admin may cancel the task'
      )
    );
    expect(() => requirePermission(task, 'the-assignee', 'accept_unmet_criteria')).toThrow(
      RoleRequiredError
    );
    expect(requirePermission(task, 'the-reporter', 'cancel').id).toBe('the-reporter');
    expect(() => requirePermission(task, 'mallory', 'complete')).toThrow(NotAParticipantError);
  });
});
