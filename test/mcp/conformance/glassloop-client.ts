import { createServer, type Server } from "node:net";
import { Agent } from "glassloop";
import { McpClient } from "glassloop/mcp";
import { ScriptedModel } from "glassloop/testing";

/** The arguments each scenario's tool expects (the others take none). */
const ARGS: Record<string, Record<string, unknown>> = { add_numbers: { a: 5, b: 3 } };

/**
 * One client scenario as a user would write it: McpClient.connect, then an agent run (a scripted
 * model) that calls every tool the test server offers through glassloop's tool path.
 */
export async function runClientScenario(
  scenario: string,
  url: string,
  _context: unknown,
): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  let mcp: McpClient | undefined;
  try {
    mcp = await McpClient.connect({ name: "conformance", url, connectTimeoutMs: 20_000 });
    const calls = mcp.tools().map((t) => ({ name: t.name, args: ARGS[t.name] ?? {} }));
    const model = new ScriptedModel([...(calls.length > 0 ? [{ toolCalls: calls }] : []), { text: "done" }]);
    const agent = new Agent({ model, toolSources: [mcp] });
    const result = await agent.run(`conformance scenario ${scenario}`);
    for (const message of result.messages)
      if (message.role === "tool") lines.push(JSON.stringify(message.content).slice(0, 300));
    return { code: 0, output: `${lines.join("\n")}\n` };
  } catch (error) {
    return { code: 1, output: `${lines.join("\n")}\n${String(error)}\n` };
  } finally {
    await mcp?.close().catch(() => {});
  }
}

/** Serves runClientScenario to relay.mjs over a Unix socket; close it when done. */
export async function startRelayTarget(path: string): Promise<Server> {
  const server = createServer((socket) => {
    let request = "";
    socket.on("data", async (chunk) => {
      request += chunk.toString();
      if (!request.includes("\n")) return;
      const { scenario, url, context } = JSON.parse(request) as {
        scenario: string;
        url: string;
        context: string | null;
      };
      const reply = await runClientScenario(scenario, url, context ? JSON.parse(context) : null);
      socket.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return server;
}
