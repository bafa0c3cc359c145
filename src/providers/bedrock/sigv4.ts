/**
 * AWS Signature Version 4 for one request, with node:crypto alone: the canonical request, the
 * string to sign, the derived key and the `Authorization` header. Checked against AWS's published
 * SigV4 test suite (test/fixtures/sigv4/), so no SDK is needed to call Bedrock.
 */
import { createHash, createHmac } from "node:crypto";

/** Static AWS credentials (a session token for temporary ones). */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** When temporary credentials stop working; a call after it is refused before it is sent. */
  expiration?: Date;
}

/** What is signed: the method, the path as sent (already percent-encoded), the query, the headers, the body. */
export interface SignableRequest {
  method: string;
  /** The path exactly as it goes on the wire; it is encoded once more for the canonical request. */
  path: string;
  query?: Record<string, string>;
  /** Every header to sign, `host` and `x-amz-date` included. */
  headers: Record<string, string>;
  body: string;
}

/** Where and when a request is signed. */
export interface SigningScope {
  region: string;
  service: string;
  /** The signing time; `x-amz-date` must say the same. */
  date: Date;
}

/** `20150830T123600Z`: the form `x-amz-date` and the credential scope take. */
export function amzDate(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

/** The `Authorization` header value of `request` signed with `credentials` in `scope`. */
export function signatureV4(
  request: SignableRequest,
  credentials: AwsCredentials,
  scope: SigningScope,
): string {
  const stamp = amzDate(scope.date);
  const day = stamp.slice(0, 8);
  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const headers = canonicalHeaders(request.headers);
  const signedHeaders = headers.map(([name]) => name).join(";");
  const canonical = [
    request.method.toUpperCase(),
    canonicalPath(request.path),
    canonicalQuery(request.query ?? {}),
    headers.map(([name, value]) => `${name}:${value}\n`).join(""),
    signedHeaders,
    sha256Hex(request.body),
  ].join("\n");
  const toSign = ["AWS4-HMAC-SHA256", stamp, credentialScope, sha256Hex(canonical)].join("\n");
  let key: Buffer = hmac(`AWS4${credentials.secretAccessKey}`, day);
  for (const part of [scope.region, scope.service, "aws4_request"]) key = hmac(key, part);
  const signature = createHmac("sha256", key).update(toSign, "utf8").digest("hex");
  return `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${credentialScope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}

/** Hex SHA-256 of a UTF-8 string: the payload hash of a signed request. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac("sha256", key).update(data, "utf8").digest();
}

/** RFC 3986 encoding: everything but unreserved characters, `!'()*` included. */
function uriEscape(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** Each segment encoded (again, for a path already encoded for the wire: AWS's rule outside S3). */
function canonicalPath(path: string): string {
  return path
    .split("/")
    .map((segment) => uriEscape(segment))
    .join("/");
}

function canonicalQuery(query: Record<string, string>): string {
  return Object.entries(query)
    .map(([key, value]) => [uriEscape(key), uriEscape(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join("&");
}

/** Lower-case names, sorted; values trimmed with inner runs of spaces collapsed. */
function canonicalHeaders(headers: Record<string, string>): [string, string][] {
  return Object.entries(headers)
    .map(([name, value]): [string, string] => [name.toLowerCase(), value.trim().replace(/\s+/g, " ")])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
