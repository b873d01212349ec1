import type { Artifact, Task } from '@a2a-js/sdk';
import type { LoggedEvent } from '../ports/event-log.js';

const withArtifact = (artifacts: readonly Artifact[], artifact: Artifact, append: boolean) => {
  const index = artifacts.findIndex((known) => known.artifactId === artifact.artifactId);
  const known = artifacts[index];
  if (known === undefined) return [...artifacts, artifact];
  const next = append ? { ...known, parts: [...known.parts, ...artifact.parts] } : artifact;
  return artifacts.map((each, at) => (at === index ? next : each));
};

/**
 * The task as its log says it was once its transcript reached `throughSeq`: every event logged
 * before the transcript went past it (each event carries the transcript's last seq its commit
 * left; one logged before that mark was kept counts as at the start), folded in order. Undefined
 * for a log without its first Task.
 */
export const taskAtPoint = (log: readonly LoggedEvent[], throughSeq: number): Task | undefined => {
  let task: Task | undefined;
  for (const { event, historySeq } of log) {
    if ((historySeq ?? 0) > throughSeq) break;
    if (event.kind === 'task') {
      task = event.task;
    } else if (task !== undefined && event.kind === 'status_update') {
      const { status, metadata } = event.statusUpdate;
      // A status update carries the metadata but the extension (older ones carried it too).
      task = {
        ...task,
        status: status ?? task.status,
        metadata: { ...task.metadata, ...metadata },
      };
    } else if (task !== undefined && event.kind === 'artifact_update') {
      const { artifact, append } = event.artifactUpdate;
      if (artifact !== undefined) {
        task = { ...task, artifacts: withArtifact(task.artifacts, artifact, append) };
      }
    }
  }
  return task;
};
