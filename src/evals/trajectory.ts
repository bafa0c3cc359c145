import type { AgentEvent, RunUsage } from "../index.js";
import type { Trajectory, TrajectoryCall } from "./types.js";

/**
 * Builds a trial's trajectory from its events as they arrive: every top-level run (a router and
 * the specialist it handed to are two), their tool calls in order, steps, tokens and cost. A
 * sub-agent used as a tool shows as that tool's call; its usage is already in its parent's.
 */
export class TrajectoryRecorder {
  readonly #calls: TrajectoryCall[] = [];
  readonly #byId = new Map<string, TrajectoryCall>();
  readonly #usage = new Map<string, RunUsage>();
  readonly #runIds: string[] = [];
  #steps = 0;

  /** The listener to pass as `onEvent`. */
  readonly onEvent = (event: AgentEvent): void => {
    if (!this.#usage.has(event.runId) && !this.#runIds.includes(event.runId)) this.#runIds.push(event.runId);
    switch (event.type) {
      case "step_start":
        this.#steps++;
        break;
      case "tool_call": {
        const call: TrajectoryCall = {
          runId: event.runId,
          step: event.step,
          name: event.toolName,
          args: parseArgs(event.arguments),
        };
        this.#calls.push(call);
        this.#byId.set(`${event.runId}/${event.toolCallId}`, call);
        break;
      }
      case "tool_result": {
        const call = this.#byId.get(`${event.runId}/${event.toolCallId}`);
        if (call) {
          call.status = event.status;
          call.content = event.content;
        }
        break;
      }
      case "step_end":
        if (event.usage) this.#usage.set(event.runId, event.usage);
        break;
      case "run_end":
        this.#usage.set(event.runId, event.usage);
        break;
      default:
        break;
    }
  };

  /** Dollars spent so far by the runs seen (undefined while some price is unknown). */
  get costUsd(): number | undefined {
    let total = 0;
    for (const usage of this.#usage.values()) {
      if (usage.costUsd === undefined) return undefined;
      total += usage.costUsd;
    }
    return total;
  }

  /** The trajectory so far; `latencyMs` is the trial's wall time. */
  snapshot(latencyMs: number): Trajectory {
    let inputTokens = 0;
    let outputTokens = 0;
    for (const usage of this.#usage.values()) {
      inputTokens += usage.inputTokens;
      outputTokens += usage.outputTokens;
    }
    const cost = this.costUsd;
    return {
      runIds: [...this.#runIds],
      calls: this.#calls.map((c) => ({ ...c })),
      steps: this.#steps,
      inputTokens,
      outputTokens,
      ...(cost !== undefined && { costUsd: cost }),
      latencyMs,
    };
  }
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
