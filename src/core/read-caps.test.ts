import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  capStream,
  containedPath,
  InputTooLargeError,
  isInside,
  PathOutsideError,
  readBodyCapped,
} from "./read-caps.js";

const bytes = (text: string) => new TextEncoder().encode(text);
function streamOf(chunks: readonly string[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(bytes(chunks[i++] as string));
      else controller.close();
    },
  });
}
async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}
const tooLarge = () => new InputTooLargeError("mcpMessage", 10, "test");

describe("read caps", () => {
  it("a body is read whole under its cap, refused past it, and refused at once for a declared length past it", async () => {
    expect((await readBodyCapped(streamOf(["12345", "67890"]), 10, tooLarge)).toString()).toBe("1234567890");
    await expect(readBodyCapped(streamOf(["12345", "678901"]), 10, tooLarge)).rejects.toBeInstanceOf(
      InputTooLargeError,
    );
    let pulled = false;
    const lazy = new ReadableStream<Uint8Array>({
      pull() {
        pulled = true;
      },
    });
    await expect(readBodyCapped(lazy, 10, tooLarge, "11")).rejects.toMatchObject({ code: "input_too_large" });
    expect(pulled).toBe(false);
  });

  it("per event, a long stream of small events goes on; one event past the cap is cut, also across chunks", async () => {
    const events = Array.from({ length: 20 }, (_, i) => `data: ${i}\n\n`);
    expect(await text(capStream(streamOf(events), 10, { perEvent: true, tooLarge }))).toBe(events.join(""));
    const split = ["data: 1\n", "\ndata: 2\r\n\r", "\n", "data: 0123456789\n\n"];
    await expect(text(capStream(streamOf(split), 10, { perEvent: true, tooLarge }))).rejects.toBeInstanceOf(
      InputTooLargeError,
    );
    // An event past the cap that ends inside the same chunk is cut too.
    await expect(
      text(capStream(streamOf(["data: 0123456789\n\ndata: 1\n\n"]), 10, { perEvent: true, tooLarge })),
    ).rejects.toBeInstanceOf(InputTooLargeError);
    const ended = capStream(streamOf(["data: 0123456789abc"]), 10, {
      perEvent: true,
      tooLarge,
      onOverflow: () => bytes("\n\nerror\n\n"),
    });
    expect(await text(ended)).toBe("\n\nerror\n\n");
  });

  it("a path stays inside its folder: ../, absolute paths and links out are refused", () => {
    const root = mkdtempSync(join(tmpdir(), "glassloop-contain-"));
    try {
      mkdirSync(join(root, "in"));
      const base = join(root, "in");
      expect(containedPath(base, "traces/a.jsonl")).toBe(join(base, "traces", "a.jsonl"));
      expect(() => containedPath(base, "../x")).toThrow(PathOutsideError);
      expect(() => containedPath(base, "/etc/passwd")).toThrow(PathOutsideError);
      expect(() => containedPath(base, "traces/../../x")).toThrow(PathOutsideError);
      symlinkSync(root, join(base, "up"));
      expect(() => containedPath(base, "up/in/../x")).toThrow(PathOutsideError);
      expect(() => containedPath(base, "up")).toThrow(/points outside/);
      expect(isInside("/a/b", "/a/b")).toBe(true);
      expect(isInside("/a/b", "/a/bc")).toBe(false);
      expect(isInside("/a/b", "/a/b/..c")).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
