/** The worker module of `npm run bench -- scale`: a zero-latency agent of BENCH_SCALE_STEPS steps. */
import { tool } from "glassloop";
import { defineWorker } from "glassloop/scale";
import { z } from "zod";
import { ZeroLatencyModel } from "./zero-model.js";

const steps = Number(process.env.BENCH_SCALE_STEPS ?? "5");

const echoTool = (idempotent: boolean) =>
  tool({
    name: "echo",
    description: "Returns its argument.",
    input: z.object({ i: z.number() }),
    // Idempotent: one step per call; otherwise a start marker step before it too.
    idempotent,
    run: ({ i }) => i,
  });
const echo = echoTool(true);
const marked = echoTool(false);

export default defineWorker({
  agents: {
    zero: () => ({
      instructions: "Bench.",
      model: new ZeroLatencyModel(steps),
      tools: [echo],
      limits: { maxSteps: 100_000 },
    }),
    marked: () => ({
      instructions: "Bench.",
      model: new ZeroLatencyModel(steps),
      tools: [marked],
      limits: { maxSteps: 100_000 },
    }),
  },
});
