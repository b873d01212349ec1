import type { Artifact, Part } from '@a2a-js/sdk';
import { statusText } from './messages.js';
import type { Change } from './records.js';

/** The name of the artifact a completed task's answer is carried in. */
export const ANSWER_ARTIFACT_NAME = 'answer';

const part = (content: NonNullable<Part['content']>, mediaType: string): Part => ({
  content,
  metadata: undefined,
  filename: '',
  mediaType,
});

/** The answer's structure, when the whole answer is a JSON object or array. */
const structureOf = (text: string): unknown => {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    return undefined;
  }
};

/**
 * A completed task's answer as an artifact too (pure): many A2A clients read a task's result
 * from its artifacts, not its status. Its data when the answer is JSON, then its text (bounded
 * as a status is, whole in the history); streamed as an artifact update before the task's end.
 * One artifact per task, named `answer`: a later answer replaces it.
 */
export const withAnswerArtifact = (change: Change, answer: string | undefined): Change => {
  if (answer === undefined || answer.trim() === '') return change;
  const { task } = change.record;
  const data = structureOf(answer);
  const artifact: Artifact = {
    artifactId: `${task.id}:${ANSWER_ARTIFACT_NAME}`,
    name: ANSWER_ARTIFACT_NAME,
    description: 'The task’s answer',
    // The structure first, when there is one: a client that reads the first part gets it.
    parts: [
      ...(data === undefined ? [] : [part({ $case: 'data', value: data }, 'application/json')]),
      part({ $case: 'text', value: statusText(answer) }, 'text/plain'),
    ],
    metadata: undefined,
    extensions: [],
  };
  const artifacts = [
    ...task.artifacts.filter((existing) => existing.artifactId !== artifact.artifactId),
    artifact,
  ];
  return {
    ...change,
    record: { ...change.record, task: { ...task, artifacts } },
    events: [
      ...change.events,
      {
        kind: 'artifact_update',
        artifactUpdate: {
          taskId: task.id,
          contextId: task.contextId,
          artifact,
          append: false,
          lastChunk: true,
          metadata: undefined,
        },
      },
    ],
  };
};
