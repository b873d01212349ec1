import { stateTone, stateWithSubState } from '../../../functions/view/labels.js';

/** A task's or a row's A2A state with its sub-state, coloured by what it means. */
export const StateBadge = ({ state, subState }: { state: string; subState: string | null }) => (
  <span className={`state tone-${stateTone(state)}`} data-state={state}>
    {stateWithSubState(state, subState)}
  </span>
);
