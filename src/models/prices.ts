import type { ModelPrice } from "./model.js";
import { MODEL_TABLE, type ModelInfo } from "./model-table.js";

const table = new Map<string, ModelInfo>(Object.entries(MODEL_TABLE));

/** Providers whose models cost nothing per token (they run on your own machine). */
const free = new Set<string>(["ollama", "lmstudio", "vllm", "llamacpp"]);

const FREE: ModelPrice = Object.freeze({ inputPerMTok: 0, outputPerMTok: 0 });

// Dated snapshots cost what their family costs: gpt-4o-2024-08-06, claude-sonnet-4-5-20250929.
const SNAPSHOT = /-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/** What the table knows of `provider:model` (snapshot dates ignored), or `undefined`. */
export function modelInfo(provider: string, model: string): ModelInfo | undefined {
  return table.get(`${provider}:${model}`) ?? table.get(`${provider}:${model.replace(SNAPSHOT, "")}`);
}

/** The known price of `provider:model` (snapshot dates ignored), or `undefined`. */
export function priceOf(provider: string, model: string): ModelPrice | undefined {
  if (free.has(provider)) return FREE;
  return modelInfo(provider, model)?.price;
}

/** The known context window of `provider:model` in tokens (snapshot dates ignored), or `undefined`. */
export function contextWindowOf(provider: string, model: string): number | undefined {
  return modelInfo(provider, model)?.window;
}

/** Sets (or with `undefined`, removes) the price of `provider:model`, e.g. `"openai:gpt-4o"`. */
export function setModelPrice(id: string, price: ModelPrice | undefined): void {
  const { price: _old, ...rest } = table.get(checkedId(id, "setModelPrice")) ?? {};
  table.set(id, price === undefined ? rest : { ...rest, price: { ...price } });
}

/**
 * Replaces (or with `undefined`, removes) what the table knows of `provider:model`: its price,
 * context window and output limit, e.g. `setModelInfo("openai:my-finetune", { window: 128_000 })`.
 */
export function setModelInfo(id: string, info: ModelInfo | undefined): void {
  if (info === undefined) table.delete(checkedId(id, "setModelInfo"));
  else table.set(checkedId(id, "setModelInfo"), { ...info, ...(info.price && { price: { ...info.price } }) });
}

function checkedId(id: string, caller: string): string {
  if (!id.includes(":")) throw new TypeError(`${caller}: "${id}" must look like "provider:model"`);
  return id;
}
