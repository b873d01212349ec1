import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { TASK_METADATA_KEY } from '../../core/a2a/identifiers.js';
import { InvalidTaskRecordError } from '../../core/errors.js';
import type { Item, ItemImage } from './item-shape.js';
import { isJsonObject, sameJson } from './json-shape.js';
import {
  ATTR,
  ITEM_TYPE,
  PARTITION_KEY,
  SORT_KEY,
  TASK_PARTS,
  type TaskPart,
  taskPartSk,
  taskPk,
} from './table.js';

/** The JSON of the extension's parts kept apart: what each holds (`null` for none). */
export type PartValues = Partial<Record<TaskPart, unknown>>;

const isEmpty = (value: unknown) =>
  value === undefined || value === null || (Array.isArray(value) && value.length === 0);

/**
 * A task's ProtoJSON without the parts kept apart, and those parts (pure). Only what holds
 * something is kept apart: an empty plan or no rows stay in the record as they are (so the task
 * reads back exactly as written). A task whose metadata has no extension object is returned as it
 * is.
 */
export const withoutParts = (
  taskJson: Record<string, unknown>
): { taskJson: Record<string, unknown>; parts: PartValues } => {
  const metadata = taskJson.metadata;
  const extension = isJsonObject(metadata) ? metadata[TASK_METADATA_KEY] : undefined;
  if (!isJsonObject(metadata) || !isJsonObject(extension)) return { taskJson, parts: {} };
  const kept: Record<string, unknown> = { ...extension };
  const parts: PartValues = {};
  for (const part of TASK_PARTS) {
    if (isEmpty(kept[part])) continue;
    parts[part] = kept[part];
    delete kept[part];
  }
  return {
    taskJson: { ...taskJson, metadata: { ...metadata, [TASK_METADATA_KEY]: kept } },
    parts,
  };
};

/** A task's ProtoJSON with its parts put back in its extension (pure). */
export const withParts = (taskJson: unknown, parts: PartValues): unknown => {
  if (Object.keys(parts).length === 0 || !isJsonObject(taskJson)) return taskJson;
  const metadata = taskJson.metadata;
  const extension = isJsonObject(metadata) ? metadata[TASK_METADATA_KEY] : undefined;
  if (!isJsonObject(metadata) || !isJsonObject(extension)) return taskJson;
  return {
    ...taskJson,
    metadata: { ...metadata, [TASK_METADATA_KEY]: { ...extension, ...parts } },
  };
};

/**
 * The parts a record keeps apart, each with its revision: the record version that last wrote it,
 * 0 when the record does not say (one stored before revisions were kept).
 */
export type PartRevisions = Partial<Record<TaskPart, number>>;

const revisionOf = (value: { N?: string | undefined } | undefined): number => {
  const revision = Number(value?.N);
  return Number.isSafeInteger(revision) && revision > 0 ? revision : 0;
};

/** The parts a record item says it keeps apart, with their revisions (none for an earlier build's). */
export const partsApartOf = (image: ItemImage): PartRevisions => {
  const revisions = (image[ATTR.partRevisions] as { M?: ItemImage } | undefined)?.M ?? {};
  const apart: PartRevisions = {};
  for (const entry of image[ATTR.partsApart]?.L ?? []) {
    const part = TASK_PARTS.find((name) => name === entry.S);
    if (part !== undefined) apart[part] = revisionOf(revisions[part]);
  }
  return apart;
};

/** The record item's attributes naming its parts kept apart and their revisions. */
export const partsApartAttributes = (apart: PartRevisions): Record<string, AttributeValue> => {
  const names = TASK_PARTS.filter((part) => apart[part] !== undefined);
  if (names.length === 0) return {};
  return {
    [ATTR.partsApart]: { L: names.map((name) => ({ S: name })) },
    [ATTR.partRevisions]: {
      M: Object.fromEntries(names.map((name) => [name, { N: String(apart[name]) }])),
    },
  };
};

/**
 * One part's item, of a revision, from its JSON text (its payload split into pieces by the caller
 * when too large).
 */
export const encodeTaskPart = (
  taskId: string,
  part: TaskPart,
  json: string,
  revision: number
): Item => ({
  [PARTITION_KEY]: { S: taskPk(taskId) },
  [SORT_KEY]: { S: taskPartSk(part) },
  [ATTR.type]: { S: ITEM_TYPE.taskPart },
  [ATTR.partRevision]: { N: String(revision) },
  [ATTR.data]: { S: json },
});

/** The revision a part's item was written at (0 for one written before revisions were kept). */
export const partItemRevision = (item: ItemImage): number => revisionOf(item[ATTR.partRevision]);

/** The part an item holds, by its key (undefined for an item that is no part). */
export const partOfItem = (item: ItemImage): TaskPart | undefined => {
  const sk = item[SORT_KEY]?.S;
  return TASK_PARTS.find((name) => taskPartSk(name) === sk);
};

/** A part item back to its name and value. */
export const decodeTaskPart = (item: ItemImage): [TaskPart, unknown] => {
  const sk = item[SORT_KEY]?.S ?? '';
  const part = partOfItem(item);
  const data = item[ATTR.data]?.S;
  if (part === undefined || data === undefined) {
    throw new InvalidTaskRecordError(`invalid stored task part (${sk})`);
  }
  try {
    return [part, JSON.parse(data)];
  } catch (error) {
    throw new InvalidTaskRecordError(`invalid stored task part (${sk} is not JSON)`, {
      cause: error,
    });
  }
};

/**
 * What an update writes of the parts (pure): a part whose value changed from the base's, or that
 * the stored record does not keep apart yet (an earlier build's, or one that held nothing) or
 * names no revision for, is put; one that now holds nothing but was kept apart is deleted.
 * Nothing else is written.
 */
export const partChanges = (
  before: { parts: PartValues; apart: PartRevisions },
  after: PartValues
): { put: TaskPart[]; remove: TaskPart[] } => {
  const put: TaskPart[] = [];
  const remove: TaskPart[] = [];
  for (const part of TASK_PARTS) {
    const value = after[part];
    const revision = before.apart[part];
    if (value === undefined) {
      if (revision !== undefined) remove.push(part);
    } else if (
      // Not kept apart yet, or of no known revision: written, so that it has one.
      revision === undefined ||
      revision === 0 ||
      // Compared as data, not as text: a turn that passed it on untouched (even rebuilt) writes
      // nothing of it, and a part of a thousand rows is not serialised twice to find that out.
      !sameJson(value, before.parts[part])
    ) {
      put.push(part);
    }
  }
  return { put, remove };
};
