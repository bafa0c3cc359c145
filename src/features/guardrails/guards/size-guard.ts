import type { FilePart, ImagePart } from "../../../core/vocabulary/messages.js";
import type { GuardrailVerdict, InputGuardrail, OutputGuardrail, ToolGuardrail } from "../guardrail.js";

/** Options of `sizeGuard`: each limit is off when absent. */
export interface SizeGuardOptions {
  /** Characters of the run's input text. */
  maxInputChars?: number;
  /** Bytes of the input's image and file parts together (decoded base64). */
  maxInputBytes?: number;
  /** Characters of a tool call's arguments (JSON text). */
  maxArgumentChars?: number;
  /** Characters of a tool result the model would read; a longer one is withheld. */
  maxResultChars?: number;
  /** Bytes of a tool result's image and file parts together. */
  maxResultBytes?: number;
  /** Characters of the final answer (a typed output: of its JSON). */
  maxOutputChars?: number;
  /** The tools its tool guardrail watches, by name (default: all). */
  tools?: readonly string[];
}

/** The size guard at each place: add the parts you want to `guardrails`. */
export interface SizeGuard {
  input: InputGuardrail;
  tool: ToolGuardrail;
  output: OutputGuardrail;
}

/**
 * Guardrails on size, each limit optional: an input too large to pay for stops the run; a tool
 * call's arguments or its result over the limit, or an answer over it, is refused and the model
 * told the limit, so it can send less.
 */
export function sizeGuard(options: SizeGuardOptions): SizeGuard {
  const over = (what: string, size: number, max: number | undefined, unit: string): string | undefined =>
    max !== undefined && size > max ? `${what} has ${size} ${unit}, over the limit of ${max}` : undefined;
  const reject = (problem: string | undefined, hint: string): GuardrailVerdict =>
    problem === undefined
      ? { action: "allow" }
      : { action: "reject", message: `Refused: ${problem}. ${hint}` };
  return {
    input: {
      name: "size",
      check(input) {
        const problem =
          over("the input", input.text.length, options.maxInputChars, "characters") ??
          over(
            "the input's attachments",
            partBytes([...input.images, ...input.files]),
            options.maxInputBytes,
            "bytes",
          );
        return problem === undefined ? { action: "allow" } : { action: "tripwire", reason: problem };
      },
    },
    tool: {
      name: "size",
      ...(options.tools && { tools: options.tools }),
      before: (call) =>
        reject(
          over("the call's arguments", call.arguments.length, options.maxArgumentChars, "characters"),
          "Send smaller arguments.",
        ),
      after: (result) =>
        reject(
          over("the result", result.content.length, options.maxResultChars, "characters") ??
            over(
              "the result's attachments",
              partBytes([...result.images, ...result.files]),
              options.maxResultBytes,
              "bytes",
            ),
          "It was withheld; ask for less (a narrower query, a range, a page).",
        ),
    },
    output: {
      name: "size",
      check({ output }) {
        const text = typeof output === "string" ? output : (JSON.stringify(output) ?? "");
        return reject(
          over("your answer", text.length, options.maxOutputChars, "characters"),
          "Answer more briefly.",
        );
      },
    },
  };
}

/** Decoded bytes of base64 parts (a URL part counts nothing here: its size is not known before it is fetched). */
function partBytes(parts: readonly (ImagePart | FilePart)[]): number {
  let total = 0;
  for (const p of parts) if (p.data) total += Math.floor((p.data.replace(/=+$/, "").length * 3) / 4);
  return total;
}
