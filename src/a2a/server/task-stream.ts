/**
 * A task's SSE response: the task as it stands first, then the run's events after `after`, each
 * in the caller's spelling (`target`), with serve's keep-alives and idle limit.
 */
import type { ServeContext } from "../../serve/serve-context.js";
import type { RunRecord } from "../../serve/serve-log.js";
import { runEventStream } from "../../serve/sse.js";
import type { StreamResponse, Task } from "../wire.js";
import { a2aEncoder, rpcResult, type StreamTarget } from "./stream-encoder.js";

/** An SSE response: the task as it stands first, then the run's events after `after`. */
export function taskStream(
  ctx: ServeContext,
  target: StreamTarget,
  run: RunRecord,
  after: number,
  first: Task,
): Response {
  const inner = runEventStream({
    hub: ctx.hub,
    runId: run.runId,
    after,
    encoder: a2aEncoder(run, target),
    keepAliveMs: ctx.limits.keepAliveMs,
    idleMs: ctx.limits.streamIdleMs,
    ...(ctx.onBytes && { onBytes: ctx.onBytes }),
    ...(ctx.onStream && { onStream: ctx.onStream }),
  });
  const head = new TextEncoder().encode(
    `data: ${JSON.stringify(rpcResult(target, { task: first } satisfies StreamResponse))}\n\n`,
  );
  const reader = inner.getReader();
  let headSent = false;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!headSent) {
          headSent = true;
          controller.enqueue(head);
          return;
        }
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}
