/**
 * Makes the control characters of untrusted text visible before it reaches a terminal. Model
 * output, tool arguments and results can carry a carriage return (which redraws the line, so an
 * approval prompt could show one command while another runs), ANSI/OSC escape sequences (which
 * recolor, retitle, hide text or write to the clipboard), C1 controls and bidirectional overrides
 * (which reorder what is shown). Each becomes a JSON-style escape (`\r`, `\u001b`, `\u202e`), so
 * JSON text stays valid JSON and what the user reads is what the bytes are.
 */

// Cc is C0, DEL and C1; then bidi marks, embeddings, overrides and isolates, line and paragraph separators.
const CONTROL = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/gu;
const CONTROL_BUT_LAYOUT = /(?![\n\t])[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/gu;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escaped(char: string): string {
  return NAMED[char] ?? `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`;
}

/**
 * `text` with every control character escaped. `layout: "text"` keeps newline and tab (an answer
 * or a multi-line message reads as the model wrote it) and prints a CRLF line end as a newline.
 */
export function visible(text: string, layout: "line" | "text" = "line"): string {
  if (layout === "line") return text.replace(CONTROL, escaped);
  return text.replace(/\r\n/g, "\n").replace(CONTROL_BUT_LAYOUT, escaped);
}
