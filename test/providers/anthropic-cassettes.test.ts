/**
 * pydantic-ai's recorded Anthropic conversations, replayed as whole glassloop agent runs: the
 * cassette's tools are defined from its first request, a local server answers with the recorded
 * responses, and every request the agent sends must match the recorded one in what matters.
 */
import { readdirSync, readFileSync } from "node:fs";
import { Agent, type AgentTool, tool } from "glassloop";
import { AnthropicModel } from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";
import { CAPTURES_DIR } from "../helpers/anthropic-captures.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";

interface Interaction {
  request: { parsed_body: Recorded; uri: string };
  response: { parsed_body: unknown; status: { code: number } };
}
interface RecordedTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}
interface Recorded {
  model: string;
  max_tokens: number;
  system?: string;
  messages: { role: string; content: string | Record<string, unknown>[] }[];
  tools?: RecordedTool[];
  tool_choice?: { type: string; name?: string };
  thinking?: { type: "enabled"; budget_tokens: number };
  stream?: boolean;
}

const DIR = `${CAPTURES_DIR}pydantic-ai/`;
// Replayed on their own in anthropic-thinking.test.ts (a single streamed answer, and a
// conversation of two runs with caching), images.test.ts (an image input) and
// tokens-before-sending.test.ts (a count_tokens request, not a run).
const ELSEWHERE = new Set([
  "test_anthropic-test_anthropic_model_thinking_part_stream.yaml",
  "test_anthropic-test_anthropic_cache_real_api.yaml",
  "test_anthropic-test_image_url_input.yaml",
  "test_anthropic-test_anthropic_cache_count_tokens.yaml",
]);
const CASSETTES = readdirSync(DIR)
  .filter((f) => f.startsWith("test_anthropic-") && f.endsWith(".yaml") && !ELSEWHERE.has(f))
  .sort();

function load(file: string): Interaction[] {
  return (parse(readFileSync(DIR + file, "utf8")) as { interactions: Interaction[] }).interactions;
}

/** The recorded tool results, by tool_use id, from every request of the cassette. */
function recordedResults(interactions: Interaction[]): Map<string, { content: string; isError: boolean }> {
  const results = new Map<string, { content: string; isError: boolean }>();
  for (const { request } of interactions) {
    for (const m of request.parsed_body.messages) {
      if (typeof m.content === "string") continue;
      for (const b of m.content) {
        if (b.type === "tool_result")
          results.set(b.tool_use_id as string, { content: String(b.content), isError: b.is_error === true });
      }
    }
  }
  return results;
}

/** A request in the terms that matter: blocks normalized, defaults made explicit, schema noise removed. */
function essence(body: Recorded, options: { skipToolDescriptions?: string[] } = {}) {
  return {
    model: body.model,
    max_tokens: body.max_tokens,
    system: body.system?.trim() ?? null,
    stream: body.stream ?? false,
    thinking: body.thinking ?? null,
    tool_choice: body.tool_choice ?? { type: "auto" },
    messages: body.messages.map((m) => ({
      role: m.role,
      content: (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content).map((b) =>
        b.type === "tool_result" ? { ...b, is_error: b.is_error === true } : b,
      ),
    })),
    tools: (body.tools ?? []).map((t) => ({
      name: t.name,
      // The description of final_result is the agent's own wording, not the user's.
      description: options.skipToolDescriptions?.includes(t.name) ? "(agent's)" : t.description,
      input_schema: schemaEssence(t.input_schema),
    })),
  };
}

function schemaEssence(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(schemaEssence);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    // `title` is pydantic's naming; `additionalProperties: {}` says what leaving it out says.
    const empty = v !== null && typeof v === "object" && Object.keys(v).length === 0;
    if (k === "title" || k === "$schema" || (k === "additionalProperties" && empty)) continue;
    out[k] = schemaEssence(v);
  }
  return out;
}

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

describe("pydantic-ai Anthropic cassettes as whole agent runs", () => {
  it("finds the cassettes", () => {
    expect(CASSETTES).toEqual([
      "test_anthropic-test_anthropic_tool_output.yaml",
      "test_anthropic-test_anthropic_tool_with_thinking.yaml",
      "test_anthropic-test_multiple_parallel_tool_calls.yaml",
    ]);
  });

  for (const file of CASSETTES) {
    it(`${file}: every request matches the recording, the run ends with the recorded answer`, async () => {
      const interactions = load(file);
      const first = interactions[0]?.request.parsed_body as Recorded;
      const results = recordedResults(interactions);
      const ran: string[] = [];

      const recordedTools = first.tools ?? [];
      const finalTool = recordedTools.find((t) => t.name === "final_result");
      const tools: AgentTool<undefined>[] = recordedTools
        .filter((t) => t !== finalTool)
        .map((t) =>
          tool({
            name: t.name,
            description: t.description,
            input: z.fromJSONSchema(t.input_schema) as z.ZodObject,
            run: (_args, { toolCallId }) => {
              ran.push(toolCallId);
              const result = results.get(toolCallId);
              if (!result) throw new Error(`no recorded result for ${toolCallId}`);
              return result.content;
            },
          }),
        );

      for (const { response } of interactions) {
        server.enqueue({ status: response.status.code, json: response.parsed_body });
      }
      const model = new AnthropicModel(first.model, {
        apiKey: "sk-ant-cassette-key",
        baseURL: server.url,
        maxTokens: first.max_tokens,
        // The recorded client set no cache breakpoints.
        cache: false,
        ...(first.thinking && { thinking: { budgetTokens: first.thinking.budget_tokens } }),
      });
      const common = {
        model,
        tools,
        ...(first.system !== undefined && { instructions: first.system }),
        ...(first.tool_choice?.type === "any" && { modelSettings: { toolChoice: "required" as const } }),
      };
      const result = finalTool
        ? await new Agent({ ...common, output: z.fromJSONSchema(finalTool.input_schema) }).run(
            textOf(first.messages[0]?.content),
          )
        : await new Agent(common).run(textOf(first.messages[0]?.content));

      expect(server.requests).toHaveLength(interactions.length);
      expect(server.unexpected).toBe(0);
      interactions.forEach(({ request }, i) => {
        const skip = { skipToolDescriptions: ["final_result"] };
        expect(essence(server.requests[i]?.body as Recorded, skip), `request ${i + 1}`).toEqual(
          essence(request.parsed_body, skip),
        );
        expect(server.requests[i]?.path).toBe("/v1/messages");
      });

      // Every recorded tool result was produced by running the tool with the recorded call id.
      expect(ran.sort()).toEqual([...results.keys()].sort());
      const last = interactions.at(-1)?.response.parsed_body as { content: Record<string, unknown>[] };
      const finalUse = last.content.find((b) => b.type === "tool_use" && b.name === "final_result");
      if (finalUse) expect(result.output).toEqual(finalUse.input);
      else expect(result.output).toBe(last.content.map((b) => b.text ?? "").join(""));
    });
  }

  it("groups the four parallel results into ONE user message, in call order, with their ids", async () => {
    const interactions = load("test_anthropic-test_multiple_parallel_tool_calls.yaml");
    const second = interactions[1]?.request.parsed_body as Recorded;
    // The recording itself has the shape, and the run above matched it exactly; this spells it out.
    const results = second.messages.at(-1)?.content as Record<string, unknown>[];
    expect(second.messages.at(-1)?.role).toBe("user");
    expect(results.map((b) => [b.type, b.tool_use_id])).toEqual([
      ["tool_result", "toolu_0167cfEnoQaPviGdVXA95zcu"],
      ["tool_result", "toolu_01EEe2V5HD1Ac4rKiUR4HD2T"],
      ["tool_result", "toolu_01XFyAjstT3966qvRynZyVPo"],
      ["tool_result", "toolu_013mnQZbgtK2oe3Mo3XKJsx3"],
    ]);
  });
});

function textOf(content: string | Record<string, unknown>[] | undefined): string {
  if (typeof content === "string") return content;
  return (content ?? []).map((b) => String(b.text ?? "")).join("");
}
