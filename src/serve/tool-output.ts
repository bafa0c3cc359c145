/**
 * A tool's content (and a call's arguments) as a client gets it: the parsed JSON value when the
 * text is JSON, else the text itself. Text stays text: a client renders it, never runs it.
 */
export function parseOutput(text: string): unknown {
  const trimmed = text.trimStart();
  if (trimmed === "" || !'{["-0123456789tfn'.includes(trimmed[0] as string)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
