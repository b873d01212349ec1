import * as z from 'zod';

/**
 * A variable holding JSON, read by its schema; '' or unset is `empty`. A problem is thrown as one
 * line naming each field, for the start's configuration error.
 */
export const parseJsonVariable = <S extends z.ZodType>(
  schema: S,
  text: string | undefined,
  empty: z.output<S>
): z.output<S> => {
  if (text === undefined || text.trim() === '') return empty;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      parsed.error.issues
        .map((issue) => `${issue.path.join('.') || '(top)'}: ${issue.message}`)
        .join('; ')
    );
  }
  return parsed.data;
};

/** A JSON object of named entries: each key must match `name` (else `message`, at that key). */
export const namedRecord = <S extends z.ZodType>(value: S, name: RegExp, message: string) =>
  z.record(z.string(), value).superRefine((entries, context) => {
    for (const key of Object.keys(entries)) {
      if (name.test(key)) continue;
      context.addIssue({ code: 'custom', path: [key], message });
    }
  });
