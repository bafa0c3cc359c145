/**
 * A tool call's arguments as the JSON value they hold, or the text itself when it is not JSON, so
 * a model's broken JSON stays visible as what it sent.
 */
export function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
