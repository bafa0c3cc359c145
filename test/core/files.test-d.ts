import type {
  ConfigError,
  FilePart,
  ImagePart,
  Message,
  RunOptions,
  ToolMessage,
  ToolOutcome,
  UserMessage,
} from "glassloop";
import type { UnsupportedContentError } from "glassloop/models";
import { describe, expectTypeOf, it } from "vitest";

describe("the file part in the types", () => {
  it("is discriminated by type, with bytes or a url and an optional name", () => {
    expectTypeOf<FilePart["type"]>().toEqualTypeOf<"file">();
    expectTypeOf<FilePart["mediaType"]>().toEqualTypeOf<string>();
    expectTypeOf<FilePart["data"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<FilePart["url"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<FilePart["filename"]>().toEqualTypeOf<string | undefined>();
    // An image is not a file and a file is not an image: the discriminant keeps them apart.
    expectTypeOf<FilePart>().not.toMatchTypeOf<ImagePart>();
    expectTypeOf<ImagePart>().not.toMatchTypeOf<FilePart>();
    // @ts-expect-error a file part says what it is
    const untyped: FilePart = { mediaType: "application/pdf", data: "JVBERi0=" };
    expectTypeOf(untyped).toEqualTypeOf<FilePart>();
  });

  it("rides on user messages and tool results, not on system or assistant turns", () => {
    expectTypeOf<UserMessage["files"]>().toEqualTypeOf<FilePart[] | undefined>();
    expectTypeOf<ToolMessage["files"]>().toEqualTypeOf<FilePart[] | undefined>();
    const user: Message = {
      role: "user",
      content: "read",
      files: [{ type: "file", mediaType: "application/pdf" }],
    };
    // @ts-expect-error files belong to user turns and tool results
    const assistant: Message = { role: "assistant", content: "ok", files: [] };
    // @ts-expect-error files belong to user turns and tool results
    const system: Message = { role: "system", content: "be brief", files: [] };
    expectTypeOf(user).toEqualTypeOf<UserMessage>();
    expectTypeOf([assistant, system]).toMatchTypeOf<Message[]>();
  });

  it("is a run option beside images, and part of the one tool outcome the store keeps", () => {
    expectTypeOf<RunOptions<undefined>["files"]>().toEqualTypeOf<readonly FilePart[] | undefined>();
    expectTypeOf<RunOptions<undefined>["images"]>().toEqualTypeOf<readonly ImagePart[] | undefined>();
    expectTypeOf<ToolOutcome["files"]>().toEqualTypeOf<FilePart[] | undefined>();
    expectTypeOf<ToolOutcome["images"]>().toEqualTypeOf<ImagePart[] | undefined>();
  });

  it("has a typed refusal where a provider has no place for it, a ConfigError naming the provider", () => {
    expectTypeOf<UnsupportedContentError>().toMatchTypeOf<ConfigError>();
    expectTypeOf<UnsupportedContentError["provider"]>().toEqualTypeOf<string>();
    expectTypeOf<UnsupportedContentError["code"]>().toEqualTypeOf<ConfigError["code"]>();
  });
});
