import { parseArgs } from "node:util";
import { GlassloopError } from "../../core/errors.js";
import { OPENAI_PRESETS } from "../../providers/preset-table.js";
import { type CliIO, type Command, EXIT, UsageError } from "../command.js";
import { loadConfig } from "../config.js";
import {
  cachedModels,
  KEYED_DEFAULTS,
  type ModelChoice,
  ollamaRoot,
  probeOllama,
  selectModel,
} from "../model-select.js";
import { Printer } from "../printer.js";

const USAGE = `Usage: glassloop models [--json]

Shows which providers are configured (keys are never printed, only whether they are set), whether
Ollama is reachable, whether the embedded local model can run, and which model "glassloop run"
would use.`;

/** One provider's state. */
interface ProviderStatus {
  provider: string;
  configured: boolean;
  detail: string;
}

/** `glassloop models`: which providers are set up and which model `run` would use. */
const models: Command = {
  usage: USAGE,
  async run(args, io) {
    let json: boolean | undefined;
    try {
      ({ json } = parseArgs({ args, options: { json: { type: "boolean" } }, strict: true }).values);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const { config, path } = loadConfig(io.cwd, io.env);
    const ollama = await probeOllama(io.env);
    const providers = statuses(io, ollama);
    let choice: ModelChoice | undefined;
    let problem: string | undefined;
    try {
      choice = await selectModel({
        env: io.env,
        cwd: io.cwd,
        config,
        ...(path && { configPath: path }),
        probeOllama: async () => ollama,
      });
    } catch (error) {
      if (!(error instanceof GlassloopError)) throw error;
      problem = error.message;
    }
    const printer = new Printer(io);
    if (json) {
      printer.line(JSON.stringify({ providers, selected: choice ?? null, ...(problem && { problem }) }));
      return EXIT.ok;
    }
    const s = printer.out;
    printer.line(s.bold("Providers"));
    for (const p of providers) {
      const mark = p.configured ? s.green("✓") : s.dim("·");
      printer.line(`  ${mark} ${p.provider.padEnd(11)} ${p.configured ? p.detail : s.dim(p.detail)}`);
    }
    printer.line("");
    if (choice)
      printer.line(`${s.bold("glassloop run would use")} ${choice.model} ${s.dim(`(${choice.source})`)}`);
    else printer.line(`${s.bold("glassloop run would use")} nothing: ${problem}`);
    return EXIT.ok;
  },
};
export default models;

function statuses(io: CliIO, ollama: string[] | undefined): ProviderStatus[] {
  const env = io.env;
  const keyed: ProviderStatus[] = KEYED_DEFAULTS.map(({ env: variable, model }) => {
    const provider = model.slice(0, model.indexOf(":"));
    const set = Boolean(env[variable]?.trim());
    const preset = (OPENAI_PRESETS as Record<string, { baseURLEnv: string }>)[provider];
    const baseEnv =
      preset?.baseURLEnv ??
      (provider === "anthropic"
        ? "ANTHROPIC_BASE_URL"
        : provider === "google"
          ? "GOOGLE_GEMINI_BASE_URL"
          : undefined);
    const base = baseEnv && env[baseEnv] ? `, ${baseEnv}=${withoutCredentials(env[baseEnv] as string)}` : "";
    return {
      provider,
      configured: set,
      detail: set ? `${variable} is set${base} (default model ${model})` : `${variable} not set`,
    };
  });
  const root = withoutCredentials(ollamaRoot(env));
  keyed.push({
    provider: "ollama",
    configured: ollama !== undefined,
    detail:
      ollama === undefined
        ? `not reachable at ${root}`
        : ollama.length === 0
          ? `running at ${root} but has no models (ollama pull llama3.2)`
          : `running at ${root}: ${ollama.map((m) => `ollama:${m}`).join(", ")}`,
  });
  const engine = canImport("node-llama-cpp");
  const gguf = env.GLASSLOOP_LOCAL_MODEL;
  const cached = cachedModels(env);
  const weights = gguf
    ? `GLASSLOOP_LOCAL_MODEL=${gguf}`
    : cached.length > 0
      ? `downloaded: ${cached.map((f) => `local:${f}`).join(", ")}`
      : "no GGUF given (GLASSLOOP_LOCAL_MODEL or --model local:/path/to/model.gguf)";
  keyed.push({
    provider: "local",
    configured: engine && (Boolean(gguf) || cached.length > 0),
    detail: `${engine ? "node-llama-cpp installed" : "node-llama-cpp not installed (npm i -E node-llama-cpp@3.21.1)"}; ${weights}`,
  });
  keyed.push({ provider: "replay", configured: true, detail: "recorded answers, offline: glassloop demo" });
  return keyed;
}

function canImport(specifier: string): boolean {
  try {
    import.meta.resolve(specifier);
    return true;
  } catch {
    return false;
  }
}

function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.href.replace(/\/$/, "");
  } catch {
    return url;
  }
}
