import type { Message } from "../core/vocabulary/messages.js";
import type { Model, ModelObserver, ModelPrice, ModelRequest, ModelResponse } from "../models/model.js";
import { playStep, requestBody, ScriptExhaustedError, type ScriptStep } from "./script.js";

/** Options of the test doubles. */
export interface TestModelOptions {
  /** Defaults to `scripted:test` / `function:test`. */
  id?: string;
  /**
   * Dollars per million tokens (default: free, as scripted answers cost nothing, so `maxCostUsd`
   * works with a test double); `null` makes the model unpriced, to test what an unknown price does.
   */
  price?: ModelPrice | null;
}

/** What a test double's answers cost: nothing. */
const FREE: ModelPrice = { inputPerMTok: 0, outputPerMTok: 0 };

/** A request as a test double recorded it (a snapshot, safe to inspect after the run). */
export type RecordedRequest = Omit<ModelRequest, "signal">;

/**
 * A model that answers from a list of steps, in order, and records every request it gets.
 * A call past the end of the script fails loudly instead of inventing an answer.
 */
export class ScriptedModel implements Model {
  readonly id: string;
  readonly price?: ModelPrice;
  readonly requests: RecordedRequest[] = [];
  readonly #steps: readonly ScriptStep[];
  #ids = 0;

  constructor(steps: readonly ScriptStep[], options: TestModelOptions = {}) {
    this.#steps = steps;
    this.id = options.id ?? "scripted:test";
    if (options.price !== null) this.price = options.price ?? FREE;
  }

  /** Steps not played yet; a finished test usually expects 0. */
  get remaining(): number {
    return Math.max(0, this.#steps.length - this.requests.length);
  }

  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    const body = requestBody(this.id, request);
    const { model: _model, ...recorded } = body;
    this.requests.push(recorded as unknown as RecordedRequest);
    observer.onRequest({ body, attempt: 1 });
    const step = this.#steps[this.requests.length - 1];
    if (step === undefined) {
      throw new ScriptExhaustedError(
        `ScriptedModel "${this.id}" got request #${this.requests.length} but its script has ${this.#steps.length} steps. ` +
          `Last message: ${describe(request.messages.at(-1))}`,
      );
    }
    return playStep(step, request, observer, () => `call_${++this.#ids}`);
  }
}

/** A model backed by a function of the request: for tests whose answers depend on what was asked. */
export class FunctionModel implements Model {
  readonly id: string;
  readonly price?: ModelPrice;
  readonly requests: RecordedRequest[] = [];
  #ids = 0;

  constructor(
    private readonly respond: (request: RecordedRequest, index: number) => ScriptStep | Promise<ScriptStep>,
    options: TestModelOptions = {},
  ) {
    this.id = options.id ?? "function:test";
    if (options.price !== null) this.price = options.price ?? FREE;
  }

  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    const body = requestBody(this.id, request);
    const { model: _model, ...recorded } = body;
    this.requests.push(recorded as unknown as RecordedRequest);
    observer.onRequest({ body, attempt: 1 });
    const step = await this.respond(recorded as unknown as RecordedRequest, this.requests.length - 1);
    return playStep(step, request, observer, () => `call_${++this.#ids}`);
  }
}

function describe(message: Message | undefined): string {
  if (!message) return "(none)";
  const text = message.role === "assistant" ? message.content || "(tool calls)" : message.content;
  return `${message.role}: ${text.slice(0, 120)}`;
}
