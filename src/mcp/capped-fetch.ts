import { capStream, InputTooLargeError, READ_CAPS } from "../core/read-caps.js";

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** What the JSON-RPC error glassloop writes for a cut-off answer carries in `data`, to tell it apart. */
export const CUT_OFF_CODE = "input_too_large";

/**
 * The fetch of an MCP server over streamable HTTP, with every message held to `limitBytes`
 * (core/read-caps.ts): a JSON body past the cap fails the request with an InputTooLargeError; in an
 * SSE stream, one event past the cap ends the stream with a JSON-RPC error for the request it
 * answered, so the call fails at once (not at its timeout) and the rest is never read.
 */
export function cappedFetch(
  server: string,
  limitBytes: number = READ_CAPS.mcpMessage,
  base: Fetch = fetch,
): Fetch {
  return async (url, init) => {
    const response = await base(url, init);
    if (!response.body) return response;
    const source = `MCP server ${JSON.stringify(server)}`;
    const tooLarge = () => new InputTooLargeError("mcpMessage", limitBytes, source);
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (declared > limitBytes) {
      await response.body.cancel().catch(() => {});
      throw tooLarge();
    }
    const sse = /^text\/event-stream\b/i.test(response.headers.get("content-type") ?? "");
    const ids = requestIds(init?.body);
    const body = capStream(response.body, limitBytes, {
      perEvent: sse,
      tooLarge,
      ...(sse &&
        ids.length > 0 && {
          onOverflow: () =>
            new TextEncoder().encode(
              // The blank line ends the event that was cut (the SDK drops it as unreadable JSON).
              `\n\n${ids
                .map(
                  (id) =>
                    `event: message\ndata: ${JSON.stringify({
                      jsonrpc: "2.0",
                      id,
                      error: {
                        code: -32000,
                        message: tooLarge().message,
                        data: { code: CUT_OFF_CODE, limitBytes },
                      },
                    })}\n\n`,
                )
                .join("")}`,
            ),
        }),
    });
    const headers = new Headers(response.headers);
    headers.delete("content-length");
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
}

/** The ids of the JSON-RPC requests a POST body carries (their answers come back on its stream). */
function requestIds(body: unknown): (string | number)[] {
  if (typeof body !== "string") return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    return messages.flatMap((m) => {
      const id = (m as { id?: unknown; method?: unknown } | null)?.id;
      return (typeof id === "string" || typeof id === "number") &&
        typeof (m as { method?: unknown }).method === "string"
        ? [id]
        : [];
    });
  } catch {
    return [];
  }
}
