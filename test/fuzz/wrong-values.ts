/**
 * Values that are clearly not of a field's type, by the field's kind: what a careless or hostile
 * client sends where a string, a number or a flag belongs. Each must be refused (InvalidParams),
 * never read as something else. ProtoJSON's own spellings are not here: an integer as a decimal
 * string, an enum by number, `null` for an absent field.
 */

export type FieldKind =
  | 'string'
  | 'int'
  | 'bool'
  | 'status'
  | 'timestamp'
  | 'struct'
  | 'strings'
  | 'object'
  | 'parts'
  | 'role';

/** In a JSON body or JSON-RPC params. */
export const WRONG_JSON: Record<FieldKind, readonly unknown[]> = {
  string: [5, true, false, {}, [], ['x'], 1.5, { text: 'x' }],
  int: ['abc', 1.5, true, {}, [], '1.5', '', '1e3', ' 7', 2 ** 53, '0x10', false, [1]],
  bool: ['yes', 1, 0, {}, [], '', 'maybe', 'on', [true]],
  status: ['TASK_STATE_SLEEPING', 99, -1, true, {}, [], 1.5, '', 'task_state_working', 9],
  timestamp: ['2024', 5, 'yesterday', '', true, {}, '2026-13-45T99:00:00Z'],
  struct: ['x', 5, [], true, [1], 1.5],
  strings: ['x', 5, {}, [5], [{}], [true], [null, 'x']],
  object: ['x', 5, [], true, 1.5],
  parts: ['x', {}, 5, [5], ['text'], [[]], [null], [{}]],
  role: [5, 'ROLE_AGENT', true, {}, 'user', 'ROLE_UNSPECIFIED', 0, 2],
};

/** In a query string, where every value is text: what does not parse as the field's type. */
export const WRONG_QUERY: Partial<Record<FieldKind, readonly string[]>> = {
  int: ['abc', '1.5', '', '1e3', '0x10', ' 7', 'true', '99999999999', '-'],
  bool: ['yes', '1', '0', '', 'TRUE', 'on', 'false '],
  status: ['TASK_STATE_SLEEPING', '99', '', 'working', 'task_state_working'],
  timestamp: ['2024', '', 'yesterday', '1700000000', '2026-13-45T99:00:00Z'],
};
