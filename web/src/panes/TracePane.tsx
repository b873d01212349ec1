/**
 * The Trace pane: the audit timeline of the task and its sub-task tree (docs/a2a/audit.md), in
 * time order, filterable by kind, with what the tree cost: model calls, tokens and dollars.
 */
import { useId, useState } from 'react';
import { timelineTotals } from '../../../functions/view/timeline.js';
import type { Timeline } from '../generated/timeline.js';

type Entry = Timeline['entries'][number];
type Kind = Entry['kind'];

const KIND_LABEL: Record<Kind, string> = {
  task_created: 'created',
  message_accepted: 'message',
  message_refused: 'refused',
  state_changed: 'state',
  progress: 'progress',
  model_call: 'model',
  tool_call: 'tool',
  plan_changed: 'plan',
  compaction: 'compaction',
  child_requested: 'sub-task',
  child_changed: 'sub-task',
  wait_ended: 'wait',
  execution_started: 'execution',
  execution_ended: 'execution',
  retry: 'retry',
  step_failed: 'failure',
  task_edited: 'edit',
  approval_requested: 'approval',
  approval_granted: 'approval',
  approval_rejected: 'approval',
  approval_expired: 'approval',
  forked_from: 'fork',
  forked: 'fork',
};

const actorText = (entry: Entry) => {
  const actor = entry.actor;
  if (actor === null || entry.kind === 'model_call' || entry.kind === 'tool_call') return '';
  if (actor.kind === 'participant') return `by ${actor.id}`;
  if (actor.kind === 'child') return `by sub-task ${actor.id}`;
  if (actor.kind === 'parent') return `by parent ${actor.id}`;
  if (actor.kind === 'agent') return 'by the agent';
  return `by ${actor.kind}${actor.id === null ? '' : ` ${actor.id}`}`;
};

const dollars = (value: number) => `$${value.toFixed(value < 0.01 ? 6 : 4)}`;
const count = (value: number) => value.toLocaleString('en-US');

export const TracePane = (props: {
  timeline: Timeline | undefined;
  error: string | undefined;
  loading: boolean;
  audits: boolean;
  onRefresh(): void;
}) => {
  const [hidden, setHidden] = useState<ReadonlySet<Kind>>(new Set());
  const filterId = useId();
  if (!props.audits) {
    return (
      <div className="pane-body">
        <p className="muted">This agent does not offer the audit extension.</p>
      </div>
    );
  }
  const { timeline } = props;
  const kinds = timeline === undefined ? [] : [...new Set(timeline.entries.map((e) => e.kind))];
  const shown = timeline?.entries.filter((entry) => !hidden.has(entry.kind)) ?? [];
  const totals = timelineTotals(timeline?.entries ?? []);
  const depthOf = new Map(timeline?.tasks.map((task) => [task.task_id, task]) ?? []);
  const toggle = (kind: Kind) =>
    setHidden((current) => {
      const next = new Set(current);
      if (next.has(kind)) next.delete(kind);
      else next.add(kind);
      return next;
    });
  return (
    <div className="pane-body trace-pane">
      <div className="trace-head">
        <h3>
          Trace
          {timeline === undefined
            ? ''
            : ` · ${timeline.entries.length} entries · ${timeline.tasks.length} task${timeline.tasks.length === 1 ? '' : 's'}`}
        </h3>
        <button type="button" onClick={props.onRefresh} disabled={props.loading}>
          {props.loading ? 'Reading…' : 'Refresh'}
        </button>
      </div>
      {props.error !== undefined && (
        <p role="alert" className="error">
          {props.error}
        </p>
      )}
      {timeline === undefined ? (
        props.error === undefined && <p className="muted">Reading the timeline…</p>
      ) : (
        <>
          <dl className="totals" aria-label="What the task and its sub-tasks cost">
            <div>
              <dt>model calls</dt>
              <dd>{count(totals.model_calls)}</dd>
            </div>
            <div>
              <dt>tool calls</dt>
              <dd>{count(totals.tool_calls)}</dd>
            </div>
            <div>
              <dt>tokens in</dt>
              <dd>
                {count(totals.input_tokens)}
                {totals.cached_input_tokens > 0 && ` (${count(totals.cached_input_tokens)} cached)`}
              </dd>
            </div>
            <div>
              <dt>tokens out</dt>
              <dd>{count(totals.output_tokens)}</dd>
            </div>
            <div>
              <dt>cost</dt>
              <dd className="cost">{dollars(totals.cost_usd)}</dd>
            </div>
            {timeline.trace_id !== null && (
              <div>
                <dt>trace</dt>
                <dd className="trace-id" title="The OpenTelemetry trace of this task's tree">
                  {timeline.trace_id}
                </dd>
              </div>
            )}
          </dl>
          <fieldset className="kind-filter">
            <legend id={filterId}>Show</legend>
            {kinds.map((kind) => (
              <label key={kind} className="chip">
                <input
                  type="checkbox"
                  checked={!hidden.has(kind)}
                  onChange={() => toggle(kind)}
                  name="kind"
                  value={kind}
                />
                {kind.replace(/_/g, ' ')}
              </label>
            ))}
          </fieldset>
          <ol className="entries">
            {shown.map((entry, index) => {
              const task = depthOf.get(entry.task_id);
              return (
                <li
                  // An entry has no id of its own (one source may yield several); read-only rows.
                  // biome-ignore lint/suspicious/noArrayIndexKey: the position is the identity here
                  key={`${index}:${entry.source.ref}`}
                  className={`entry kind-${entry.kind}`}
                  data-kind={entry.kind}
                  style={{ marginInlineStart: `${Math.min(entry.depth, 4) * 0.75}rem` }}
                >
                  <time dateTime={entry.at}>{entry.at.slice(11, 23)}</time>
                  <span className="kind">{KIND_LABEL[entry.kind]}</span>
                  {entry.depth > 0 && (
                    <span className="tag" title={entry.task_id}>
                      {task?.name ?? entry.task_id.slice(0, 8)}
                    </span>
                  )}
                  <span className="summary">{entry.summary}</span>
                  {actorText(entry) !== '' && <span className="actor">{actorText(entry)}</span>}
                </li>
              );
            })}
          </ol>
          {shown.length === 0 && <p className="muted">No entry of the kinds shown.</p>}
          {timeline.gaps.map((gap) => (
            <p key={gap} className="error">
              missing: {gap}
            </p>
          ))}
        </>
      )}
    </div>
  );
};
