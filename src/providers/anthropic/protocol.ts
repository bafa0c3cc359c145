import { redact } from "../../core/redact.js";
import { errorForStatus, type ProviderError } from "../../models/errors.js";
import type { HttpProvider } from "../../models/http-provider.js";
import type { ModelRequest } from "../../models/model.js";
import { anthropicProtocolError } from "./protocol-error.js";
import { type AnthropicBodyOptions, toAnthropicBody } from "./request.js";
import { fromAnthropicMessage } from "./response.js";
import { AnthropicStreamAssembler, AnthropicStreamErrorEvent } from "./stream.js";
import type { AnthropicErrorBody } from "./wire.js";

/** The Messages protocol: the translation the kit (models/http-provider.ts) calls. */
export const ANTHROPIC_MESSAGES: HttpProvider<AnthropicBodyOptions> = {
  toBody: (request, settings) => toAnthropicBody(request, settings),
  fromBody: (body) => fromAnthropicMessage(body),
  stream: (_settings, { deliver, secrets }) => {
    const assembler = new AnthropicStreamAssembler(deliver);
    return {
      push(event) {
        let data: unknown;
        try {
          data = JSON.parse(event.data);
        } catch {
          throw anthropicProtocolError("an event's data is not JSON", event.data);
        }
        try {
          assembler.push(data);
        } catch (error) {
          if (error instanceof AnthropicStreamErrorEvent) throw streamError(error.body, secrets);
          throw error;
        }
        // After message_stop nothing more is read, even if the server keeps the connection open.
        return assembler.done;
      },
      // A stream that ended without message_stop is reported by `finish` as cut off.
      finish: () => assembler.finish(),
    };
  },
};

/** The body of a count-tokens call: the request's content, not its generation settings. */
export function anthropicCountBody(
  request: ModelRequest,
  settings: AnthropicBodyOptions,
): Record<string, unknown> {
  const {
    max_tokens: _max,
    stream: _stream,
    temperature: _t,
    ...body
  } = toAnthropicBody({ ...request, stream: false }, settings) as unknown as Record<string, unknown>;
  return body;
}

/** A stream's `error` event as the typed error the same error would be over HTTP. */
function streamError(body: AnthropicErrorBody, secrets: readonly string[]): ProviderError {
  const clean = redact(JSON.stringify(body), secrets);
  const parsed = JSON.parse(clean) as AnthropicErrorBody;
  const type = parsed.error?.type ?? "";
  return errorForStatus({
    provider: "anthropic",
    status: STATUS_OF_ERROR_TYPE[type] ?? 500,
    excerpt: clean.slice(0, 500),
    body: parsed,
  });
}

/** Anthropic's error types and the HTTP statuses they come with, for errors sent inside a stream. */
const STATUS_OF_ERROR_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};
