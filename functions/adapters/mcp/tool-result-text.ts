/** One content block of an MCP tool result, as much of it as the harness reads. */
export interface McpContent {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

const blockText = (block: McpContent): string => {
  switch (block.type) {
    case 'text':
      return block.text ?? '';
    case 'resource_link':
      return `[resource link: ${block.name ?? ''} ${block.uri ?? ''}]`;
    case 'resource':
      return block.resource?.text !== undefined
        ? `[resource ${block.resource.uri ?? ''}]\n${block.resource.text}`
        : `[resource ${block.resource?.uri ?? ''}: ${block.resource?.mimeType ?? 'binary'}, not shown]`;
    default:
      // Images and audio: the transcript is text; the model is told what it does not see.
      return `[${block.type} ${block.mimeType ?? ''}, ${block.data?.length ?? 0} base64 characters, not shown]`;
  }
};

/**
 * The most characters of one result its record keeps (a commit writes it with the call's result:
 * DynamoDB stores it in pieces of 100,000, and a transaction holds at most 4 MB).
 */
export const MAX_STORED_RESULT_CHARS = 400_000;

/**
 * An MCP tool result as text: its content blocks, then its structured content as JSON when the
 * text does not already carry it. The context frames every tool result as untrusted data when
 * the model reads it.
 */
export const toolResultText = (result: {
  content?: McpContent[];
  structuredContent?: unknown;
}): string => {
  const parts = (result.content ?? []).map(blockText);
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent);
    if (!parts.includes(json)) parts.push(`[structured content]\n${json}`);
  }
  return parts.join('\n');
};

/**
 * A result as the transcript keeps it: whole when it fits `maxChars`; else its first `maxChars`
 * with its full size, and the whole (up to MAX_STORED_RESULT_CHARS) for the call's record.
 */
export const cutResult = (text: string, maxChars: number): { output: string; whole?: string } => {
  if (text.length <= maxChars) return { output: text };
  const stored =
    text.length <= MAX_STORED_RESULT_CHARS
      ? text
      : `${text.slice(0, MAX_STORED_RESULT_CHARS)}\n[cut: the first ${MAX_STORED_RESULT_CHARS} of ${text.length} characters of this result are kept]`;
  return {
    output: `${text.slice(0, maxChars)}\n[cut: the first ${maxChars} of ${text.length} characters of this result; the whole is in the call's record]`,
    whole: stored,
  };
};
