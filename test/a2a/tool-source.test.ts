/**
 * Remote A2A agents as a tool source: `a2aToolSource` reads each card and offers one tool per
 * agent to `toolSources`, and with `refreshMs` offers an agent as its card says now.
 */
import { describe, expect, it } from "vitest";
import { a2aToolSource } from "../../src/a2a/index.js";
import { Agent } from "../../src/index.js";
import { ScriptedModel } from "../../src/testing.js";
import { echo } from "./fixtures/agents.js";
import { ALICE, serveA2A } from "./harness.js";
import { cardAt, peer } from "./peer-double.js";

describe("a2aToolSource", () => {
  it("offers each remote agent as a tool in toolSources, and the model's calls reach them", async () => {
    const first = await serveA2A({ agents: { echo }, a2a: { cards: { echo: { name: "first" } } } });
    const second = await serveA2A({ agents: { echo }, a2a: { cards: { echo: { name: "second" } } } });
    try {
      const source = await a2aToolSource([`${first.url}/a2a/echo/`, `${second.url}/a2a/echo/`], {
        token: ALICE,
      });
      expect(source.tools().map((t) => t.name)).toEqual(["first", "second"]);
      const agent = new Agent({
        model: new ScriptedModel([
          {
            toolCalls: [
              { name: "first", args: { message: "one" } },
              { name: "second", args: { message: "two" } },
            ],
          },
          { text: "asked both" },
        ]),
        toolSources: [source],
      });
      const result = await agent.run("ask both");
      const answers = result.messages.flatMap((m) =>
        m.role === "tool" ? [(JSON.parse(m.content as string) as { text: string }).text] : [],
      );
      expect(answers.sort()).toEqual(["echo: one", "echo: two"]);
      await agent.close();
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("reads the cards again with refreshMs, and says so when an agent's card changed", async () => {
    let description = "Tells the time.";
    const p = await peer(
      (url) => cardAt(url, { name: "clock", description }),
      (_req, res) => res.end(),
    );
    const source = await a2aToolSource([p.url], { refreshMs: 50 });
    expect(source.tools()[0]?.description).toContain("Tells the time.");
    const changed = new Promise<void>((resolve) => source.onChange(resolve));
    description = "Tells the time, and the date.";
    await changed;
    expect(source.tools()[0]?.description).toContain("Tells the time, and the date.");
    await source.close();
  });
});
