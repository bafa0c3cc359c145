import { tool } from "glassloop";
import type { ServeAgentFactory } from "glassloop/serve";
import { z } from "zod";
import { Gate, PacedModel, type Piece } from "../helpers/paced-model.js";

/** Text a hostile model writes: markup and links that must stay characters on the page. */
export const HOSTILE_TEXT =
  'Look: <script>window.__pwned = 1</script> <img src=x onerror="window.__pwned = 2"> [click me](javascript:window.__pwned=3) https://evil.example/x';

/**
 * The agents the browser tests serve, on one paced model whose answer depends on the turn's text:
 * - "weather": reasoning, two tool calls in one step, then an answer;
 * - "refund": a call that needs approval, then an answer;
 * - "slow <n>" and "reload <n>": text, a stop at gate n (see `gates`), more text;
 * - "hostile": markup and links as plain model text;
 * - anything else: an echo.
 */
export function chatAgents() {
  const gates = new Map<string, Gate>();
  /** The gate of a "slow"/"reload" turn, made on first use so the test can open it. */
  const gate = (name: string): Gate => {
    let g = gates.get(name);
    if (!g) {
      g = new Gate();
      gates.set(name, g);
    }
    return g;
  };
  const model = new PacedModel(({ input, step }): Piece[] => {
    if (input.startsWith("weather"))
      return step === 0
        ? [
            { reasoning: "Two cities: one lookup each." },
            { call: "weather", args: { city: "Oslo" } },
            { call: "weather", args: { city: "東京" } },
          ]
        : [{ text: "Oslo is 4 °C " }, { text: "and 東京 is 12 °C." }];
    if (input.startsWith("refund"))
      return step === 0
        ? [{ text: "Refunding A-1." }, { call: "refund", args: { order: "A-1", amount: 5 } }]
        : [{ text: "Done: the refund went through." }];
    const paced = /^(slow|reload) (\S+)/.exec(input);
    if (paced)
      return [
        { text: "alpha " },
        { text: "beta " },
        { wait: gate(input) },
        { text: "gamma " },
        { text: "delta" },
      ];
    if (input.startsWith("hostile")) return [{ text: HOSTILE_TEXT }];
    return [{ text: `You said: ${input}` }];
  });
  const weather = tool({
    name: "weather",
    description: "The temperature in a city.",
    input: z.object({ city: z.string() }),
    run: ({ city }) => ({ city, celsius: city === "Oslo" ? 4 : 12 }),
  });
  const refund = tool({
    name: "refund",
    description: "Refunds an order.",
    input: z.object({ order: z.string(), amount: z.number() }),
    needsApproval: true,
    run: ({ order, amount }) => `Refunded ${amount} EUR on ${order}.`,
  });
  const agents: Record<string, ServeAgentFactory> = {
    helper: () => ({ instructions: "Help with weather and refunds.", model, tools: [weather, refund] }),
    echo: () => ({ instructions: "Echo.", model, tools: [] }),
  };
  return { agents, model, gate };
}
