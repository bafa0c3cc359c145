import { describe, expect, it } from "vitest";
import { scrubberFor } from "../core/sink.js";
import type { Model, ModelDelta, ModelObserver, ModelResponse } from "../models/model.js";
import { durableModel } from "./durable-model.js";
import type { RunSteps } from "./run-steps.js";

const SECRET = "hunter2-very-secret-token";
const TEXT = `the password is ${SECRET} and nothing else`;

/** A model that streams `text` cut at `at`, as text and as one tool call's arguments. */
function splitting(at: number): Model {
  return {
    id: "test:split",
    async generate(_request, observer: ModelObserver): Promise<ModelResponse> {
      const pieces = [TEXT.slice(0, at), TEXT.slice(at)];
      for (const text of pieces) observer.onDelta?.({ type: "text", text });
      for (const argumentsDelta of pieces)
        observer.onDelta?.({ type: "tool_call", index: 0, argumentsDelta });
      return { text: TEXT, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, finishReason: "stop" };
    },
  };
}

/** DBOS's part, reduced to what durableModel needs: run the step, keep what it would record. */
function recordingSteps(recorded: unknown[]): RunSteps {
  return {
    step: async (_name: string, fn: () => Promise<unknown>) => {
      const output = await fn();
      recorded.push(output);
      return output;
    },
  } as unknown as RunSteps;
}

describe("a model call recorded as a DBOS step", () => {
  it("records its deltas scrubbed as streams: a secret split at any position leaves no piece, the count kept", async () => {
    const redactor = scrubberFor({}, { secrets: [SECRET] });
    for (let at = 1; at < TEXT.length; at++) {
      const recorded: { observed: { kind: string; delta?: ModelDelta }[] }[] = [];
      const live: ModelDelta[] = [];
      await durableModel(splitting(at), recordingSteps(recorded), redactor).generate(
        { messages: [], tools: [], signal: new AbortController().signal },
        { onRequest: () => {}, onDelta: (d) => live.push(d) },
      );
      const deltas = (recorded[0]?.observed ?? []).flatMap((o) => (o.delta ? [o.delta] : []));
      expect(deltas).toHaveLength(4);
      const text = deltas.flatMap((d) => (d.type === "text" ? [d.text] : [])).join("");
      const args = deltas.flatMap((d) => (d.type === "tool_call" ? [d.argumentsDelta] : [])).join("");
      expect(text).toBe(redactor.text(TEXT));
      expect(args).toBe(redactor.text(TEXT));
      for (const d of deltas) {
        const piece = d.type === "tool_call" ? d.argumentsDelta : d.text;
        for (let i = 0; i + 4 <= SECRET.length; i++) expect(piece).not.toContain(SECRET.slice(i, i + 4));
      }
      // The live caller still got the model's own pieces; its sinks scrub them as streams.
      expect(live.map((d) => (d.type === "tool_call" ? d.argumentsDelta : d.text)).join("")).toBe(
        TEXT + TEXT,
      );
    }
  });
});
