/** Tool calls waiting for a participant's approval (INPUT_REQUIRED, awaiting-approval). */
import { useState } from 'react';
import { approvalRequestOf, isAwaitingApproval } from '../../../functions/view/labels.js';
import type { TaskView } from '../generated/task-view.js';

export const Approval = (props: {
  view: TaskView;
  busy: boolean;
  onAnswer(action: 'approve' | 'reject', reason: string | undefined): void;
}) => {
  const [reason, setReason] = useState('');
  if (!isAwaitingApproval(props.view)) return null;
  const answer = (action: 'approve' | 'reject') => {
    props.onAnswer(action, reason.trim() === '' ? undefined : reason.trim());
    setReason('');
  };
  return (
    <section className="question approval" aria-labelledby="approval-heading">
      <h3 id="approval-heading">Approval needed</h3>
      <pre className="question-text">{approvalRequestOf(props.view.status_text)}</pre>
      <fieldset className="options" disabled={props.busy}>
        <legend>Answer for every call waiting</legend>
        <label>
          Reason (optional){' '}
          <input value={reason} onChange={(event) => setReason(event.target.value)} />
        </label>
        <button type="button" onClick={() => answer('approve')}>
          Approve
        </button>
        <button type="button" onClick={() => answer('reject')}>
          Reject
        </button>
      </fieldset>
      <p className="muted">
        Only the approvers named above may answer; the calls never run otherwise.
      </p>
    </section>
  );
};
