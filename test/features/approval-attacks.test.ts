/**
 * The approval gate and resume, attacked by a hostile model: a scripted OpenAI-compatible server
 * on 127.0.0.1 that reuses call ids, smuggles keys past the schema and hopes for extra tools.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, ApprovalRequiredError, ConfigError, tool } from "glassloop";
import { OpenAIChatModel } from "glassloop/models";
import { SqliteStore } from "glassloop/store";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { chatJson, sentBody } from "../helpers/openai-replies.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";

let server: WireServer;
let dir: string;
let store: SqliteStore;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  dir = mkdtempSync(join(tmpdir(), "glassloop-approval-attacks-"));
  store = new SqliteStore({ path: join(dir, "g.db") });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const model = () =>
  new OpenAIChatModel({ model: "gpt-4o-mini", baseURL: `${server.url}/v1`, apiKey: "sk-x" });

/** The model asks for these calls (arguments as the exact JSON text it sends). */
function calls(...list: [id: string, name: string, args: string][]) {
  return chatJson({ toolCalls: list.map(([id, name, args]) => ({ id, name, arguments: args })) });
}

function deleter(ran: string[], path: z.ZodType<string> = z.string()) {
  return tool({
    name: "delete_path",
    description: "Deletes a path.",
    input: z.object({ path }),
    needsApproval: true,
    run: ({ path: p }) => {
      ran.push(p);
      return `deleted ${p}`;
    },
  });
}

const lookup = tool({
  name: "lookup",
  description: "Looks something up.",
  input: z.object({ q: z.string() }),
  run: ({ q }) => `found ${q}`,
});

/** Tool names the model was offered in request `index`. */
const offered = (index: number) =>
  sentBody<{ tools?: { function: { name: string } }[] }>(server.requests, index).tools?.map(
    (t) => t.function.name,
  );

describe("an approval is for one call, not for an id", () => {
  it("a later call that reuses an approved call's id asks again (the run pauses), even with the same arguments", async () => {
    const ran: string[] = [];
    const agent = new Agent({ model: model(), tools: [deleter(ran)], store });
    server.enqueue(calls(["call_1", "delete_path", '{"path":"/tmp/cache"}']));
    const paused = (await agent.run("Clean the cache").catch((e) => e)) as ApprovalRequiredError;
    expect(paused).toBeInstanceOf(ApprovalRequiredError);

    // Approved: the cache. The model's next turn reuses the id for something else entirely.
    server.enqueue(calls(["call_1", "delete_path", '{"path":"/home/user"}']));
    const again = (await agent
      .resume(paused.runId, { approve: ["call_1"] })
      .catch((e) => e)) as ApprovalRequiredError;
    expect(again).toBeInstanceOf(ApprovalRequiredError);
    expect(again.pending).toEqual([
      { toolCallId: "call_1", toolName: "delete_path", arguments: '{"path":"/home/user"}' },
    ]);
    expect(ran).toEqual(["/tmp/cache"]);

    // Approving that one covers it alone: the same id with the same arguments next turn asks again.
    server.enqueue(calls(["call_1", "delete_path", '{"path":"/home/user"}']));
    const third = (await agent
      .resume(again.runId, { approve: ["call_1"] })
      .catch((e) => e)) as ApprovalRequiredError;
    expect(third).toBeInstanceOf(ApprovalRequiredError);
    expect(ran).toEqual(["/tmp/cache", "/home/user"]);

    server.enqueue(chatJson({ text: "Stopped." }));
    const done = await agent.resume(third.runId, { reject: ["call_1"] });
    expect(done.output).toBe("Stopped.");
    expect(ran).toEqual(["/tmp/cache", "/home/user"]);
    expect(server.unexpected).toBe(0);
  });

  it("onApproval given to resume is asked about each later call, never answered from the paused turn's decision", async () => {
    const ran: string[] = [];
    const agent = new Agent({ model: model(), tools: [deleter(ran)], store });
    server.enqueue(calls(["call_1", "delete_path", '{"path":"/tmp/a"}']));
    const paused = (await agent.run("Clean").catch((e) => e)) as ApprovalRequiredError;
    server.enqueue(calls(["call_1", "delete_path", '{"path":"/etc"}']), chatJson({ text: "ok" }));
    const asked: string[] = [];
    await agent.resume(paused.runId, {
      approve: ["call_1"],
      onApproval: (call) => {
        asked.push(call.arguments);
        return false;
      },
    });
    expect(asked).toEqual(['{"path":"/etc"}']);
    expect(ran).toEqual(["/tmp/a"]);
  });

  it("a decision binds to the validated arguments: an agent whose schema turns the same text into other arguments asks again", async () => {
    const ran: string[] = [];
    const first = new Agent({ model: model(), tools: [deleter(ran)], store });
    server.enqueue(calls(["call_1", "delete_path", '{"path":"cache"}']));
    const paused = (await first.run("Clean").catch((e) => e)) as ApprovalRequiredError;
    expect(paused.pending[0]?.arguments).toBe('{"path":"cache"}');
    // Same tool name, same raw arguments, but validation now yields a different path.
    const rooted = deleter(
      ran,
      z.string().transform((p) => `/${p}`),
    );
    const second = new Agent({ model: model(), tools: [rooted], store });
    const again = (await second
      .resume(paused.runId, { approve: ["call_1"] })
      .catch((e) => e)) as ApprovalRequiredError;
    expect(again).toBeInstanceOf(ApprovalRequiredError);
    expect(again.pending).toEqual([
      { toolCallId: "call_1", toolName: "delete_path", arguments: '{"path":"/cache"}' },
    ]);
    expect(ran).toEqual([]);
  });
});

describe("a resumed run offers exactly the tools the run started with", () => {
  it("resume refuses an agent that offers tools the run did not, naming them, and leaves the run paused", async () => {
    const ran: string[] = [];
    const agent = new Agent({ model: model(), tools: [lookup, deleter(ran)], store });
    server.enqueue(calls(["call_1", "delete_path", '{"path":"/tmp/x"}']));
    const paused = (await agent.run("Clean").catch((e) => e)) as ApprovalRequiredError;
    expect((await store.loadRun(paused.runId)).tools).toEqual({ names: ["lookup", "delete_path"] });

    const shell = tool({
      name: "shell",
      description: "Runs a command.",
      input: z.object({ command: z.string() }),
      run: () => "ran",
    });
    const wider = new Agent({ model: model(), tools: [lookup, deleter(ran), shell], store });
    const refused = await wider.resume(paused.runId, { approve: ["call_1"] }).catch((e) => e);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toMatch(/also offers shell\b/);
    expect((refused as Error).message).toMatch(/allowNewTools/);
    expect(ran).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect((await store.loadRun(paused.runId)).status).toBe("awaiting_approval");

    // Offering fewer tools narrows the run; that is allowed. An explicit option allows more.
    server.enqueue(chatJson({ text: "done" }));
    const narrower = new Agent({ model: model(), tools: [deleter(ran)], store });
    await narrower.resume(paused.runId, { approve: ["call_1"] });
    expect(offered(1)).toEqual(["delete_path"]);
    expect(ran).toEqual(["/tmp/x"]);
  });

  it("allowNewTools: true resumes with the wider agent, on purpose", async () => {
    const ran: string[] = [];
    const agent = new Agent({ model: model(), tools: [deleter(ran)], store });
    server.enqueue(calls(["call_1", "delete_path", '{"path":"/tmp/x"}']));
    const paused = (await agent.run("Clean").catch((e) => e)) as ApprovalRequiredError;
    const wider = new Agent({ model: model(), tools: [lookup, deleter(ran)], store });
    server.enqueue(chatJson({ text: "done" }));
    const result = await wider.resume(paused.runId, { approve: ["call_1"], allowNewTools: true });
    expect(result.output).toBe("done");
    expect(offered(1)).toEqual(["lookup", "delete_path"]);
  });
});

describe("a refused resume claims nothing", () => {
  it("a resume refused for its options (a cost limit the model cannot price) leaves the run paused for the next one", async () => {
    const ran: string[] = [];
    const unpriced = new OpenAIChatModel({
      model: "house-model",
      baseURL: `${server.url}/v1`,
      apiKey: "sk-x",
    });
    const agent = new Agent({ model: unpriced, tools: [deleter(ran)], store });
    server.enqueue(calls(["call_1", "delete_path", '{"path":"/tmp/x"}']));
    const paused = (await agent.run("Clean").catch((e) => e)) as ApprovalRequiredError;
    const refused = await agent
      .resume(paused.runId, { approve: ["call_1"], limits: { maxCostUsd: 1 } })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((await store.loadRun(paused.runId)).status).toBe("awaiting_approval");
    server.enqueue(chatJson({ text: "done" }));
    await agent.resume(paused.runId, { approve: ["call_1"] });
    expect(ran).toEqual(["/tmp/x"]);
  });
});

describe("what the user approves is what runs", () => {
  it("arguments with keys the schema does not know are refused for a tool that needs approval, not stripped and run", async () => {
    const ran: string[] = [];
    const asked: string[] = [];
    const agent = new Agent({ model: model(), tools: [deleter(ran)] });
    server.enqueue(
      calls(["call_1", "delete_path", '{"path":"/tmp/x","recursive":true,"then":{"also":"/home"}}']),
      chatJson({ text: "ok" }),
    );
    const result = await agent.run("Clean", {
      onApproval: (call) => {
        asked.push(call.arguments);
        return true;
      },
    });
    expect(asked).toEqual([]);
    expect(ran).toEqual([]);
    const feedback = sentBody(server.requests, 1).messages.at(-1);
    expect(feedback).toMatchObject({ role: "tool", tool_call_id: "call_1" });
    expect(feedback?.content).toMatch(/unknown keys recursive, then/);
    expect(result.output).toBe("ok");
  });

  it("the decision is asked on the arguments after validation (what the tool gets), not the model's raw text", async () => {
    const ran: string[] = [];
    const asked: string[] = [];
    const trimmed = deleter(ran, z.string().trim());
    const agent = new Agent({ model: model(), tools: [trimmed] });
    server.enqueue(calls(["call_1", "delete_path", '{ "path" : "  /tmp/x\\r" }']), chatJson({ text: "ok" }));
    await agent.run("Clean", {
      onApproval: (call) => {
        asked.push(call.arguments);
        return true;
      },
    });
    expect(asked).toEqual(['{"path":"/tmp/x"}']);
    expect(ran).toEqual(["/tmp/x"]);
  });
});
