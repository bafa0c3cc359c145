import { ProviderError, type ProviderErrorInit } from "../../models/errors.js";

/**
 * Gemini blocked the prompt (`promptFeedback.blockReason`) or the whole answer (a candidate that
 * ended for safety with nothing in it). `reason` is Gemini's, e.g. `SAFETY`, `PROHIBITED_CONTENT`.
 */
export class GeminiBlockedError extends ProviderError {
  constructor(
    readonly reason: string,
    readonly where: "prompt" | "response",
    init: ProviderErrorInit,
  ) {
    super(
      "content_blocked",
      `${init.provider} blocked the ${where} (${reason}); rephrase it or adjust the safety settings`,
      init,
    );
  }
}
