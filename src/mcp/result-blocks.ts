import { fitsAsName } from "../core/files.js";

// The non-text blocks of an MCP tool result that glassloop passes on as they are (images, PDFs).
// The server is untrusted: each block is checked for its shape before it is used.

/** A file content block made from an MCP embedded resource. */
type FileBlock = { type: "file"; mediaType: string; data: string; filename?: string };

/**
 * MCP embedded `resource` blocks holding a PDF's bytes (`blob`, base64), keyed by their block, as
 * glassloop file content named after the last segment of the resource's URI.
 */
export function pdfResources(content: unknown): Map<unknown, FileBlock> {
  const files = new Map<unknown, FileBlock>();
  if (!Array.isArray(content)) return files;
  for (const b of content) {
    if (b === null || typeof b !== "object" || b.type !== "resource") continue;
    const resource = (b as { resource?: { uri?: unknown; mimeType?: unknown; blob?: unknown } }).resource;
    if (resource?.mimeType !== "application/pdf" || typeof resource.blob !== "string") continue;
    const file: FileBlock = { type: "file", mediaType: "application/pdf", data: resource.blob };
    const name = typeof resource.uri === "string" ? lastSegment(resource.uri) : undefined;
    if (name) file.filename = name;
    files.set(b, file);
  }
  return files;
}

function lastSegment(uri: string): string | undefined {
  const path = URL.canParse(uri) ? new URL(uri).pathname : uri;
  let name: string;
  try {
    name = decodeURIComponent(path.split("/").at(-1) ?? "");
  } catch {
    return undefined;
  }
  // A hostile server's name must not cost the document: one that is not a fit name is left out.
  return fitsAsName(name) ? name : undefined;
}

/** MCP `image` content blocks of a tool result, as glassloop image content. */
export function imageBlocks(content: unknown): { type: "image"; mimeType: string; data: string }[] {
  if (!Array.isArray(content)) return [];
  return content.filter(
    (b): b is { type: "image"; mimeType: string; data: string } =>
      b !== null &&
      typeof b === "object" &&
      b.type === "image" &&
      typeof b.data === "string" &&
      typeof b.mimeType === "string",
  );
}
