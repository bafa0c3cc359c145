/** One content block of an MCP tool result (the subset glassloop renders). */
type Block = {
  type: string;
  text?: string;
  mimeType?: string;
  resource?: { uri?: string; text?: string };
  uri?: string;
};

/**
 * An MCP tool result as the text the model reads: text blocks as they are, structured content as
 * JSON, binary blocks as a short placeholder (never raw base64 into the context window).
 */
export function renderContent(result: {
  content?: unknown;
  structuredContent?: unknown;
  toolResult?: unknown;
}): string {
  const blocks = Array.isArray(result.content) ? (result.content as Block[]) : [];
  const parts = blocks.map((block) => {
    switch (block.type) {
      case "text":
        return block.text ?? "";
      case "resource":
        return block.resource?.text ?? `[resource ${block.resource?.uri ?? ""}]`;
      case "resource_link":
        return `[resource link ${block.uri ?? ""}]`;
      default:
        return `[${block.type}${block.mimeType ? ` ${block.mimeType}` : ""} omitted]`;
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined)
    return JSON.stringify(result.structuredContent);
  if (parts.length === 0 && result.toolResult !== undefined) return JSON.stringify(result.toolResult);
  return parts.join("\n");
}
