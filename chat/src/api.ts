import type { RequestDiff } from "../../src/core/request-diff.js";
import type { ChatMessage } from "./ui-message.js";

/**
 * The page's calls to the serve API (docs/serve.md). Every path is relative, so the page works
 * wherever the handler is mounted; the login cookie rides along on every same-origin fetch.
 */

/** A refused call: the problem details the server sent (`code`, `detail`), or the HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A tool an agent may call, and whether a person must approve each call. */
export interface AgentTool {
  name: string;
  description?: string;
  needsApproval?: boolean;
}

/** An agent the server offers. */
export interface AgentInfo {
  name: string;
  description?: string;
  model?: string;
  tools?: AgentTool[];
}

/** The run of a chat that has not ended. */
export interface ActiveRun {
  runId: string;
  status: "running" | "awaiting_approval";
}

/** A chat in the list. */
export interface ChatSummary {
  id: string;
  agent: string;
  title: string;
  updatedAt: string;
  activeRun: ActiveRun | null;
}

/** A chat with its history, built by the server from its stored runs. */
export interface StoredChat {
  id: string;
  agent: string;
  messages: ChatMessage[];
  activeRun: ActiveRun | null;
}

/** One step's exact request and response (the glass). */
export interface StepGlass {
  runId: string;
  step: number;
  model?: string;
  request: { url?: string; attempt: number; body: unknown } | null;
  attempts: number;
  response: {
    text?: string;
    toolCalls?: { id: string; name: string; arguments: string }[];
    finishReason?: string;
    usage?: Record<string, number>;
    latencyMs?: number;
    raw?: unknown;
  } | null;
  previous: { step: number } | null;
  /** What the step cost, when the model is priced. */
  costUsd?: number;
  diff: RequestDiff | null;
}

/** A run's facts: its steps, status and cost. */
export interface RunInfo {
  runId: string;
  chatId: string;
  status: string;
  steps: { step: number }[];
}

async function problem(res: Response): Promise<ApiError> {
  const body = (await res.json().catch(() => ({}))) as { code?: unknown; detail?: unknown; title?: unknown };
  const text =
    typeof body.detail === "string" ? body.detail : typeof body.title === "string" ? body.title : "";
  return new ApiError(
    res.status,
    typeof body.code === "string" ? body.code : String(res.status),
    text || `${res.status} ${res.statusText}`,
  );
}

/** A JSON call; throws ApiError for any non-2xx answer. */
export async function call<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(path, {
    ...init,
    headers: {
      accept: "application/json",
      ...(init.body ? { "content-type": "application/json" } : {}),
      ...init.headers,
    },
  });
  if (!res.ok) throw await problem(res);
  if (res.status === 204 || res.status === 202) return (await res.json().catch(() => undefined)) as T;
  return (await res.json()) as T;
}

/** Opens a UI message stream (a send, an approval, a resume); `null` when there is nothing to resume (204). */
export async function openStream(path: string, init: RequestInit): Promise<Response | null> {
  const res = await fetch(path, {
    ...init,
    headers: {
      accept: "text/event-stream",
      ...(init.body ? { "content-type": "application/json" } : {}),
      ...init.headers,
    },
  });
  if (res.status === 204) return null;
  if (!res.ok || !res.body) throw await problem(res);
  return res;
}

const seg = encodeURIComponent;

/** The API's paths, relative to the page. */
export const paths = {
  login: "api/login",
  me: "api/me",
  agents: "api/agents",
  chats: "api/chats",
  chat: (chatId: string) => `api/chats/${seg(chatId)}`,
  send: "api/chat",
  resume: (chatId: string) => `api/chat/${seg(chatId)}/stream`,
  runStream: (runId: string) => `api/runs/${seg(runId)}/stream`,
  run: (runId: string) => `api/runs/${seg(runId)}`,
  cancel: (runId: string) => `api/runs/${seg(runId)}/cancel`,
  answers: (runId: string) => `api/runs/${seg(runId)}/answers`,
  step: (runId: string, step: number) => `api/runs/${seg(runId)}/steps/${step}`,
  /** The run (or one step of it) in the trace viewer the server mounts at `trace/`. */
  trace: (runId: string, step?: number) =>
    `trace/#/run/${seg(runId)}${step === undefined ? "" : `/step/${step}`}`,
};
