/**
 * A question a tool puts to the person while it runs (an MCP server's elicitation), and the
 * answer: what a run records when it pauses for one, and what a resume carries back.
 */

/** A question for the person: who asks, what, and the flat form of fields asked for. */
export interface PersonQuestion {
  /** Who asks (for MCP, the server's name in the config). */
  source: string;
  /** The asker's text: shown to the person as text, never as markup. */
  message: string;
  /**
   * A flat JSON Schema object of the fields asked for: strings (with `format`, `enum`), numbers,
   * integers, booleans, and arrays of enum strings (MCP's restricted form).
   */
  schema: Record<string, unknown>;
}

/** A value of one answered field. */
export type PersonAnswerValue = string | number | boolean | string[];

/** The person's answer: the fields, no, or not now. */
export type PersonAnswer =
  | { action: "accept"; content: Record<string, PersonAnswerValue> }
  | { action: "decline" }
  | { action: "cancel" };

/** One question a call asked, as stored with it; `answer` once the person gave one. */
export interface AskedQuestion {
  question: PersonQuestion;
  answer?: PersonAnswer;
}
