import { importEngine, startEngine } from "./engine.js";
import { describeError, LocalModelError } from "./errors.js";

/**
 * Whether the embedded local model can run here: null when node-llama-cpp imports and its native
 * binary loads, else the error that says why (not installed, or no binary for this machine).
 * For `glassloop models` and model selection; it loads no weights.
 */
export async function probeLocalEngine(
  options: { engineModule?: string } = {},
): Promise<LocalModelError | null> {
  try {
    const nlc = await importEngine(options.engineModule);
    await startEngine(nlc, { gpu: false, logLevel: "error" });
    return null;
  } catch (error) {
    return error instanceof LocalModelError
      ? error
      : new LocalModelError("local_engine_unavailable", describeError(error), { cause: error });
  }
}
