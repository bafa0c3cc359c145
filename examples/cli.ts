/**
 * The small command-line frame the examples share: pick the model (a scripted one by default,
 * `--model provider:model` for a real one), run the agent with streaming, print each event on one
 * line, then the answer.
 */
import { pathToFileURL } from "node:url";
import { type Agent, type AgentEvent, ConfigError, type Model, RunError, resolveModel } from "glassloop";

/** Where an example prints; tests pass a collector instead of the console. */
export type Print = (line: string) => void;

/** The model an example runs against: `--model provider:model` if given, else its scripted stand-in. */
export function chooseModel(argv: readonly string[], scripted: () => Model): Model {
  const i = argv.indexOf("--model");
  if (i < 0) return scripted();
  const name = argv[i + 1];
  if (name === undefined || name.startsWith("--")) {
    throw new ConfigError('--model needs a value like "openai:gpt-4o-mini"');
  }
  return resolveModel(name);
}

const clip = (text: string, max = 100) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** One short line per event; streaming text and the exact request bodies are left out. */
export function describeEvent(event: AgentEvent): string | undefined {
  switch (event.type) {
    case "run_start":
      return `run_start   model=${event.model}`;
    case "step_start":
      return `step ${event.step}`;
    case "model_response": {
      const calls = event.toolCalls.map((c) => c.name).join(", ");
      const said = event.text ? ` text=${JSON.stringify(clip(event.text, 60))}` : "";
      return `  model     ${event.finishReason}${calls ? ` calls=[${calls}]` : ""}${said} (${event.usage.inputTokens}+${event.usage.outputTokens} tokens)`;
    }
    case "tool_call":
      return `  → ${event.toolName} ${clip(event.arguments)}`;
    case "tool_result":
      return `  ← ${event.toolName} ${event.status}: ${clip(event.content)}`;
    case "error":
      return `error       ${event.code}: ${event.message}`;
    case "run_end":
      return `run_end     ${event.status} · model calls: ${event.usage.requests}, tool calls: ${event.usage.toolCalls}, tokens: ${event.usage.inputTokens + event.usage.outputTokens}`;
    default:
      return undefined;
  }
}

/**
 * Runs `agent` on `input`, printing events as they stream and then the answer. Returns the exit
 * code: 0 done, 1 the run failed (the error says why), 2 bad set-up (e.g. an unknown model).
 */
export async function runExample<TContext, TOutput>(
  build: () => Agent<TContext, TOutput>,
  input: string,
  print: Print = console.log,
  show: (output: TOutput) => string = (output) =>
    typeof output === "string" ? output : JSON.stringify(output, null, 2),
): Promise<number> {
  let agent: Agent<TContext, TOutput>;
  try {
    agent = build();
  } catch (error) {
    if (error instanceof ConfigError || error instanceof TypeError) {
      print(`error: ${error.message}`);
      return 2;
    }
    throw error;
  }
  print(`> ${input}`);
  const stream = agent.stream(input);
  for await (const event of stream) {
    const line = describeEvent(event);
    if (line !== undefined) print(line);
  }
  try {
    const result = await stream.result;
    print(`\nanswer: ${show(result.output)}`);
    return 0;
  } catch (error) {
    if (error instanceof RunError) {
      print(`\nthe run failed (${error.code}): ${error.message}`);
      return 1;
    }
    throw error;
  }
}

/** Whether the module at `url` is the script node was started with (not imported by a test). */
export function isMain(url: string): boolean {
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(script).href === url;
}
