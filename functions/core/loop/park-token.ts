import type { LoopDeps } from './deps.js';
import { mutateRecord } from './records.js';

/**
 * Claims the parked execution's task token, if there is one: a conditional write clears it, so of
 * several wakers (a message, a child's news, a completion request, the park state itself) exactly
 * one gets the token and sends the task success.
 */
export const claimParkToken = async (
  deps: Pick<LoopDeps, 'store'>,
  taskId: string
): Promise<string | null> => {
  let claimed: string | null = null;
  await mutateRecord(deps, taskId, (record) => {
    claimed = record.loop.parkToken;
    if (claimed === null) return undefined;
    return { ...record, loop: { ...record.loop, parkToken: null } };
  });
  return claimed;
};
