/**
 * A value DBOS records as one JSON string (a model step's output, the run's result), not walked
 * by its serializer. DBOS serializes what a step or workflow returns with superjson, value by
 * value in JavaScript; for a request body or a transcript that holds the whole history that cost
 * more than the step itself. The string is made (and scrubbed) by the caller.
 */
const JSON_OUTPUT = "glassloop.json";

/** What DBOS records for a value encoded as JSON text. */
export interface JsonOutput {
  [JSON_OUTPUT]: string;
}

/** `json` (JSON text) wrapped for DBOS to record as one string. */
export function jsonOutput(json: string): JsonOutput {
  return { [JSON_OUTPUT]: json };
}

/**
 * The value DBOS recorded: parsed from its JSON text, or as it is when it was recorded before
 * outputs were encoded (an older release's step or run).
 */
export function fromJsonOutput<T>(recorded: unknown): T {
  const json = (recorded as Partial<JsonOutput> | null | undefined)?.[JSON_OUTPUT];
  return (typeof json === "string" ? JSON.parse(json) : recorded) as T;
}
