import type { AgentEvent, Message, Model, Store, UserMessage } from "glassloop";
import type { OpenAIChatModel } from "glassloop/models";
import type { SqliteStore } from "glassloop/store";
import type { ToolCallEvent } from "glassloop/trace";
import { describe, expectTypeOf, it } from "vitest";

// The layers fit together: a room entry's names are the same types the root's unions and
// interfaces are made of, not copies that could drift.
describe("the public entries' types", () => {
  it("names each member of the root's AgentEvent in glassloop/trace", () => {
    expectTypeOf<Extract<AgentEvent, { type: "tool_call" }>>().toEqualTypeOf<ToolCallEvent>();
    expectTypeOf<ToolCallEvent>().toExtend<AgentEvent>();
  });

  it("gives the root's Store and Model interfaces to the rooms' implementations", () => {
    expectTypeOf<SqliteStore>().toExtend<Store>();
    expectTypeOf<OpenAIChatModel>().toExtend<Model>();
    expectTypeOf<UserMessage>().toExtend<Message>();
  });
});
