import { redact } from "../../core/redact.js";
import { ProviderProtocolError } from "../../models/errors.js";
import type { HttpProvider } from "../../models/http-provider.js";
import { type GeminiBodyOptions, toGeminiBody } from "./request.js";
import { GeminiAnswer } from "./response.js";

/** The Gemini protocol: the translation the kit (models/http-provider.ts) calls. */
export const GEMINI_GENERATE: HttpProvider<GeminiBodyOptions> = {
  toBody: (request, settings) => toGeminiBody(request, settings),
  fromBody(body, _settings, provider) {
    const answer = new GeminiAnswer(provider);
    answer.add(body);
    return answer.finish(false);
  },
  stream: (_settings, { provider, secrets, deliver }) => {
    const answer = new GeminiAnswer(provider, deliver);
    return {
      push(event) {
        let chunk: unknown;
        try {
          chunk = JSON.parse(event.data);
        } catch (cause) {
          throw new ProviderProtocolError(
            `${provider} sent a stream chunk that is not JSON`,
            { provider, excerpt: redact(event.data, secrets).slice(0, 500) },
            { cause },
          );
        }
        answer.add(chunk);
        // Gemini's stream has no end marker: the chunk with the finish reason (and the final
        // usage) is the last one.
        return answer.finished;
      },
      finish: () => answer.finish(true),
    };
  },
};
