import { withTokenClaimed } from '../loop/park-token.js';
import type { Change } from '../loop/records.js';
import type { Wake } from '../ports/waker.js';

/**
 * `change`, and the task woken to read what it adds: a parked task's token is claimed in the
 * change (and resumed after the commit); a running one takes it at its next drain.
 */
export const wakingTheTask = (change: Change): { change: Change; wake: Wake } => {
  const { change: claimed, token } = withTokenClaimed(change);
  const { generation } = change.record.loop;
  const taskId = change.record.task.id;
  return {
    change: claimed,
    wake:
      token === null
        ? { action: 'ensure-running', taskId, generation }
        : { action: 'resume', token, taskId, generation },
  };
};
