// A hostile model asks the calculator for a number JSON cannot carry.
import { describe, expect, it } from "vitest";
import { runCli, tempCwd, useWireServer } from "../helpers/cli.js";
import { chatSse, sentBody } from "../helpers/openai-replies.js";

const wire = useWireServer("sk-test-calculator-0000");

describe("calculator: non-finite results, driven through glassloop run", () => {
  it("1e999 reaches the model as an error it can read, never as null or Infinity", async () => {
    wire.server.enqueue(
      chatSse({
        toolCalls: [
          { id: "call_big", name: "calculator", arguments: JSON.stringify({ expression: "1e999" }) },
          { id: "call_neg", name: "calculator", arguments: JSON.stringify({ expression: "-1e999 * 2" }) },
        ],
      }),
      chatSse({ text: "Too large." }),
    );
    const run = await runCli(["run", "--tools", "calculator", "Compute 1e999"], {
      cwd: tempCwd(),
      env: wire.env(),
    });
    expect(run.code).toBe(0);
    const results = sentBody(wire.server.requests, 1).messages.filter((m) => m.role === "tool");
    expect(results.map((m) => m.tool_call_id)).toEqual(["call_big", "call_neg"]);
    for (const m of results) {
      expect(m.content).toMatch(/^Cannot evaluate .*The number 1e999 at position \d is too large/);
      expect(m.content).not.toMatch(/^(null|Infinity|-Infinity)$/);
    }
  });
});
