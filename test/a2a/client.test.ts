/**
 * glassloop's A2A client (`a2aAgent`, `A2AClient`) against `@a2a-js/sdk`'s own server (1.3.0),
 * streaming and not, with input asked and answered by the program; and against glassloop's own
 * server, where a tool that needs approval is answered through `onInputRequired`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { A2AClient, a2aAgent } from "../../src/a2a/index.js";
import { Agent } from "../../src/index.js";
import { FunctionModel, ScriptedModel } from "../../src/testing.js";
import { echo, support } from "./fixtures/agents.js";
import { ALICE, serveA2A } from "./harness.js";
import { sdkServer } from "./sdk-server.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Runs an agent whose model calls `tool` once with `message`, and returns what the tool gave back. */
async function callThroughAgent(t: Awaited<ReturnType<typeof a2aAgent>>, message: string) {
  const agent = new Agent({
    model: new ScriptedModel([{ toolCalls: [{ name: t.name, args: { message } }] }, { text: "finished" }]),
    tools: [t],
  });
  const result = await agent.run("go");
  const tool = result.messages.find((m) => m.role === "tool");
  return tool?.role === "tool" ? tool.content : undefined;
}

describe("glassloop's A2A client against @a2a-js/sdk's server", () => {
  it("reads the card, streams a task to its end and gives the model the answer as data", async () => {
    const peer = await sdkServer(true);
    closers.push(peer.close);
    const t = await a2aAgent(`${peer.url}/`);
    expect(t.name).toBe("sdk_agent");
    expect(t.description).toContain("An agent served by @a2a-js/sdk.");
    const content = await callThroughAgent(t, "hello");
    expect(JSON.parse(String(content))).toMatchObject({
      agent: "sdk agent",
      state: "completed",
      text: "sdk says: hello",
    });
  });

  it("sends without streaming when told to, and reads a data artifact", async () => {
    const peer = await sdkServer(false);
    closers.push(peer.close);
    const client = await A2AClient.connect(peer.url, { stream: false });
    const task = await client.send({ text: "data", signal: AbortSignal.timeout(10_000) });
    expect(task.state).toBe("TASK_STATE_COMPLETED");
    expect(task.artifacts[0]?.parts[0]?.data).toEqual({ answer: 42 });
  });

  it("speaks v0.3 (message/stream, message/send) to a server whose card offers only v0.3", async () => {
    const streaming = await sdkServer(true, "0.3");
    closers.push(streaming.close);
    const streamed = await A2AClient.connect(streaming.url);
    expect(streamed.card.version).toBe("0.3");
    const task = await streamed.send({ text: "old", signal: AbortSignal.timeout(10_000) });
    expect(task.state).toBe("TASK_STATE_COMPLETED");
    expect(task.artifacts[0]?.parts[0]?.text).toBe("sdk says: old");
    const plain = await sdkServer(false, "0.3");
    closers.push(plain.close);
    const sent = await (await A2AClient.connect(plain.url)).send({
      text: "data",
      signal: AbortSignal.timeout(10_000),
    });
    expect(sent.artifacts[0]?.parts[0]?.data).toEqual({ answer: 42 });
  });

  it("hands the peer's question to onInputRequired and sends the program's answer on the same task", async () => {
    const peer = await sdkServer(true);
    closers.push(peer.close);
    const asked: string[] = [];
    const t = await a2aAgent(peer.url, {
      onInputRequired: (request) => {
        asked.push(request.text);
        return { text: "blue" };
      },
    });
    const content = JSON.parse(String(await callThroughAgent(t, "ask me")));
    expect(asked).toEqual(["Which colour?"]);
    expect(content).toMatchObject({ state: "completed", text: "sdk says: blue" });
  });

  it("cancels the peer's task and tells the model when nobody may answer its question", async () => {
    const peer = await sdkServer(true);
    closers.push(peer.close);
    const t = await a2aAgent(peer.url);
    const content = String(await callThroughAgent(t, "ask me"));
    expect(content).toContain("input_required");
    expect(content).toContain("Which colour?");
  });
});

describe("glassloop's A2A client against glassloop's A2A server", () => {
  it("approves a served tool through onInputRequired, with the token never in what the model sees", async () => {
    const served = await serveA2A({ agents: { support, echo } });
    closers.push(served.close);
    const seen: unknown[] = [];
    const t = await a2aAgent(`${served.url}/a2a/support`, {
      token: ALICE,
      onInputRequired: (request) => {
        seen.push(...request.data);
        return { approved: true };
      },
    });
    const content = String(await callThroughAgent(t, "refund A-1001"));
    expect(seen).toEqual([
      expect.objectContaining({ approvals: [expect.objectContaining({ toolName: "refund" })] }),
    ]);
    expect(JSON.parse(content)).toMatchObject({ state: "completed", text: "done: refunded A-1001" });
    expect(content).not.toContain(ALICE);
  });

  it("rolls the peer's reported usage into the calling run only when told to (countUsage)", async () => {
    const costly = () => ({
      model: new FunctionModel(() => ({ text: "spent", usage: { inputTokens: 5_000, outputTokens: 700 } })),
    });
    const served = await serveA2A({ agents: { costly } });
    closers.push(served.close);
    const usageOf = async (countUsage: boolean) => {
      const t = await a2aAgent(`${served.url}/a2a/costly/`, { token: ALICE, countUsage });
      const agent = new Agent({
        model: new ScriptedModel([
          {
            toolCalls: [{ name: t.name, args: { message: "go" } }],
            usage: { inputTokens: 10, outputTokens: 1 },
          },
          { text: "finished", usage: { inputTokens: 10, outputTokens: 1 } },
        ]),
        tools: [t],
      });
      return (await agent.run("go")).usage;
    };
    const counted = await usageOf(true);
    expect(counted.inputTokens).toBe(5_020);
    expect(counted.outputTokens).toBe(702);
    const own = await usageOf(false);
    expect(own.inputTokens).toBe(20);
  });
});
