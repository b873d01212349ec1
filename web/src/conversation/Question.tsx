/** A pending question (INPUT_REQUIRED, awaiting-answer): its text and one button per option. */
import { isAsking, questionOf } from '../../../functions/view/labels.js';
import type { TaskView } from '../generated/task-view.js';

export const Question = (props: {
  view: TaskView;
  busy: boolean;
  onAnswer(answer: string): void;
}) => {
  if (!isAsking(props.view)) return null;
  const { question, options } = questionOf(props.view.status_text);
  return (
    <section className="question" aria-labelledby="question-heading">
      <h3 id="question-heading">The agent asks</h3>
      <p className="question-text">{question}</p>
      {options.length > 0 && (
        <fieldset className="options" disabled={props.busy}>
          <legend>Answer with</legend>
          {options.map((option) => (
            <button key={option} type="button" onClick={() => props.onAnswer(option)}>
              {option}
            </button>
          ))}
        </fieldset>
      )}
      <p className="muted">Or answer in your own words below.</p>
    </section>
  );
};
