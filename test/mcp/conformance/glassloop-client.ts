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
  context: { client_id?: string; client_secret?: string } | null,
): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  let mcp: McpClient | undefined;
  try {
    mcp = await McpClient.connect({
      name: "conformance",
      url,
      connectTimeoutMs: 20_000,
      // What the test servers get wrong on purpose goes to the scenario's output, not the test log.
      onWarning: (warning) => lines.push(warning),
      // The suite's authorization server redirects at once (no person): follow it for the code.
      auth: {
        authorize: headlessConsent,
        redirectUrl: "http://localhost:3000/callback",
        clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
        ...(context?.client_id && { clientId: context.client_id }),
        ...(context?.client_secret && { clientSecret: context.client_secret }),
      },
      // The person accepts without filling anything in: the declared defaults apply.
      onElicitation: async () => ({ action: "accept", content: {} }),
    });
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

/** The consent a person would give: the authorization server's redirect carries the code. */
async function headlessConsent(url: URL): Promise<string> {
  const response = await fetch(url, { redirect: "manual" });
  const location = response.headers.get("location");
  const code = location ? new URL(location).searchParams.get("code") : null;
  if (!code) throw new Error(`no code in the redirect from ${url.origin} (status ${response.status})`);
  return code;
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
