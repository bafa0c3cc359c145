import { readdirSync } from "node:fs";
import { join } from "node:path";
import { GlassloopError } from "../core/errors.js";
import { InputTooLargeError, READ_CAPS, readBodyCapped } from "../core/read-caps.js";
import { modelCacheDir } from "../providers/local/name.js";
import { ollamaBaseURL } from "../providers/preset-table.js";
import type { CliConfig } from "./config.js";
import { keyFreeCommands } from "./shipped-recordings.js";

/** Providers picked by themselves when their key is in the environment, in this order, with the model used. */
export const KEYED_DEFAULTS = [
  { env: "OPENAI_API_KEY", model: "openai:gpt-4o-mini" },
  { env: "ANTHROPIC_API_KEY", model: "anthropic:claude-haiku-4-5" },
  { env: "OPENROUTER_API_KEY", model: "openrouter:openai/gpt-4o-mini" },
  { env: "DEEPSEEK_API_KEY", model: "deepseek:deepseek-chat" },
  { env: "GROQ_API_KEY", model: "groq:llama-3.3-70b-versatile" },
  { env: "GEMINI_API_KEY", model: "google:gemini-2.5-flash" },
] as const;

/** Which model a command will use and why. */
export interface ModelChoice {
  model: string;
  /** How it was chosen, for `glassloop models` and the first line of `run`. */
  source: string;
}

/** No model is configured or reachable; the message says exactly what to do. */
export class NoModelError extends GlassloopError {
  /** `cwd` writes the key-free commands' paths as typed from there (default: the process's). */
  constructor(cwd = process.cwd()) {
    const tryIt = keyFreeCommands(cwd);
    super(
      "no_model",
      `${NO_MODEL_HELP}
  - no model at all: glassloop demo (worked examples, replayed answers, offline), or replay a
      recorded run or eval: ${tryIt.run}
      ${tryIt.eval}`,
    );
  }
}

const NO_MODEL_HELP = `no model is configured or reachable. Any one of these works:
  - an API key in the environment: ${KEYED_DEFAULTS.map((k) => k.env).join(", ")}
      export OPENAI_API_KEY=sk-...
  - a model by name: --model provider:model (e.g. --model openai:gpt-4o-mini),
      or GLASSLOOP_MODEL=provider:model, or "model" in glassloop.config.json
  - a local OpenAI-compatible server (llama-server, vLLM, LM Studio): its URL and a model name,
      OPENAI_BASE_URL=http://127.0.0.1:8080/v1 glassloop run --model openai:<model> "..."
  - Ollama on this machine: "ollama serve" and "ollama pull llama3.2" (OLLAMA_HOST if not 127.0.0.1:11434)
  - a local GGUF file: --model local:/path/to/model.gguf (needs: npm i -E node-llama-cpp@3.21.1),
      or GLASSLOOP_LOCAL_MODEL=/path/to/model.gguf, or local:hf:<user>/<repo>/<file>.gguf to download one
  - a small local model (about 1.1 GB, downloaded once; needs node-llama-cpp as above):
      glassloop run --yes "...", or answer "y" when glassloop asks on a terminal`;

/** What model selection can look at; `probe` answers "is Ollama there, with which models". */
export interface SelectionInput {
  flag?: string;
  env: NodeJS.ProcessEnv;
  config: CliConfig;
  configPath?: string;
  probeOllama?: (env: NodeJS.ProcessEnv) => Promise<string[] | undefined>;
  /** Where the user is, for the paths the no-model message prints. */
  cwd?: string;
}

/**
 * The model to use: --model, then GLASSLOOP_MODEL or the config file, then a provider with a key in
 * the environment, then a running Ollama, then the embedded local model; otherwise `NoModelError`.
 */
export async function selectModel(input: SelectionInput): Promise<ModelChoice> {
  const { flag, env, config } = input;
  if (flag) return { model: flag, source: "--model" };
  if (env.GLASSLOOP_MODEL) return { model: env.GLASSLOOP_MODEL, source: "GLASSLOOP_MODEL" };
  if (config.model) return { model: config.model, source: input.configPath ?? "glassloop.config.json" };
  for (const keyed of KEYED_DEFAULTS) {
    if (env[keyed.env]?.trim()) return { model: keyed.model, source: `${keyed.env} is set` };
  }
  const ollama = await (input.probeOllama ?? probeOllama)(env);
  if (ollama?.[0]) return { model: `ollama:${ollama[0]}`, source: "Ollama is running" };
  if (env.GLASSLOOP_LOCAL_MODEL)
    return { model: `local:${env.GLASSLOOP_LOCAL_MODEL}`, source: "GLASSLOOP_LOCAL_MODEL" };
  const cached = cachedModels(env)[0];
  if (cached) return { model: `local:${cached}`, source: `downloaded earlier to ${modelCacheDir(env)}` };
  throw new NoModelError(input.cwd);
}

/** GGUF files in the local model cache (where `local:hf:` downloads go), by name. */
export function cachedModels(env: NodeJS.ProcessEnv): string[] {
  const dir = modelCacheDir(env);
  try {
    return readdirSync(dir)
      .filter((name) => name.toLowerCase().endsWith(".gguf"))
      .sort()
      .map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/** Ollama's root URL (without /v1) from OLLAMA_HOST, as Ollama itself reads that variable. */
export function ollamaRoot(env: NodeJS.ProcessEnv): string {
  return ollamaBaseURL(env.OLLAMA_HOST?.trim() || "127.0.0.1:11434").replace(/\/v1$/, "");
}

/** The models a running Ollama serves, or undefined when none answers within `timeoutMs`. */
export async function probeOllama(env: NodeJS.ProcessEnv, timeoutMs = 500): Promise<string[] | undefined> {
  try {
    const response = await fetch(`${ollamaRoot(env)}/api/tags`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return undefined;
    // A local server is still a server: its list is read under the provider body cap.
    const bytes = await readBodyCapped(
      response.body,
      READ_CAPS.providerBody,
      () => new InputTooLargeError("providerBody", READ_CAPS.providerBody, "Ollama /api/tags"),
      response.headers.get("content-length"),
    );
    const body = JSON.parse(bytes.toString("utf8")) as { models?: { name?: unknown }[] };
    return (body.models ?? []).map((m) => m.name).filter((n): n is string => typeof n === "string");
  } catch {
    return undefined;
  }
}
