import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { TASK_METADATA_KEY } from '../../core/a2a/identifiers.js';
import { InvalidTaskRecordError } from '../../core/errors.js';
import type { Item, ItemImage } from './item-codec.js';
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

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

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
  const extension = isObject(metadata) ? metadata[TASK_METADATA_KEY] : undefined;
  if (!isObject(metadata) || !isObject(extension)) return { taskJson, parts: {} };
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
  if (Object.keys(parts).length === 0 || !isObject(taskJson)) return taskJson;
  const metadata = taskJson.metadata;
  const extension = isObject(metadata) ? metadata[TASK_METADATA_KEY] : undefined;
  if (!isObject(metadata) || !isObject(extension)) return taskJson;
  return {
    ...taskJson,
    metadata: { ...metadata, [TASK_METADATA_KEY]: { ...extension, ...parts } },
  };
};

/** The names of the parts a record item says it keeps apart (none for an earlier build's). */
export const partsApartOf = (image: ItemImage): TaskPart[] =>
  (image[ATTR.partsApart]?.L ?? []).flatMap((entry) => {
    const name = entry.S;
    return TASK_PARTS.find((part) => part === name) ?? [];
  });

/** The record item's attribute naming its parts kept apart. */
export const partsApartAttribute = (parts: PartValues): AttributeValue | undefined => {
  const names = TASK_PARTS.filter((part) => parts[part] !== undefined);
  return names.length === 0 ? undefined : { L: names.map((name) => ({ S: name })) };
};

/** One part's item (its payload split into pieces by the caller when too large). */
export const encodeTaskPart = (taskId: string, part: TaskPart, value: unknown): Item => ({
  [PARTITION_KEY]: { S: taskPk(taskId) },
  [SORT_KEY]: { S: taskPartSk(part) },
  [ATTR.type]: { S: ITEM_TYPE.taskPart },
  [ATTR.data]: { S: JSON.stringify(value) },
});

/** A part item back to its name and value. */
export const decodeTaskPart = (item: ItemImage): [TaskPart, unknown] => {
  const sk = item[SORT_KEY]?.S ?? '';
  const part = TASK_PARTS.find((name) => taskPartSk(name) === sk);
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
 * the stored record does not keep apart yet (an earlier build's, or one that held nothing), is
 * put; one that now holds nothing but was kept apart is deleted. Nothing else is written.
 */
export const partChanges = (
  before: { parts: PartValues; apart: readonly TaskPart[] },
  after: PartValues
): { put: TaskPart[]; remove: TaskPart[] } => {
  const put: TaskPart[] = [];
  const remove: TaskPart[] = [];
  for (const part of TASK_PARTS) {
    const value = after[part];
    if (value === undefined) {
      if (before.apart.includes(part)) remove.push(part);
    } else if (
      !before.apart.includes(part) ||
      // The same value as held (a turn that did not touch it) is not serialised to be compared.
      (value !== before.parts[part] && JSON.stringify(value) !== JSON.stringify(before.parts[part]))
    ) {
      put.push(part);
    }
  }
  return { put, remove };
};
