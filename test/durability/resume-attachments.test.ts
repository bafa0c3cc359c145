/**
 * A tool's images and files survive the store: a run resumed after a crash in the middle of a
 * turn whose tool returned an image and a PDF, or after a pause for approval, sends the model the
 * same request bytes as the same run uninterrupted. Against SQLite and Postgres, with the OpenAI
 * provider on the wire server so the comparison is of the exact bodies.
 */
import { hostname } from "node:os";
import { Agent, ApprovalRequiredError, type Store, tool } from "glassloop";
import { OpenAIChatModel } from "glassloop/models";
import type { RunCheckpoint, StoredRun } from "glassloop/store";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { chatJson } from "../helpers/openai-replies.js";
import { BACKENDS } from "../helpers/store-backends.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";

// A pid above Linux's pid_max: the process that "crashed" is certainly gone.
const DEAD_PID = 2_147_483_000;
const PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const PDF = Buffer.from("%PDF-1.4\n% a chart\ntrailer<<>>\n%%EOF\n").toString("base64");

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());

/** `store` that reads back the whole stored run right after the first checkpoint `when` accepts. */
function snapshotting(store: Store, when: (c: RunCheckpoint) => boolean) {
  let snapshot: StoredRun | undefined;
  const wrapped = new Proxy(store, {
    get(target, property) {
      if (property === "checkpoint")
        return async (runId: string, checkpoint: RunCheckpoint) => {
          await target.checkpoint(runId, checkpoint);
          if (snapshot === undefined && when(checkpoint))
            snapshot = structuredClone(await target.loadRun(runId));
        };
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: wrapped, snapshot: () => snapshot };
}

/** What a store holds after the process died at `snapshot`: the same run, owned by a dead pid. */
async function crashedCopy(store: Store, snapshot: StoredRun): Promise<void> {
  await store.createRun({
    runId: snapshot.runId,
    agent: snapshot.agent,
    model: snapshot.model,
    input: snapshot.input,
    owner: { pid: DEAD_PID, host: hostname() },
    messages: snapshot.messages,
    usage: snapshot.usage,
    progress: snapshot.progress,
    ...(snapshot.tools && { tools: snapshot.tools }),
  });
}

/**
 * Turn 1 asks for `chart` (returns an image and a PDF) and `lookup` (idempotent), which waits for
 * `chart` to finish (unless `waitForChart` is false: a resumed turn does not run chart again), so
 * the store sees chart done while lookup is still open. Turn 2: `deploy` (needs approval). Turn 3: text.
 * The server's answers start at `firstReply`.
 */
function conversation(waitForChart = true, firstReply = 0) {
  const replies = [
    chatJson({
      toolCalls: [
        { id: "call_chart", name: "chart", arguments: "{}" },
        { id: "call_lookup", name: "lookup", arguments: "{}" },
      ],
    }),
    chatJson({ toolCalls: [{ id: "call_deploy", name: "deploy", arguments: "{}" }] }),
    chatJson({ text: "Deployed; the chart is attached." }),
  ];
  server.reset();
  server.handler = (_request, i) =>
    replies[Math.min(firstReply + i, replies.length - 1)] as (typeof replies)[number];
  let chartDone: () => void = () => {};
  const charted = waitForChart
    ? new Promise<void>((resolve) => {
        chartDone = resolve;
      })
    : Promise.resolve();
  const tools = [
    tool({
      name: "chart",
      description: "Draws the chart.",
      input: z.object({}),
      run: () => {
        chartDone();
        return [
          { type: "text", text: "the chart" },
          { type: "image", mediaType: "image/png", data: PIXEL },
          { type: "file", mediaType: "application/pdf", data: PDF, filename: "chart.pdf" },
        ];
      },
    }),
    tool({
      name: "lookup",
      description: "Looks the numbers up.",
      input: z.object({}),
      idempotent: true,
      run: async () => {
        await charted;
        return "42";
      },
    }),
    tool({
      name: "deploy",
      description: "Deploys.",
      input: z.object({}),
      needsApproval: true,
      run: () => "ok",
    }),
  ];
  const model = new OpenAIChatModel({ model: "gpt-4o", baseURL: `${server.url}/v1`, apiKey: "sk-test-0000" });
  return { tools, model };
}

const chartDoneLookupOpen = (c: RunCheckpoint) =>
  c.progress.pending.some((p) => p.call.name === "chart" && p.state === "done") &&
  !c.messages.some((m) => m.role === "tool");

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip !== undefined)(`tool images and files on resume (${backend.name})`, () => {
    beforeEach(() => backend.fresh());
    afterEach(() => backend.cleanup());

    it("a run that crashed after the image tool finished, mid-turn, sends the same next request as the uninterrupted run", async () => {
      const live = conversation();
      const watched = snapshotting(await backend.open(), chartDoneLookupOpen);
      const agent = new Agent({ model: live.model, tools: live.tools, store: watched.store });
      await agent.run("Chart it, look it up, deploy.", { onApproval: () => true });
      const uninterrupted = server.requests.map((r) => r.raw);
      expect(uninterrupted).toHaveLength(3);
      expect(uninterrupted[1]).toContain(PIXEL);
      expect(uninterrupted[1]).toContain(PDF);

      const snapshot = watched.snapshot();
      if (!snapshot) throw new Error("no checkpoint had chart done and lookup still open");
      const chart = snapshot.progress.pending.find((p) => p.call.name === "chart");
      // The store keeps what the model must see again: the images and files with the content.
      expect(chart?.outcome?.images).toEqual([{ type: "image", mediaType: "image/png", data: PIXEL }]);
      expect(chart?.outcome?.files).toEqual([
        { type: "file", mediaType: "application/pdf", data: PDF, filename: "chart.pdf" },
      ]);

      await backend.fresh();
      const store = await backend.open();
      await crashedCopy(store, snapshot);
      // The server answers the resumed run from turn 2 on: turn 1's answer is in the store.
      const again = conversation(false, 1);
      const resumedAgent = new Agent({ model: again.model, tools: again.tools, store });
      const result = await resumedAgent.resume(snapshot.runId, { onApproval: () => true });
      expect(result.output).toBe("Deployed; the chart is attached.");
      // The resumed run's first request is the uninterrupted run's second, byte for byte.
      expect(server.requests.map((r) => r.raw)).toEqual(uninterrupted.slice(1));
      expect(result.messages.find((m) => m.role === "tool" && m.toolName === "chart")).toMatchObject({
        images: [{ type: "image", mediaType: "image/png", data: PIXEL }],
        files: [{ type: "file", mediaType: "application/pdf", data: PDF, filename: "chart.pdf" }],
      });
    });

    it("a run paused for approval after the image tool's turn sends the same request on resume as the uninterrupted run", async () => {
      const live = conversation();
      await new Agent({ model: live.model, tools: live.tools, store: await backend.open() }).run(
        "Chart it, look it up, deploy.",
        { onApproval: () => true },
      );
      const uninterrupted = server.requests.map((r) => r.raw);

      await backend.fresh();
      const store = await backend.open();
      const paused = conversation();
      const agent = new Agent({ model: paused.model, tools: paused.tools, store });
      const error = await agent.run("Chart it, look it up, deploy.").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApprovalRequiredError);
      const runId = (error as ApprovalRequiredError).runId;
      const before = server.requests.length;
      const result = await agent.resume(runId, { approve: ["call_deploy"] });
      expect(result.output).toBe("Deployed; the chart is attached.");
      const resumed = server.requests.slice(before).map((r) => r.raw);
      expect(resumed).toEqual(uninterrupted.slice(2));
      expect(resumed[0]).toContain(PIXEL);
      expect(resumed[0]).toContain(PDF);
    });
  });
}
