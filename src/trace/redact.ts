/**
 * The trace's redaction is the library's one rule (src/core/redact.ts): a trace, a span,
 * the viewer, an error message and the CLI's output all scrub alike.
 */
export { REDACTED, type RedactionOptions, Redactor } from "../core/redact.js";
