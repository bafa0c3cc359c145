/**
 * A tool's question for the person as a pause of the run: the signal a tool throws to ask, the
 * error the run ends with while the question waits, the one rule that says whether a recorded
 * answer answers a question asked again, and the check of an answer against the form asked for.
 */
import { ConfigError, GlassloopError, RunError, type RunErrorState } from "./errors.js";
import type { AskedQuestion, PersonAnswer, PersonQuestion } from "./vocabulary/questions.js";

/**
 * Thrown by a tool's `run` to put `question` to the person: the run finishes the turn's other
 * calls, stores itself with this call waiting (status `awaiting_approval`, the call
 * `awaiting_input`) and ends with InputRequiredError. Resumed with the answer, the call runs again
 * and `ToolRunOptions.answered(question)` gives the answer to the same question asked again.
 */
export class QuestionAsked extends GlassloopError {
  readonly question: PersonQuestion;
  constructor(question: PersonQuestion) {
    super("awaiting_input", `${question.source} asks the person: ${question.message.slice(0, 200)}`);
    this.question = question;
  }
}

/** A call of a paused run that waits for the person's answer. */
export interface PendingQuestion {
  toolCallId: string;
  toolName: string;
  /** The question now waiting (the call's earlier questions, answered, are kept with it in the store). */
  question: PersonQuestion;
}

/**
 * The run paused because a tool asked the person a question. Its state is stored (status
 * `awaiting_approval`); continue with `agent.resume(runId, { answers: [{ toolCallId, answer }] })`.
 */
export class InputRequiredError extends RunError {
  readonly pending: PendingQuestion[];
  constructor(pending: PendingQuestion[], state: RunErrorState) {
    super(
      "awaiting_input",
      `The run is waiting for the person's answer to ${pending.map((p) => `${p.question.source} (call ${p.toolCallId})`).join(", ")}; ` +
        `resume it with agent.resume(${JSON.stringify(state.runId)}, { answers: [{ toolCallId, answer }] })`,
      state,
    );
    this.pending = pending;
  }
}

/**
 * Whether `asked` is the question `recorded` answers: the same asker, the same text, the same
 * form (schema compared key order aside). A question that changed in any way is asked anew.
 */
export function sameQuestion(recorded: PersonQuestion, asked: PersonQuestion): boolean {
  return (
    recorded.source === asked.source &&
    recorded.message === asked.message &&
    canonical(recorded.schema) === canonical(asked.schema)
  );
}

/**
 * The answers a resumed run carries, by call: a call that asks a question again gets the recorded
 * answer of the same question, each at most once per run of the call, in the order they were asked.
 */
export class RecordedAnswers {
  readonly #byCall: Map<string, AskedQuestion[]>;
  /** What each call was answered from the record so far in this run (kept with a new question). */
  readonly #used = new Map<string, AskedQuestion[]>();

  constructor(byCall: ReadonlyMap<string, readonly AskedQuestion[]>) {
    this.#byCall = new Map([...byCall].map(([id, asked]) => [id, [...asked]]));
  }

  /** The recorded answer to `question` for call `toolCallId`, taken; undefined when none fits. */
  take(toolCallId: string, question: PersonQuestion): PersonAnswer | undefined {
    const asked = this.#byCall.get(toolCallId);
    const index = asked?.findIndex((a) => a.answer !== undefined && sameQuestion(a.question, question)) ?? -1;
    if (!asked || index < 0) return undefined;
    const [taken] = asked.splice(index, 1) as [AskedQuestion];
    this.#used.set(toolCallId, [...(this.#used.get(toolCallId) ?? []), taken]);
    return taken.answer;
  }

  /** The questions call `toolCallId` was answered from the record, with `question` now waiting after them. */
  withNew(toolCallId: string, question: PersonQuestion): AskedQuestion[] {
    return [...(this.#used.get(toolCallId) ?? []), { question }];
  }
}

/** The questions waiting in a paused run's calls, each with its recorded history. */
export interface WaitingCall {
  toolCallId: string;
  toolName: string;
  questions: readonly AskedQuestion[];
}

/**
 * The record a resume runs with: each waiting call's questions with `answers` given to the one
 * now waiting. Every waiting call must be answered, only those, and each answer must fit its form
 * (checkAnswer); anything else is a ConfigError and the run stays as it was.
 */
export function answersFor(
  waiting: readonly WaitingCall[],
  answers: readonly { toolCallId: string; answer: PersonAnswer }[],
): Map<string, AskedQuestion[]> {
  const byId = new Map(waiting.map((w) => [w.toolCallId, w]));
  const given = new Map<string, PersonAnswer>();
  for (const { toolCallId, answer } of answers) {
    if (!byId.has(toolCallId))
      throw new ConfigError(`Call ${JSON.stringify(toolCallId)} does not wait for an answer in this run`);
    if (given.has(toolCallId)) throw new ConfigError(`Call ${toolCallId} is answered twice`);
    given.set(toolCallId, answer);
  }
  const record = new Map<string, AskedQuestion[]>();
  for (const w of waiting) {
    const answer = given.get(w.toolCallId);
    const open = w.questions.at(-1);
    if (answer === undefined || open === undefined)
      throw new ConfigError(
        `Answer every waiting question: call ${w.toolCallId} (${w.toolName}) waits for one (resume with answers: [{ toolCallId, answer }])`,
      );
    checkAnswer(open.question, answer);
    record.set(w.toolCallId, [...w.questions.slice(0, -1), { question: open.question, answer }]);
  }
  return record;
}

const MAX_TEXT = 10_000;

/**
 * Checks `answer` against the form `question` asked for (MCP's flat schema: string with `format`,
 * `enum` or `oneOf` choices and lengths; number and integer with bounds; boolean; an array of enum
 * strings): every field known, of its type and within its bounds, every required one present (or
 * with a default the asker fills). Throws a ConfigError naming the first field that does not fit.
 */
export function checkAnswer(question: PersonQuestion, answer: PersonAnswer): void {
  if (typeof answer !== "object" || answer === null)
    throw new ConfigError("An answer is { action: 'accept', content } or { action: 'decline' | 'cancel' }");
  if (answer.action === "decline" || answer.action === "cancel") return;
  if (answer.action !== "accept")
    throw new ConfigError(
      `An answer's action is accept, decline or cancel, not ${JSON.stringify((answer as { action?: unknown }).action)}`,
    );
  const content = answer.content;
  if (typeof content !== "object" || content === null || Array.isArray(content))
    throw new ConfigError("An accepted answer needs content: an object of the fields asked for");
  const properties = (question.schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(question.schema.required) ? (question.schema.required as string[]) : [];
  for (const [name, value] of Object.entries(content)) {
    const field = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (!field)
      throw new ConfigError(`The answer has a field the question did not ask for: ${JSON.stringify(name)}`);
    const wrong = fieldProblem(field, value);
    if (wrong) throw new ConfigError(`The answer's field ${JSON.stringify(name)} ${wrong}`);
  }
  for (const name of required) {
    if (!Object.hasOwn(content, name) && properties[name]?.default === undefined)
      throw new ConfigError(`The answer leaves out the required field ${JSON.stringify(name)}`);
  }
}

/** What is wrong with `value` for `field`, or undefined when it fits. */
function fieldProblem(field: Record<string, unknown>, value: unknown): string | undefined {
  const choices = choicesOf(field);
  switch (field.type) {
    case "string": {
      if (typeof value !== "string") return "must be text";
      if (choices && !choices.includes(value))
        return `must be one of ${choices.map((c) => JSON.stringify(c)).join(", ")}`;
      const min = numberOr(field.minLength, 0);
      const max = numberOr(field.maxLength, MAX_TEXT);
      if (value.length < min) return `must be at least ${min} characters`;
      if (value.length > max) return `must be at most ${max} characters`;
      return formatProblem(field.format, value);
    }
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) return "must be a number";
      if (field.type === "integer" && !Number.isInteger(value)) return "must be a whole number";
      if (typeof field.minimum === "number" && value < field.minimum)
        return `must be at least ${field.minimum}`;
      if (typeof field.maximum === "number" && value > field.maximum)
        return `must be at most ${field.maximum}`;
      return undefined;
    }
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be true or false";
    case "array": {
      const items = choicesOf((field.items ?? {}) as Record<string, unknown>);
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
        return "must be a list of choices";
      if (items && !value.every((v) => items.includes(v)))
        return `must hold only ${items.map((c) => JSON.stringify(c)).join(", ")}`;
      if (typeof field.minItems === "number" && value.length < field.minItems)
        return `must hold at least ${field.minItems}`;
      if (typeof field.maxItems === "number" && value.length > field.maxItems)
        return `must hold at most ${field.maxItems}`;
      return undefined;
    }
    default:
      return `has a type the form does not allow (${JSON.stringify(field.type)})`;
  }
}

/** The allowed values of a string field or of an array's items: `enum`, or `oneOf`/`anyOf` consts. */
function choicesOf(field: Record<string, unknown>): string[] | undefined {
  if (Array.isArray(field.enum)) return field.enum.filter((v): v is string => typeof v === "string");
  const list = Array.isArray(field.oneOf)
    ? field.oneOf
    : Array.isArray(field.anyOf)
      ? field.anyOf
      : undefined;
  if (!list) return undefined;
  return list
    .map((o) => (o as { const?: unknown } | null)?.const)
    .filter((v): v is string => typeof v === "string");
}

function formatProblem(format: unknown, value: string): string | undefined {
  switch (format) {
    case "email":
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) ? undefined : "must be an email address";
    case "uri":
      return URL.canParse(value) ? undefined : "must be a URI";
    case "date":
      return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value))
        ? undefined
        : "must be a date (YYYY-MM-DD)";
    case "date-time":
      return /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value))
        ? undefined
        : "must be a date and time (ISO 8601)";
    default:
      return undefined;
  }
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

/** JSON with object keys sorted, so two schemas that differ only in key order compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
