/**
 * The checks of a run that sends no new user message (`agent.run(null, …)`): it needs a
 * conversation to continue, takes no attachments, and the conversation must end where the model
 * speaks next. Apart from run-start.ts because a run with an input never reaches them.
 */
import { ConfigError } from "../core/errors.js";
import type { FilePart, ImagePart, Message } from "../core/vocabulary/messages.js";

/** Checks the options of a run with no new user message: a transcript to continue, nothing to attach. */
export function checkContinue(options: {
  history?: readonly Message[] | undefined;
  session?: string | undefined;
  images?: readonly ImagePart[] | undefined;
  files?: readonly FilePart[] | undefined;
}): void {
  if (options.history === undefined && options.session === undefined)
    throw new ConfigError(
      "A run with no new message (input null) continues a conversation: pass `history` or `session`",
    );
  if ((options.images?.length ?? 0) > 0 || (options.files?.length ?? 0) > 0)
    throw new ConfigError("Images and files go with a new user message; a run with input null sends none");
}

/**
 * Refuses a transcript the model cannot be asked to continue: an empty one, or one that ends
 * with the assistant's own answer (there is nothing to reply to; give the next message instead).
 * Calls still open at the end are fine: the loop closes them before the first model call.
 */
export function checkContinuable(body: readonly Message[]): void {
  const last = body.at(-1);
  if (last === undefined)
    throw new ConfigError("There is nothing to continue: the conversation has no messages (input null)");
  if (last.role === "assistant" && (last.toolCalls?.length ?? 0) === 0)
    throw new ConfigError(
      "There is nothing to continue: the conversation ends with the assistant's answer; give the next user message as the input",
    );
}
