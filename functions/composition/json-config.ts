import type * as z from 'zod';

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
