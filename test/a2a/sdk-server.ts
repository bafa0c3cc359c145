/**
 * `@a2a-js/sdk`'s own server (1.3.0: Express, DefaultRequestHandler, InMemoryTaskStore) with a
 * small executor, for glassloop's client to call: it answers text, asks for input when told to,
 * and returns a data artifact.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { AGENT_CARD_PATH, Role, TaskState } from "@a2a-js/sdk";
import { type AgentExecutor, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";

// Express comes with @a2a-js/sdk (its peer) and has no types installed here: the few calls used are typed below.
type ExpressApp = ((req: IncomingMessage, res: ServerResponse) => void) & {
  use(...handlers: unknown[]): void;
};
const express = ((await import("express" as string)) as { default: { (): ExpressApp; json(): unknown } })
  .default;

const part = (value: string) => ({
  content: { $case: "text" as const, value },
  metadata: undefined,
  filename: "",
  mediaType: "",
});

/** An executor: "ask ..." waits for input; the answer on the same task completes it; "data" returns JSON. */
const executor: AgentExecutor = {
  async execute(ctx, bus) {
    const parts = ctx.userMessage.parts;
    const first = parts[0]?.content;
    const said =
      first?.$case === "text" ? first.value : first?.$case === "data" ? JSON.stringify(first.value) : "";
    const now = () => new Date().toISOString();
    const base = { taskId: ctx.taskId, contextId: ctx.contextId, metadata: undefined };
    if (!ctx.task)
      bus.publish({
        kind: "task",
        data: {
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
          artifacts: [],
          history: [ctx.userMessage],
          metadata: undefined,
        },
      });
    else bus.publish({ kind: "task", data: ctx.task });
    const message = (text: string) => ({
      messageId: crypto.randomUUID(),
      contextId: ctx.contextId,
      taskId: ctx.taskId,
      role: Role.ROLE_AGENT,
      parts: [part(text)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    });
    if (said.startsWith("ask")) {
      bus.publish({
        kind: "statusUpdate",
        data: {
          ...base,
          status: {
            state: TaskState.TASK_STATE_INPUT_REQUIRED,
            message: message("Which colour?"),
            timestamp: now(),
          },
        },
      });
      bus.finished();
      return;
    }
    const value =
      said === "data"
        ? { content: { $case: "data" as const, value: { answer: 42 } } }
        : { content: { $case: "text" as const, value: `sdk says: ${said}` } };
    bus.publish({
      kind: "statusUpdate",
      data: {
        ...base,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now() },
      },
    });
    bus.publish({
      kind: "artifactUpdate",
      data: {
        ...base,
        artifact: {
          artifactId: "answer",
          name: "answer",
          description: "",
          parts: [{ ...value, metadata: undefined, filename: "", mediaType: "" }],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
      },
    });
    bus.publish({
      kind: "statusUpdate",
      data: {
        ...base,
        status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: now() },
      },
    });
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    const status = {
      state: TaskState.TASK_STATE_CANCELED,
      message: undefined,
      timestamp: new Date().toISOString(),
    };
    bus.publish({ kind: "statusUpdate", data: { taskId, contextId: "", status, metadata: undefined } });
    bus.finished();
  },
};

/**
 * The SDK's server on a free port; `streaming` is what its card says; `version` "0.3" serves its
 * v0.3 compat layer and a card whose only interface is v0.3 (what an older server offers).
 */
export async function sdkServer(
  streaming: boolean,
  version: "1.0" | "0.3" = "1.0",
): Promise<{ url: string; close(): Promise<void> }> {
  const card = {
    name: "sdk agent",
    description: "An agent served by @a2a-js/sdk.",
    version: "1.0.0",
    supportedInterfaces: [] as {
      url: string;
      protocolBinding: string;
      tenant: string;
      protocolVersion: string;
    }[],
    provider: undefined,
    capabilities: { streaming, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "echo",
        name: "echo",
        description: "Says what it heard.",
        tags: [],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const app = express();
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use(express.json());
  app.use(
    jsonRpcHandler({
      requestHandler: handler,
      userBuilder: UserBuilder.noAuthentication,
      ...(version === "0.3" && { legacyCompat: { enabled: true } }),
    }),
  );
  const server = createServer(app).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  card.supportedInterfaces.push({ url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: version });
  return {
    url,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
