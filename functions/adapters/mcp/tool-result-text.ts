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
 * An MCP tool result as the transcript's text: its content blocks, then its structured content
 * as JSON when the text does not already carry it, cut to `maxChars` with the full size recorded.
 * The context frames every tool result as untrusted data when the model reads it.
 */
export const toolResultText = (
  result: { content?: McpContent[]; structuredContent?: unknown },
  maxChars: number
): string => {
  const parts = (result.content ?? []).map(blockText);
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent);
    if (!parts.includes(json)) parts.push(`[structured content]\n${json}`);
  }
  const text = parts.join('\n');
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[cut: the first ${maxChars} of ${text.length} characters of this result]`;
};
