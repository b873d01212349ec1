/** Progress while the agent works: how long, and what it says it is doing (WORKING status updates). */
import { useEffect, useState } from 'react';
import type { TaskView } from '../generated/task-view.js';

const isWorking = (view: TaskView | undefined) =>
  view?.state === 'TASK_STATE_WORKING' || view?.state === 'TASK_STATE_SUBMITTED';

export const Progress = ({ view }: { view: TaskView | undefined }) => {
  const working = isWorking(view);
  const [since, setSince] = useState<number>();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!working) {
      setSince(undefined);
      return;
    }
    setSince((started) => started ?? Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [working]);
  if (!working || view === undefined) return null;
  const seconds = since === undefined ? 0 : Math.max(0, Math.round((now - since) / 1000));
  const note = view.state === 'TASK_STATE_WORKING' ? view.status_text : '';
  return (
    <div className="progress" role="status">
      <span className="spinner" aria-hidden="true" />
      <span>
        {view.state === 'TASK_STATE_SUBMITTED' ? 'Submitted' : 'Working'}
        <span className="muted"> · {seconds} s</span>
        {note !== '' && <span className="progress-note"> · {note}</span>}
      </span>
    </div>
  );
};
