/**
 * A tool's question (an MCP server's elicitation) on an A2A task: the task goes input-required
 * with the question (asker, text, form) in its status message, `@a2a-js/sdk`'s client answers on
 * the same task with a data part, the answer is checked against the form, and the run goes on.
 */
import { Role, TaskState } from "@a2a-js/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { FunctionModel } from "../../src/testing.js";
import { askingClient } from "../serve/fixtures/asking-server.js";
import { ALICE, type Running, sdkClient, serveA2A } from "./harness.js";

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const shop = async () => ({
  model: new FunctionModel((request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool") return { text: `done: ${last.content}` };
    return { toolCalls: [{ name: "confirm", args: {} }] };
  }),
  toolSources: [await askingClient()],
});

type SdkTask = {
  id: string;
  status: { state: number; message?: { parts: { content?: { $case: string; value: unknown } }[] } };
  artifacts: { parts: { content?: { $case: string; value: unknown } }[] }[];
  history: unknown[];
};
const send = (parts: unknown[], taskId?: string) =>
  ({
    message: { messageId: crypto.randomUUID(), role: Role.ROLE_USER, parts, ...(taskId && { taskId }) },
  }) as never;
const data = (value: unknown) => ({ content: { $case: "data", value } });

describe("a tool's question on an A2A task", () => {
  it("is input-required with the question's form; the caller's answer on the task resumes the run", async () => {
    running = await serveA2A({ agents: { shop } });
    const client = await sdkClient(`${running.url}/a2a/shop/`, ALICE);
    const waiting = (await client.sendMessage(
      send([{ content: { $case: "text", value: "ship it" } }]),
    )) as unknown as SdkTask;
    expect(waiting.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const asked = waiting.status.message?.parts.find((p) => p.content?.$case === "data")?.content?.value as {
      type: string;
      questions: { questionId: string; source: string; message: string; schema: { required: string[] } }[];
    };
    expect(asked.type).toBe("glassloop.question");
    expect(asked.questions).toHaveLength(1);
    expect(asked.questions[0]).toMatchObject({ source: "shop", schema: { required: ["name", "color"] } });

    // An answer that does not fit the form is refused, and the task still waits.
    await expect(
      client.sendMessage(send([data({ action: "accept", content: { name: "x" } })], waiting.id)),
    ).rejects.toThrow(/does not fit/);
    // An approval is not an answer to a question.
    await expect(client.sendMessage(send([data({ approved: true })], waiting.id))).rejects.toThrow(
      /waits for answers to its questions/,
    );

    const questionId = asked.questions[0]?.questionId as string;
    const done = (await client.sendMessage(
      send(
        [
          data({
            answers: [{ questionId, answer: { action: "accept", content: { name: "Ada", color: "red" } } }],
          }),
        ],
        waiting.id,
      ),
    )) as unknown as SdkTask;
    expect(done.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const text = done.artifacts[0]?.parts[0]?.content?.value as string;
    expect(text).toContain('told {"action":"accept","content":{"name":"Ada","color":"red"');
    // The history keeps the question and the answer, in order.
    expect(done.history).toHaveLength(4);
  });

  it("takes the one waiting question's answer alone (decline)", async () => {
    running = await serveA2A({ agents: { shop } });
    const client = await sdkClient(`${running.url}/a2a/shop/`, ALICE);
    const waiting = (await client.sendMessage(
      send([{ content: { $case: "text", value: "ship it" } }]),
    )) as unknown as SdkTask;
    const done = (await client.sendMessage(
      send([data({ action: "decline" })], waiting.id),
    )) as unknown as SdkTask;
    expect(done.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts[0]?.parts[0]?.content?.value as string).toContain('told {"action":"decline"}');
  });
});
