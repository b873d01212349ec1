import type { Task } from '@a2a-js/sdk';
import { readExtension } from './a2a-task.js';

/**
 * The child's end of a parent-child link on this harness: its own record names the parent. A
 * parent's row is one end; a cascade, a timeline or a usage tree follows the row only to a child
 * that names the parent back, so a row the harness did not make (one written before relations
 * were the server's) reaches nothing.
 */
export const namesParent = (child: Task, parentId: string): boolean =>
  readExtension(child).parent_tasks.some(
    (parent) => parent.agent === null && parent.task_id === parentId
  );
