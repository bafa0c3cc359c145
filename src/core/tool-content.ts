import type { FilePart, ImagePart } from "./vocabulary/messages.js";

/** A tool's return value read as content blocks: its text, and the images and files to attach. */
export interface ToolContent {
  text: string;
  images: ImagePart[];
  files: FilePart[];
}

type Block = {
  type?: unknown;
  text?: unknown;
  data?: unknown;
  url?: unknown;
  mediaType?: unknown;
  mimeType?: unknown;
  filename?: unknown;
};

/**
 * The images and files in a tool's return value, and its text, when it returned such content: one
 * block (`{ type: "image" | "file", mediaType, data | url }`, MCP's `mimeType` accepted too, and a
 * file's optional `filename`; a file block needs both a type and a source) or a list of blocks
 * mixing those with `{ type: "text", text }`.
 * `undefined` for any other value, which is then sent as JSON. Parts are not checked here.
 */
export function toolContent(value: unknown): ToolContent | undefined {
  const blocks = Array.isArray(value) ? value : [value];
  const content: ToolContent = { text: "", images: [], files: [] };
  const texts: string[] = [];
  for (const block of blocks) {
    if (block === null || typeof block !== "object") return undefined;
    const b = block as Block;
    if (b.type === "text" && typeof b.text === "string") texts.push(b.text);
    else if (b.type === "image") content.images.push(withSource({ type: "image", mediaType: typeOf(b) }, b));
    // "file" is a common word in tools' own JSON (a directory listing's entries): only a block with
    // a media type and bytes or a url is file content; anything else leaves the value plain JSON.
    else if (b.type === "file" && isFileBlock(b)) {
      const part = withSource<FilePart>({ type: "file", mediaType: typeOf(b) }, b);
      if (typeof b.filename === "string") part.filename = b.filename;
      content.files.push(part);
    } else return undefined;
  }
  if (content.images.length === 0 && content.files.length === 0) return undefined;
  content.text = texts.join("\n");
  return content;
}

function isFileBlock(b: Block): boolean {
  const typed = typeof b.mediaType === "string" || typeof b.mimeType === "string";
  return typed && (typeof b.data === "string" || typeof b.url === "string");
}

function typeOf(b: Block): string {
  return typeof b.mediaType === "string" ? b.mediaType : typeof b.mimeType === "string" ? b.mimeType : "";
}

function withSource<T extends ImagePart | FilePart>(part: T, b: Block): T {
  if (typeof b.data === "string") part.data = b.data;
  else if (typeof b.url === "string") part.url = b.url;
  return part;
}
