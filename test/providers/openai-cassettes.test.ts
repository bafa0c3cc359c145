/**
 * The pydantic-ai OpenAI-family cassettes replayed as whole agent runs. Each cassette's tools are
 * defined from its recorded request (their results from the recorded follow-up requests), an Agent
 * runs against a server that answers with the recorded responses, and every request the agent
 * sends must match the recorded one in what matters: the conversation (roles, texts, tool calls
 * with their arguments, tool results paired by call id), the tool definitions, tool choice, stream.
 */
import { Agent, type AgentEvent, type Model, type ToolChoice, tool } from "glassloop";
import { COMPATIBLE_QUIRKS, OpenAIChatModel, type OpenAIPresetName, presetModel } from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type CassetteInteraction,
  type CassetteMessage,
  type CassetteRequestBody,
  type CassetteSchema,
  readCassette,
} from "../helpers/openai-captures.js";
import { startWireServer, type WireReply, type WireServer } from "../helpers/wire-server.js";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

type Provider = OpenAIPresetName | "compatible";

const cassettes: { name: string; provider: Provider; output?: unknown }[] = [
  {
    name: "test_openai-test_openai_tool_output",
    provider: "openai",
    output: { city: "Mexico City", country: "Mexico" },
  },
  { name: "test_openai-test_openai_instructions_with_tool_calls_keep_instructions", provider: "openai" },
  { name: "test_openai-test_compatible_api_with_tool_calls_without_id", provider: "compatible" },
  {
    name: "test_openai-test_openai_model_cerebras_provider_qwen_3_coder",
    provider: "compatible",
    output: { city: "Paris", country: "France" },
  },
  { name: "test_groq-test_tool_use_failed_error", provider: "groq" },
  { name: "test_groq-test_tool_use_failed_error_streaming", provider: "groq" },
  {
    name: "test_ollama-test_ollama_cloud_tool_output",
    provider: "ollama",
    output: { city: "Paris", country: "France" },
  },
];

describe("pydantic-ai cassettes as whole agent runs", () => {
  it.each(cassettes)("$name", async ({ name, provider, output }) => {
    const interactions = readCassette(name);
    const first = interactions[0]?.request.parsed_body as CassetteRequestBody;
    server.handler = (_request, index) => replyFor(interactions[index]);

    const agent = buildAgent(first, interactions, modelFor(provider, first.model));
    const events: AgentEvent[] = [];
    const input = first.messages.find((m) => m.role === "user")?.content ?? "";
    let result: Awaited<ReturnType<typeof agent.run>>;
    if (first.stream) {
      const stream = agent.stream(input, { onEvent: (e) => events.push(e) });
      for await (const _ of stream);
      result = await stream.result;
    } else {
      result = await agent.run(input, { onEvent: (e) => events.push(e) });
    }

    // Exactly the recorded number of requests, each matching its recording.
    expect(server.requests).toHaveLength(interactions.length);
    expect(server.unexpected).toBe(0);
    const pairs = new Map<string, string>();
    interactions.forEach((interaction, i) => {
      const recorded = interaction.request.parsed_body;
      const sent = server.requests[i]?.body as CassetteRequestBody;
      expect(server.requests[i]?.path).toBe("/v1/chat/completions");
      expect(sent.model).toBe(recorded.model);
      expect(Boolean(sent.stream)).toBe(Boolean(recorded.stream));
      expect(sent.tool_choice ?? "auto").toEqual(recorded.tool_choice ?? "auto");
      expect(toolsOf(sent)).toEqual(toolsOf(recorded));
      pairIds(sent.messages, recorded.messages, pairs);
      const rename = (id: string) => pairs.get(id) ?? `unpaired:${id}`;
      expect(conversation(sent.messages, "sent", rename)).toEqual(
        conversation(recorded.messages, "recorded", (id) => id),
      );
    });

    // The model_request events carry exactly the bytes that went over the wire (invariant 6).
    const requests = events.filter((e) => e.type === "model_request");
    expect(requests.map((e) => JSON.stringify(e.body))).toEqual(server.requests.map((r) => r.raw));

    const last = interactions.at(-1)?.response;
    if (output !== undefined) expect(result.output).toEqual(output);
    else expect(result.output).toBe(finalText(last));
    expect(result.usage.requests).toBe(interactions.length);
  });

  it("the empty-id cassette without the fill quirk still pairs the call with its result", async () => {
    const interactions = readCassette("test_openai-test_compatible_api_with_tool_calls_without_id");
    const first = interactions[0]?.request.parsed_body as CassetteRequestBody;
    server.handler = (_request, index) => replyFor(interactions[index]);
    const model = new OpenAIChatModel({ model: first.model, baseURL: `${server.url}/v1` });
    expect(model.quirks.fillToolCallIds).toBe(false);
    const result = await buildAgent(first, interactions, model).run("What is the current time?");
    const second = server.requests[1]?.body as CassetteRequestBody;
    const callId = second.messages[1]?.tool_calls?.[0]?.id;
    expect(callId).toMatch(/\S/);
    expect(second.messages[2]).toEqual({ role: "tool", tool_call_id: callId, content: "Noon" });
    expect(result.output).toBe("The current time is Noon.");
  });

  it("with the fill quirk the empty id becomes a unique call_ id, the same in call and result", async () => {
    const interactions = readCassette("test_openai-test_compatible_api_with_tool_calls_without_id");
    const first = interactions[0]?.request.parsed_body as CassetteRequestBody;
    server.handler = (_request, index) => replyFor(interactions[index]);
    const events: AgentEvent[] = [];
    await buildAgent(first, interactions, modelFor("compatible", first.model)).run(
      "What is the current time?",
      {
        onEvent: (e) => events.push(e),
      },
    );
    const call = events.find((e) => e.type === "tool_call");
    expect(call?.toolCallId).toMatch(/^call_[0-9a-f]{24}$/);
    const second = server.requests[1]?.body as CassetteRequestBody;
    expect(second.messages[1]?.tool_calls?.[0]?.id).toBe(call?.toolCallId);
    expect(second.messages[2]?.tool_call_id).toBe(call?.toolCallId);
  });
});

function modelFor(provider: Provider, model: string): Model {
  const baseURL = `${server.url}/v1`;
  if (provider === "compatible")
    return new OpenAIChatModel({ model, baseURL, provider: "compatible", quirks: COMPATIBLE_QUIRKS });
  return presetModel(provider, model, { baseURL, apiKey: "sk-test-cassette-key", env: {} });
}

function replyFor(interaction: CassetteInteraction | undefined): WireReply {
  if (!interaction) return { status: 599, json: { error: { message: "cassette has no more interactions" } } };
  const { response } = interaction;
  if (response.body?.string !== undefined) return { status: response.status.code, sse: response.body.string };
  return { status: response.status.code, json: response.parsed_body };
}

/** The agent the cassette was recorded with: its instructions, tools, output and tool choice. */
function buildAgent(first: CassetteRequestBody, interactions: CassetteInteraction[], model: Model) {
  const results = toolResults(interactions);
  const tools = (first.tools ?? [])
    .filter((t) => t.function.name !== "final_result")
    .map((t) =>
      tool({
        name: t.function.name,
        description: t.function.description ?? "",
        input: zodFor(t.function.parameters),
        run: (args: unknown) => {
          const key = `${t.function.name} ${JSON.stringify(args)}`;
          const content = results.get(key);
          if (content === undefined) throw new Error(`the cassette never answered ${key}`);
          return content;
        },
      }),
    );
  const finalResult = first.tools?.find((t) => t.function.name === "final_result");
  const instructions = first.messages.find((m) => m.role === "system")?.content ?? undefined;
  const modelSettings =
    first.tool_choice !== undefined ? { toolChoice: first.tool_choice as ToolChoice } : undefined;
  const base = {
    model,
    tools,
    ...(instructions && { instructions }),
    ...(modelSettings && { modelSettings }),
  };
  return finalResult
    ? new Agent({ ...base, output: zodFor(finalResult.function.parameters) })
    : new Agent(base);
}

/** `name {args}` → the content the cassette's next request carried as that call's result. */
function toolResults(interactions: CassetteInteraction[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const { request } of interactions) {
    const calls = new Map<string, string>();
    for (const m of request.parsed_body.messages) {
      for (const c of m.tool_calls ?? [])
        calls.set(c.id, `${c.function.name} ${JSON.stringify(JSON.parse(c.function.arguments))}`);
      if (m.role === "tool" && m.tool_call_id && !isPydanticRetry(m.content)) {
        const key = calls.get(m.tool_call_id);
        if (key) out.set(key, m.content ?? "");
      }
    }
  }
  return out;
}

function zodFor(schema: CassetteSchema) {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, prop] of Object.entries(schema.properties)) {
    const type = prop.type === "number" || prop.type === "integer" ? z.number() : z.string();
    shape[key] = schema.required?.includes(key) ? type : type.optional();
  }
  return schema.additionalProperties === false ? z.strictObject(shape) : z.object(shape);
}

/** Tool definitions in what matters: name, description (not for the agent's own final_result), schema. */
function toolsOf(body: CassetteRequestBody) {
  return (body.tools ?? [])
    .map((t) => ({
      name: t.function.name,
      ...(t.function.name !== "final_result" && { description: t.function.description ?? "" }),
      properties: t.function.parameters.properties,
      required: [...(t.function.parameters.required ?? [])].sort(),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Pairs the ids the agent sent with the recorded ones (pydantic-ai made some up), by position of
 * the calls, one to one: a sent id that would pair with a second recorded id stays unpaired, so an
 * inconsistent reuse shows up as a mismatch.
 */
function pairIds(sent: CassetteMessage[], recorded: CassetteMessage[], pairs: Map<string, string>): void {
  const taken = new Set(pairs.values());
  sent.forEach((m, i) => {
    const other = recorded[i]?.tool_calls ?? [];
    (m.tool_calls ?? []).forEach((call, j) => {
      const partner = other[j]?.id;
      if (partner === undefined || pairs.has(call.id) || taken.has(partner)) return;
      pairs.set(call.id, partner);
      taken.add(partner);
    });
  });
}

/**
 * A conversation in what matters. Feedback the framework wrote (pydantic-ai's retry prompts, our
 * loop's feedback) differs in wording by design, so it is compared by role and position only;
 * pydantic-ai's `<think>` copies of reasoning are not conversation. `rename` maps ids to the
 * recorded side's.
 */
function conversation(
  messages: CassetteMessage[],
  side: "sent" | "recorded",
  rename: (id: string) => string,
) {
  let users = 0;
  return messages.map((m) => {
    switch (m.role) {
      case "system":
        return { role: m.role, content: m.content };
      case "user":
        return { role: m.role, content: users++ === 0 ? m.content : "<feedback>" };
      case "assistant":
        return {
          role: m.role,
          content: (m.content ?? "").replace(/<think>[\s\S]*?<\/think>/g, "").trim(),
          calls: (m.tool_calls ?? []).map((c) => ({
            id: rename(c.id),
            name: c.function.name,
            arguments: JSON.parse(c.function.arguments) as unknown,
          })),
        };
      case "tool": {
        const feedback = side === "recorded" ? isPydanticRetry(m.content) : !isSuccess(m.content);
        return {
          role: m.role,
          id: rename(m.tool_call_id ?? ""),
          content: feedback ? "<feedback>" : m.content,
        };
      }
      default:
        return { role: "unexpected", message: m as unknown };
    }
  });
}

function isPydanticRetry(content: string | null | undefined): boolean {
  return (
    /validation errors?:/.test(content ?? "") && (content ?? "").includes("Fix the errors and try again.")
  );
}

// The tools here return plain strings; our loop's feedback for a bad call starts with a known shape.
function isSuccess(content: string | null | undefined): boolean {
  return !/^(Invalid arguments|Unknown tool|Error|The arguments)/i.test(content ?? "");
}

function finalText(response: CassetteInteraction["response"] | undefined): string {
  if (!response) return "";
  if (response.body?.string !== undefined) {
    return response.body.string
      .split("\n")
      .filter((line) => line.startsWith("data: {"))
      .map(
        (line) =>
          (JSON.parse(line.slice(6)) as { choices?: { delta?: { content?: string | null } }[] }).choices?.[0]
            ?.delta?.content ?? "",
      )
      .join("");
  }
  const body = response.parsed_body as { choices: { message: { content?: string | null } }[] };
  return body.choices[0]?.message.content ?? "";
}
