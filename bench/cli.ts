/**
 * `npm run bench -- cli`: how fast the `glassloop` binary starts and finishes small jobs, run as a
 * user runs it (the tsc-built dist, a fresh node per sample, no tsx).
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chatSse } from "../test/helpers/openai-replies.js";
import { startWireServer } from "../test/helpers/wire-server.js";
import { builtEntry } from "./providers.js";
import { type BenchTable, round } from "./table.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

function timeRun(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd, env, stdio: "ignore" });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`${args.join(" ")} exited ${code}`)),
    );
  });
}

async function median(samples: number, run: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) times.push(await run());
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

/** The CLI's startup and small end-to-end jobs. */
export async function cliBench(): Promise<BenchTable[]> {
  const main = join(dirname(builtEntry()), "cli", "main.mjs");
  const cwd = mkdtempSync(join(tmpdir(), "glassloop-bench-cli-"));
  const server = await startWireServer();
  server.handler = () => chatSse({ text: "Hi.", usage: { prompt_tokens: 10, completion_tokens: 2 } });
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NO_COLOR: "1",
    OLLAMA_HOST: "127.0.0.1:9",
    GLASSLOOP_MODELS_DIR: join(cwd, "no-models"),
    OPENAI_API_KEY: "sk-bench",
    OPENAI_BASE_URL: `${server.url}/v1`,
  };
  const samples = 7;
  try {
    const rows: [string, number][] = [
      ["glassloop --help", await median(samples, () => timeRun([main, "--help"], env, cwd))],
      [
        "glassloop models (Ollama probe refused at once)",
        await median(samples, () => timeRun([main, "models"], env, cwd)),
      ],
      [
        'glassloop run "hi" (one model call to a local server, checkpointed)',
        await median(samples, () => timeRun([main, "run", "hi"], env, cwd)),
      ],
      [
        'glassloop run --tools calculator,clock,http_get,files "hi"',
        await median(samples, () =>
          timeRun([main, "run", "--tools", "calculator,clock,http_get,files", "hi"], env, cwd),
        ),
      ],
      [
        "glassloop demo (4 replayed runs and the calculator refusals)",
        await median(samples, () =>
          timeRun([main, "demo", "--recordings", join(ROOT, "recordings")], env, cwd),
        ),
      ],
    ];
    return [
      {
        title: `CLI wall time per command (fresh node each, median of ${samples})`,
        columns: ["command", "ms"],
        rows: rows.map(([label, ms]) => [label, round(ms, 0)]),
        notes: [
          "Targets: --help < 100 ms; a one-step run against a local server < 500 ms (most of it is Node's module",
          "loading and undici's first fetch). The tsdown bundle (npm run build, as bench -- providers does);",
          "node runs dist/cli/main.mjs, no tsx. The commands load only what they use (src/cli/commands.ts).",
        ],
      },
    ];
  } finally {
    await server.close();
  }
}
