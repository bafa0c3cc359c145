import { useState } from "preact/hooks";

/** A tool's question for the person (an MCP server's elicitation), as the stream's data part holds it. */
export interface Question {
  questionId: string;
  toolCallId: string;
  toolName: string;
  source: string;
  message: string;
  schema: { properties?: Record<string, Field>; required?: string[] };
}

/** One field of the flat form MCP allows: text (with a format or choices), a number, a yes/no, several choices. */
interface Field {
  type?: string;
  title?: string;
  description?: string;
  format?: string;
  enum?: unknown[];
  oneOf?: { const?: unknown; title?: string }[];
  anyOf?: { const?: unknown; title?: string }[];
  items?: Field;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
}

/** What the person answers: the fields, no, or not now. */
export type QuestionAnswer =
  | { action: "accept"; content: Record<string, string | number | boolean | string[]> }
  | { action: "decline" }
  | { action: "cancel" };

const INPUT_TYPES: Record<string, "email" | "url" | "date" | "datetime-local"> = {
  email: "email",
  uri: "url",
  date: "date",
  "date-time": "datetime-local",
};
const MAX_FIELDS = 30;

/** The choices of a field or of an array's items: `enum`, or `oneOf`/`anyOf` with `const` and a title. */
function choices(field: Field): { value: string; label: string }[] | undefined {
  if (Array.isArray(field.enum)) return field.enum.map((v) => ({ value: String(v), label: String(v) }));
  const list = field.oneOf ?? field.anyOf;
  return list?.map((o) => ({ value: String(o.const), label: String(o.title ?? o.const) }));
}

/**
 * A server's question as a small form built from its schema, with Accept, Decline and Cancel. The
 * asker's message, titles and descriptions are rendered as text nodes, never as markup. The server
 * checks the answer against the schema again; what it refuses comes back as the chat's error.
 */
export function QuestionForm({
  question,
  disabled,
  onAnswer,
}: {
  question: Question;
  disabled: boolean;
  onAnswer: (answer: QuestionAnswer) => void;
}) {
  const fields = Object.entries(question.schema.properties ?? {}).slice(0, MAX_FIELDS);
  const required = new Set(question.schema.required ?? []);
  const [values, setValues] = useState<Record<string, string | boolean | string[]>>(() =>
    Object.fromEntries(
      fields.map(([name, field]) => [
        name,
        field.type === "boolean"
          ? field.default === true
          : field.type === "array"
            ? Array.isArray(field.default)
              ? field.default.map(String)
              : []
            : field.default === undefined
              ? ""
              : String(field.default),
      ]),
    ),
  );
  const set = (name: string, value: string | boolean | string[]) => setValues({ ...values, [name]: value });

  const submit = (event: Event) => {
    event.preventDefault();
    const content: Record<string, string | number | boolean | string[]> = {};
    for (const [name, field] of fields) {
      const value = values[name];
      if (field.type === "boolean") content[name] = value === true;
      else if (field.type === "array") content[name] = value as string[];
      else if (value === "" || value === undefined) continue;
      else if (field.type === "number" || field.type === "integer") content[name] = Number(value);
      else content[name] = String(value);
    }
    onAnswer({ action: "accept", content });
  };

  return (
    <form class="question" data-testid="question" data-question-id={question.questionId} onSubmit={submit}>
      <p class="question-asker muted">
        {question.source} asks (during {question.toolName}):
      </p>
      <p class="question-message text-body" data-testid="question-message">
        {question.message}
      </p>
      {fields.map(([name, field]) => {
        const id = `${question.questionId}-${name}`;
        const label = `${field.title ?? name}${required.has(name) ? " *" : ""}`;
        const hint = field.description ? <small class="muted">{field.description}</small> : null;
        const options = choices(field);
        if (field.type === "boolean")
          return (
            <label key={name} class="question-field check">
              <input
                type="checkbox"
                name={name}
                checked={values[name] === true}
                onChange={(e) => set(name, (e.target as HTMLInputElement).checked)}
              />{" "}
              {label} {hint}
            </label>
          );
        if (field.type === "array") {
          const picked = (values[name] as string[]) ?? [];
          return (
            <fieldset key={name} class="question-field">
              <legend>{label}</legend>
              {(choices(field.items ?? {}) ?? []).map((o) => (
                <label key={o.value} class="check">
                  <input
                    type="checkbox"
                    name={name}
                    value={o.value}
                    checked={picked.includes(o.value)}
                    onChange={(e) =>
                      set(
                        name,
                        (e.target as HTMLInputElement).checked
                          ? [...picked, o.value]
                          : picked.filter((v) => v !== o.value),
                      )
                    }
                  />{" "}
                  {o.label}
                </label>
              ))}
              {hint}
            </fieldset>
          );
        }
        return (
          <label key={name} class="question-field" for={id}>
            <span>{label}</span>
            {options ? (
              <select
                id={id}
                name={name}
                required={required.has(name)}
                value={values[name] as string}
                onChange={(e) => set(name, (e.target as HTMLSelectElement).value)}
              >
                <option value="">—</option>
                {options.map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                name={name}
                // Preact types each input type's attributes apart; one element serves them all here.
                type={
                  (field.type === "number" || field.type === "integer"
                    ? "number"
                    : (INPUT_TYPES[field.format ?? ""] ?? "text")) as "text"
                }
                step={field.type === "integer" ? 1 : field.type === "number" ? "any" : undefined}
                min={field.minimum}
                max={field.maximum}
                minLength={field.minLength}
                maxLength={field.maxLength}
                required={required.has(name)}
                value={values[name] as string}
                onInput={(e) => set(name, (e.target as HTMLInputElement).value)}
              />
            )}
            {hint}
          </label>
        );
      })}
      <div class="question-actions">
        <button type="submit" class="approve" data-testid="question-accept" disabled={disabled}>
          Accept
        </button>
        <button
          type="button"
          class="reject"
          data-testid="question-decline"
          disabled={disabled}
          onClick={() => onAnswer({ action: "decline" })}
        >
          Decline
        </button>
        <button
          type="button"
          data-testid="question-cancel"
          disabled={disabled}
          onClick={() => onAnswer({ action: "cancel" })}
        >
          Cancel
        </button>
      </div>
    </form>
  );
}
