import type { Message, ToolMessage } from "glassloop";
import { describe, expect, it } from "vitest";
import { toolAttachmentsCaption, turnAttachments } from "./attachments.js";

const PIXEL = { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" } as const;
const tool = (id: string, extra: Partial<ToolMessage> = {}): ToolMessage => ({
  role: "tool",
  toolCallId: id,
  toolName: "look",
  content: "ok",
  ...extra,
});
const calls = (...ids: string[]): Message => ({
  role: "assistant",
  content: "",
  toolCalls: ids.map((id) => ({ id, name: "look", arguments: "{}" })),
});
const parts = (m: ToolMessage) => [toolAttachmentsCaption(m), ...(m.images ?? []).map(() => "image")];

describe("turnAttachments", () => {
  const transcript: Message[] = [
    { role: "user", content: "look" },
    calls("a", "b", "c"),
    tool("a", { images: [PIXEL] }),
    tool("b"),
    tool("c", { images: [PIXEL, PIXEL] }),
    calls("d"),
    tool("d"),
  ];

  it("collects the attaching results of the turn that ends at `last`, in order, and skips the others", () => {
    expect(turnAttachments(transcript, 4, parts)).toEqual([
      "Images returned by tool look (call a):",
      "image",
      "Images returned by tool look (call c):",
      "image",
      "image",
    ]);
  });

  it("is undefined for a turn whose results attach nothing", () => {
    expect(turnAttachments(transcript, 6, parts)).toBeUndefined();
  });

  it("reads no result before `start` (a continued response sends only what came after it)", () => {
    expect(turnAttachments(transcript, 4, parts, 3)).toEqual([
      "Images returned by tool look (call c):",
      "image",
      "image",
    ]);
  });
});
