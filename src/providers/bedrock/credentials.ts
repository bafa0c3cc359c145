/**
 * AWS credentials and region the way the AWS tools find them: the options, then the environment
 * (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`), then the
 * shared files (`~/.aws/credentials` and `~/.aws/config`, profile `AWS_PROFILE` or `default`).
 * Anything else (SSO, instance roles, web identity) comes from a provider function the caller
 * passes, e.g. `fromNodeProviderChain()` of `@aws-sdk/credential-providers`.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { CloudCredentialsError } from "../../models/cloud-credentials.js";
import type { AwsCredentials } from "./sigv4.js";

/** Credentials, or a function that supplies them (called before each request; cache inside it). */
export type AwsCredentialSource = AwsCredentials | (() => AwsCredentials | Promise<AwsCredentials>);

const SET_KEYS =
  "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary keys), " +
  "name a profile of ~/.aws/credentials with AWS_PROFILE, set AWS_BEARER_TOKEN_BEDROCK to a Bedrock API key, " +
  "or pass `credentials` (e.g. fromNodeProviderChain() of @aws-sdk/credential-providers: npm i @aws-sdk/credential-providers)";

/** The credentials to sign with now; a missing, incomplete or expired set is a `CloudCredentialsError`. */
export async function awsCredentials(
  provider: string,
  source: AwsCredentialSource | undefined,
  env: NodeJS.ProcessEnv,
  now: Date = new Date(),
): Promise<AwsCredentials> {
  let found: AwsCredentials | undefined;
  if (typeof source === "function") {
    try {
      found = await source();
    } catch (cause) {
      const detail = cause instanceof Error ? cause.message : String(cause);
      throw new CloudCredentialsError(
        provider,
        `${provider}: the AWS credential provider failed: ${detail}`,
        { cause },
      );
    }
  } else found = source ?? fromEnv(env) ?? fromProfile(env);
  if (!found?.accessKeyId || !found.secretAccessKey)
    throw new CloudCredentialsError(provider, `${provider}: no AWS credentials found; ${SET_KEYS}`);
  if (found.expiration !== undefined && found.expiration.getTime() <= now.getTime())
    throw new CloudCredentialsError(
      provider,
      `${provider}: the AWS credentials expired at ${found.expiration.toISOString()}; refresh them (aws sso login, or a new session token) or pass a credentials provider that refreshes`,
    );
  return found;
}

/** The region: the option, `AWS_REGION`, `AWS_DEFAULT_REGION`, or the profile's `region`; else an error. */
export function awsRegion(provider: string, region: string | undefined, env: NodeJS.ProcessEnv): string {
  const found =
    region ??
    (env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || profileValue(env, "config", "region"));
  if (!found)
    throw new CloudCredentialsError(
      provider,
      `${provider}: no AWS region; set AWS_REGION (e.g. us-east-1) or pass \`region\``,
    );
  if (!/^[a-z0-9-]+$/.test(found))
    throw new CloudCredentialsError(provider, `${provider}: "${found}" is not an AWS region name`);
  return found;
}

function fromEnv(env: NodeJS.ProcessEnv): AwsCredentials | undefined {
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  if (!accessKeyId && !secretAccessKey) return undefined;
  if (!accessKeyId || !secretAccessKey)
    throw new CloudCredentialsError(
      "bedrock",
      `bedrock: ${accessKeyId ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID"} is not set, though ${accessKeyId ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY"} is; set both`,
    );
  const sessionToken = env.AWS_SESSION_TOKEN?.trim();
  return { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) };
}

function fromProfile(env: NodeJS.ProcessEnv): AwsCredentials | undefined {
  const accessKeyId = profileValue(env, "credentials", "aws_access_key_id");
  const secretAccessKey = profileValue(env, "credentials", "aws_secret_access_key");
  if (!accessKeyId || !secretAccessKey) return undefined;
  const sessionToken = profileValue(env, "credentials", "aws_session_token");
  return { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) };
}

/** One key of the profile's section in the shared credentials or config file (INI). */
function profileValue(
  env: NodeJS.ProcessEnv,
  file: "credentials" | "config",
  key: string,
): string | undefined {
  const profile = env.AWS_PROFILE?.trim() || "default";
  const path =
    file === "credentials"
      ? env.AWS_SHARED_CREDENTIALS_FILE || join(env.HOME || homedir(), ".aws", "credentials")
      : env.AWS_CONFIG_FILE || join(env.HOME || homedir(), ".aws", "config");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  // The config file names profiles `[profile x]` (except `[default]`); the credentials file `[x]`.
  const wanted = new Set([profile, `profile ${profile}`]);
  let inSection = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      inSection = wanted.has((section[1] ?? "").trim());
      continue;
    }
    if (!inSection) continue;
    const eq = line.indexOf("=");
    if (eq > 0 && line.slice(0, eq).trim() === key) return line.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}
