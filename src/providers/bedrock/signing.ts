import type { PostFetch } from "../../models/http/node-post.js";
import { type AwsCredentialSource, awsCredentials } from "./credentials.js";
import { eventStreamToSse } from "./event-stream.js";
import { amzDate, signatureV4 } from "./sigv4.js";

const PROVIDER = "bedrock";

/** What signing a request needs: where the credentials come from, and the region. */
export interface SigningSettings {
  source: AwsCredentialSource | undefined;
  env: NodeJS.ProcessEnv;
  region: string;
}

/**
 * One attempt: signed as it leaves (a fresh `x-amz-date`, over the exact bytes sent) unless a
 * bearer key replaces signing, and an event-stream answer turned into server-sent events.
 */
export async function signedPost(
  base: PostFetch,
  sign: SigningSettings | undefined,
  url: string,
  init: Parameters<PostFetch>[1],
): Promise<Response> {
  const target = new URL(url);
  const stream = target.pathname.endsWith("/converse-stream");
  const headers: Record<string, string> = { ...init.headers };
  if (stream) headers.accept = "application/vnd.amazon.eventstream";
  if (sign) {
    const credentials = await awsCredentials(PROVIDER, sign.source, sign.env);
    const date = new Date();
    const signed: Record<string, string> = { host: target.host, "x-amz-date": amzDate(date) };
    if (credentials.sessionToken) signed["x-amz-security-token"] = credentials.sessionToken;
    headers.authorization = signatureV4(
      {
        method: "POST",
        path: target.pathname,
        query: Object.fromEntries(target.searchParams),
        headers: signed,
        body: init.body,
      },
      credentials,
      { region: sign.region, service: "bedrock", date },
    );
    for (const [name, value] of Object.entries(signed)) if (name !== "host") headers[name] = value;
  }
  const response = await base(url, { ...init, headers });
  const type = response.headers.get("content-type") ?? "";
  if (!response.ok || !response.body || !type.includes("application/vnd.amazon.eventstream")) return response;
  const sseHeaders = new Headers(response.headers);
  sseHeaders.set("content-type", "text/event-stream");
  return new Response(response.body.pipeThrough(eventStreamToSse(PROVIDER)), {
    status: response.status,
    headers: sseHeaders,
  });
}
