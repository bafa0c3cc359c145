/**
 * The embedded local model, for real: node-llama-cpp loads a GGUF the suite writes itself
 * (test/helpers/tiny-gguf.ts), generates, makes a grammar-constrained tool call that the agent
 * loop executes, reads the tool result back and answers. Skipped only when node-llama-cpp's
 * native binary cannot load on this machine, and then it says why.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Agent, type AgentEvent, type Message, type ModelRequest, resolveModel } from "glassloop";
import { LocalModel, LocalModelError, probeLocalEngine } from "glassloop/models";
import { calculatorTool } from "glassloop/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveSourceFile } from "../../src/providers/local/download.js";
import { importEngine, startEngine } from "../../src/providers/local/engine.js";
import { parseLocalModelName } from "../../src/providers/local/name.js";
import { toGrammarSchema } from "../../src/providers/local/schema.js";
import { toolParameters } from "../../src/tools/json-schema.js";
import { TINY_MODEL, tinyGgufBytes, writeTinyGguf } from "../helpers/tiny-gguf.js";

// One thread: vitest runs other files beside this one on the same cores, and llama.cpp's threads
// spin-wait on each other, so two threads on two busy cores are ~100x slower than one.
const THREADS = 1;

const engineProblem = (await probeLocalEngine())?.message ?? null;
if (engineProblem) {
  console.warn(`[local-model.test] SKIPPED: node-llama-cpp cannot run on this machine: ${engineProblem}`);
}

const CALCULATOR_SPEC = {
  name: "calculator",
  description: "Evaluates an arithmetic expression.",
  parameters: toolParameters(z.object({ expression: z.string() }), "calculator"),
};

const QUESTION = "What is 6 times 7?";

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    instructions: "Use the calculator for arithmetic.",
    messages: [{ role: "user", content: QUESTION }],
    tools: [CALCULATOR_SPEC],
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** The transcript after the calculator answered: the model should now write its final answer. */
const AFTER_TOOL: Message[] = [
  { role: "user", content: QUESTION },
  {
    role: "assistant",
    content: "",
    toolCalls: [{ id: "c1", name: "calculator", arguments: '{"expression": "6*7"}' }],
  },
  { role: "tool", toolCallId: "c1", toolName: "calculator", content: "42" },
];

const noObserver = { onRequest() {} };

/** An observer that keeps the last request body, to compare with what the engine evaluated. */
function recorder() {
  const seen: { body?: { prompt: string; promptTokens: number; settings: Record<string, unknown> } } = {};
  return {
    seen,
    observer: {
      onRequest: (wire: { body: unknown }) => {
        seen.body = wire.body as typeof seen.body;
      },
    },
  };
}

/** The engine's context holds exactly the reported prompt, then what the model generated. */
async function expectEvaluated(model: LocalModel, prompt: string | undefined): Promise<string> {
  const { contextText } = await model.info();
  expect(prompt).toBeTruthy();
  expect(contextText.startsWith(prompt ?? "?")).toBe(true);
  return contextText.slice(prompt?.length);
}

async function tempDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), "glassloop-local-"));
}

describe.skipIf(engineProblem !== null)("embedded local model on a generated GGUF", () => {
  let dir: string;
  let file: string;
  let model: LocalModel;

  beforeAll(async () => {
    dir = await tempDir();
    file = await writeTinyGguf(dir);
    model = new LocalModel(file, { threads: THREADS });
    await model.load();
  }, 60_000);

  afterAll(async () => {
    await model?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("runs an agent end to end: tool call under the grammar, the real tool, its result fed back, the answer", async () => {
    const agent = new Agent({
      instructions: "Use the calculator for arithmetic.",
      model,
      tools: [calculatorTool()],
    });
    const result = await agent.run(QUESTION);

    expect(result.output).toBe(TINY_MODEL.answer);
    const call = result.messages[2];
    expect(call).toMatchObject({
      role: "assistant",
      content: "",
      toolCalls: [{ name: "calculator", arguments: `{"expression": "${TINY_MODEL.argument}"}` }],
    });
    const callId = call?.role === "assistant" ? call.toolCalls?.[0]?.id : undefined;
    expect(callId).toMatch(/^call_[0-9a-f]{24}$/);
    expect(result.messages).toEqual([
      { role: "system", content: "Use the calculator for arithmetic." },
      { role: "user", content: QUESTION },
      call,
      { role: "tool", toolCallId: callId, toolName: "calculator", content: "42" },
      { role: "assistant", content: TINY_MODEL.answer },
    ]);
    expect(result.usage).toMatchObject({ requests: 2, toolCalls: 1, costUsd: 0 });
    // The second call continued on the cached prefix, and the engine still holds the whole chat.
    const secondPrompt = `<tool_response>\n42\n</tool_response><|im_end|>\n<|im_start|>assistant\n`;
    const evaluated = (await model.info()).contextText;
    expect(evaluated.startsWith("<|im_start|>system\nUse the calculator for arithmetic.")).toBe(true);
    expect(evaluated).toContain(secondPrompt + TINY_MODEL.answer);
    // The second request re-used the KV cache for everything the first one had evaluated.
    expect(result.usage.cachedInputTokens).toBeGreaterThan(100);
    expect(result.usage.inputTokens).toBeGreaterThan(result.usage.cachedInputTokens);
  });

  it("streams the same run: the exact prompts as model_request bodies, deltas, and the same transcript", async () => {
    const agent = new Agent({
      instructions: "Use the calculator for arithmetic.",
      model,
      tools: [calculatorTool()],
    });
    const stream = agent.stream(QUESTION);
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result;
    expect(result.output).toBe(TINY_MODEL.answer);

    const requests = events.flatMap((e) =>
      e.type === "model_request" ? [e.body as { prompt: string }] : [],
    );
    expect(requests).toHaveLength(2);
    expect(requests[0]?.prompt).toContain('"name": "calculator"');
    expect(
      requests[0]?.prompt.endsWith(`<|im_start|>user\n${QUESTION}<|im_end|>\n<|im_start|>assistant\n`),
    ).toBe(true);
    expect(requests[1]?.prompt).toContain(`"arguments": {"expression": "${TINY_MODEL.argument}"}`);
    expect(requests[1]?.prompt).toContain("<tool_response>\n42\n</tool_response>");

    const text = events.flatMap((e) => (e.type === "text_delta" ? [e.text] : [])).join("");
    expect(text).toBe(TINY_MODEL.answer);
    expect(events.find((e) => e.type === "tool_call")).toMatchObject({
      toolName: "calculator",
      arguments: `{"expression": "${TINY_MODEL.argument}"}`,
    });
    expect(events.find((e) => e.type === "tool_result")).toMatchObject({ status: "ok", content: "42" });
    expect(result.messages.map((m) => ({ ...m, toolCallId: undefined, toolCalls: undefined }))).toEqual(
      (
        await new Agent({
          model,
          tools: [calculatorTool()],
          instructions: "Use the calculator for arithmetic.",
        }).run(QUESTION)
      ).messages.map((m) => ({ ...m, toolCallId: undefined, toolCalls: undefined })),
    );
  });

  it("reports as the request exactly the prompt the engine evaluated, with its settings", async () => {
    const { seen, observer } = recorder();
    const response = await model.generate(request({ messages: AFTER_TOOL }), observer);
    expect(await expectEvaluated(model, seen.body?.prompt)).toContain(TINY_MODEL.answer);
    expect(response.usage.inputTokens).toBe(seen.body?.promptTokens);
    expect(await model.info()).toMatchObject({
      file,
      name: "glassloop tiny test model",
      chatWrapper: "JinjaTemplate",
      functionCallTrigger: "<tool_call>",
      threads: THREADS,
      contextSize: 4096,
    });
    expect(seen.body?.settings).toEqual({
      maxTokens: 1024,
      temperature: 0,
      threads: THREADS,
      contextSize: 4096,
      toolChoice: "auto",
      functionCallTrigger: "<tool_call>",
    });
    // Same request again: the whole prompt is in the KV cache, and the answer must not change.
    const again = await model.generate(request({ messages: AFTER_TOOL }), observer);
    expect(again.usage.cachedInputTokens).toBe(again.usage.inputTokens);
    expect(again.text).toBe(TINY_MODEL.answer);
    await expectEvaluated(model, seen.body?.prompt);
  });

  it("stops at maxOutputTokens with finishReason length", async () => {
    const response = await model.generate(request({ messages: AFTER_TOOL, maxOutputTokens: 3 }), noObserver);
    expect(response).toMatchObject({
      text: TINY_MODEL.answer.slice(0, 3),
      finishReason: "length",
      toolCalls: [],
    });
    expect(response.usage.outputTokens).toBe(3);
  });

  it("enters the function-call grammar at once when the request requires a tool", async () => {
    // After a tool result the model would answer in text; "required" makes it call the tool instead.
    const response = await model.generate(
      request({ messages: AFTER_TOOL, toolChoice: "required" }),
      noObserver,
    );
    expect(response.text).toBe("");
    expect(response.finishReason).toBe("tool_calls");
    expect(response.toolCalls).toMatchObject([
      { name: "calculator", arguments: `{"expression": "${TINY_MODEL.argument}"}` },
    ]);
  });

  it("stops promptly on abort with the signal's reason, and the next call still works", async () => {
    const controller = new AbortController();
    const deltas: string[] = [];
    const aborted = model.generate(
      request({ messages: AFTER_TOOL, stream: true, signal: controller.signal }),
      {
        onRequest() {},
        onDelta: (delta) => {
          if (delta.type === "text") deltas.push(delta.text);
          controller.abort(new Error("user pressed Ctrl-C"));
        },
      },
    );
    await expect(aborted).rejects.toThrow("user pressed Ctrl-C");
    expect(deltas.join("").length).toBeLessThan(TINY_MODEL.answer.length);
    const next = await model.generate(request({ messages: AFTER_TOOL }), noObserver);
    expect(next.text).toBe(TINY_MODEL.answer);
  });

  it("refuses a request that cannot fit the context as a context overflow, before sending it", async () => {
    const { seen, observer } = recorder();
    const failure = model.generate(request({ maxOutputTokens: 4000 }), observer);
    await expect(failure).rejects.toMatchObject({
      code: "context_overflow",
      message: expect.stringMatching(
        /plus maxTokens \(4000\) exceeds the local model's context of 4096 tokens/,
      ),
    });
    expect(seen.body).toBeUndefined();
  });

  it("lets the agent loop compact an over-long history instead of node-llama-cpp dropping turns silently", async () => {
    const filler = "The quick brown fox jumps over the lazy dog, again and again. ".repeat(4);
    const history: Message[] = Array.from({ length: 12 }, (_, i) => [
      { role: "user" as const, content: `Note ${i}: ${filler}` },
      { role: "assistant" as const, content: "Noted." },
    ]).flat();
    const agent = new Agent({
      instructions: "Use the calculator for arithmetic.",
      model,
      tools: [calculatorTool()],
    });
    const events: AgentEvent[] = [];
    const result = await agent.run(QUESTION, { history, onEvent: (e) => events.push(e) });
    expect(result.output).toBe(TINY_MODEL.answer);
    expect(events.some((e) => e.type === "context" && e.reason === "overflow")).toBe(true);
    for (const e of events) {
      if (e.type === "model_request")
        expect((e.body as { promptTokens: number }).promptTokens + 1024).toBeLessThanOrEqual(4096);
    }
  });

  it("runs concurrent calls on one model one after the other", async () => {
    const [first, second] = await Promise.all([
      model.generate(request(), noObserver),
      model.generate(request({ messages: AFTER_TOOL }), noObserver),
    ]);
    expect(first?.toolCalls.map((c) => c.name)).toEqual(["calculator"]);
    expect(second?.text).toBe(TINY_MODEL.answer);
  });

  it("turns zod tool schemas into grammars node-llama-cpp compiles", async () => {
    const llama = await startEngine(await importEngine(), { gpu: false, logLevel: "error" });
    const schema = toolParameters(
      z.object({
        city: z.string().min(1).describe("City"),
        units: z.enum(["metric", "imperial"]).optional(),
        days: z.number().int().min(1).max(7),
        tags: z.array(z.object({ name: z.string(), weight: z.number().nullable() })).max(3),
        when: z.iso.date(),
        extra: z.record(z.string(), z.unknown()),
      }),
      "weather",
    );
    const grammar = await llama.createGrammarForJsonSchema(toGrammarSchema(schema) as never);
    expect(grammar.grammar).toContain("root ::=");
  });

  it("fails clearly on a corrupt GGUF, without touching the loaded model", async () => {
    const corrupt = path.join(dir, "corrupt.gguf");
    const bytes = tinyGgufBytes();
    await writeFile(corrupt, bytes.subarray(0, 4096));
    const broken = new LocalModel(corrupt, { threads: THREADS });
    await expect(broken.generate(request(), noObserver)).rejects.toMatchObject({
      code: "local_model_load_failed",
      message: expect.stringContaining(corrupt),
    });
    expect((await model.generate(request({ messages: AFTER_TOOL }), noObserver)).text).toBe(
      TINY_MODEL.answer,
    );
  });

  it("downloads local:hf: files once into the cache, with progress, from HF_ENDPOINT", async () => {
    const bytes = await readFile(file);
    const requests: string[] = [];
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      requests.push(`${req.method} ${url.pathname}`);
      if (req.method === "HEAD" && url.pathname === "/") return void res.writeHead(200).end();
      if (url.pathname !== "/someone/tiny-GGUF/resolve/main/tiny-tools.gguf")
        return void res.writeHead(404).end();
      res.writeHead(200, { "content-length": bytes.length, "content-type": "application/octet-stream" });
      res.end(bytes);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const env = { HF_ENDPOINT: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
    const cacheDir = path.join(dir, "cache");
    const progress: number[] = [];
    const name = "hf:someone/tiny-GGUF/tiny-tools.gguf";
    try {
      const downloaded = new LocalModel(name, {
        env,
        cacheDir,
        threads: THREADS,
        // The template is known; skip the (slow) search for an equivalent specialized wrapper.
        chatWrapper: "jinjaTemplate",
        onDownloadProgress: (p) => progress.push(p.downloadedBytes),
      });
      const answer = await downloaded.generate(request({ messages: AFTER_TOOL }), noObserver);
      expect(answer.text).toBe(TINY_MODEL.answer);
      await downloaded.dispose();
      expect(progress.at(-1)).toBe(bytes.length);
      expect(requests).toContain("GET /someone/tiny-GGUF/resolve/main/tiny-tools.gguf");
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    // The server is gone: the second resolution must come from the cache.
    const cached = await resolveSourceFile(await importEngine(), parseLocalModelName(name), {
      env,
      cacheDir,
      onProgress: () => progress.push(-1),
    });
    expect(cached).toBe(path.join(cacheDir, "hf_someone_tiny-tools.gguf"));
    expect(progress).not.toContain(-1);
  });

  it("gives up on a download that stalls instead of retrying for minutes", async () => {
    const server = http.createServer((req, res) => {
      if (req.method === "HEAD") return void res.writeHead(200).end();
      res.writeHead(200, { "content-length": 1_000_000 });
      res.write(Buffer.alloc(10)); // then nothing
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const env = { HF_ENDPOINT: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
    try {
      const nlc = await importEngine();
      const started = Date.now();
      await expect(
        resolveSourceFile(
          nlc,
          { kind: "hf", uri: "hf:someone/slow/model.gguf" },
          {
            env,
            cacheDir: path.join(dir, "stall-cache"),
            onProgress() {},
            stallTimeoutMs: 300,
          },
        ),
      ).rejects.toMatchObject({
        code: "local_download_failed",
        message: expect.stringContaining("no data arrived"),
      });
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("embedded local model: failures that need no engine", () => {
  it("resolves local: model strings to a LocalModel without loading anything", () => {
    const model = resolveModel("local:hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf");
    expect(model).toBeInstanceOf(LocalModel);
    expect(model.id).toBe("local:hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf");
    expect(model.price).toEqual({ inputPerMTok: 0, outputPerMTok: 0 });
    expect(() => resolveModel("local:")).toThrow(/local:\/path\/to\/model\.gguf/);
  });

  it("names the install command when node-llama-cpp is missing", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "model.gguf");
    await writeFile(file, tinyGgufBytes());
    const model = new LocalModel(file, { engineModule: "glassloop-no-such-engine" });
    const failure = model.generate(request(), noObserver);
    await expect(failure).rejects.toBeInstanceOf(LocalModelError);
    await expect(failure).rejects.toMatchObject({
      code: "local_engine_missing",
      message: expect.stringContaining("npm i -E node-llama-cpp@3.21.1"),
    });
    await rm(dir, { recursive: true, force: true });
  });

  it("a missing file ends an agent run with a typed error naming the path", async () => {
    const dir = await tempDir();
    const missing = path.join(dir, "absent.gguf");
    const agent = new Agent({ model: new LocalModel(missing, { threads: THREADS }) });
    await expect(agent.run("hi")).rejects.toMatchObject({
      code: "local_model_not_found",
      message: expect.stringContaining(missing),
      messages: expect.arrayContaining([{ role: "user", content: "hi" }]),
    });
    await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(engineProblem !== null)(
    "an unreachable HF_ENDPOINT fails in seconds with what to do instead",
    async () => {
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const dir = await tempDir();
      const model = new LocalModel("hf:someone/tiny-GGUF/tiny-tools.gguf", {
        env: { HF_ENDPOINT: `http://127.0.0.1:${port}/` },
        cacheDir: dir,
      });
      const started = Date.now();
      await expect(model.generate(request(), noObserver)).rejects.toMatchObject({
        code: "local_download_failed",
        message: expect.stringMatching(/unreachable.*local:\/path\/to\/file\.gguf/),
      });
      expect(Date.now() - started).toBeLessThan(10_000);
      await rm(dir, { recursive: true, force: true });
    },
  );
});
