import type { ToolChoice } from "../../models/model.js";
import {
  arrayOf,
  asRecord,
  assistant,
  type CanonicalMessage,
  type CanonicalRequest,
  IdMap,
  pushUser,
  settings,
  textOf,
} from "../replay/canonical-request.js";

/**
 * What a `generateContent` body asks, read back for replays and request diffs (glassloop's bodies
 * and other clients'): thought parts are left out; a function response is paired with its call by
 * id, else with the earliest unanswered call of that name; its text is `output`, `error`, or another
 * client's single field (`return_value`), else the response as JSON.
 */
export function readGeminiBody(body: Record<string, unknown>): CanonicalRequest {
  const ids = new IdMap();
  const messages: CanonicalMessage[] = [];
  // Calls waiting for their response, by name: [canonical id, the call's own id].
  const open: { name: string; id: string }[] = [];
  for (const raw of arrayOf(body.contents)) {
    const content = asRecord(raw);
    const parts = arrayOf(content.parts).map(asRecord);
    if (content.role === "model") {
      let text = "";
      const calls: [string, string, unknown][] = [];
      for (const part of parts) {
        if (part.thought === true) continue;
        if (typeof part.text === "string") text += part.text;
        const call = part.functionCall === undefined ? undefined : asRecord(part.functionCall);
        if (!call) continue;
        const name = String(call.name);
        const id = ids.of(
          typeof call.id === "string" ? call.id : `${name}#${calls.length}@${messages.length}`,
        );
        open.push({ name, id });
        calls.push([id, name, call.args ?? {}]);
      }
      messages.push(assistant(text, calls));
      continue;
    }
    for (const part of parts) {
      const response = part.functionResponse === undefined ? undefined : asRecord(part.functionResponse);
      if (response) {
        const name = String(response.name);
        const byId = typeof response.id === "string" ? ids.of(response.id) : undefined;
        const index = open.findIndex((c) => (byId === undefined ? c.name === name : c.id === byId));
        const [call] = index >= 0 ? open.splice(index, 1) : [];
        const toolCallId = call?.id ?? byId ?? ids.of(`${name}@${messages.length}`);
        messages.push({ role: "tool", toolCallId, content: geminiResultText(asRecord(response.response)) });
      } else if (typeof part.text === "string") pushUser(messages, [part.text]);
    }
  }
  const declarations = arrayOf(body.tools).flatMap((t) => arrayOf(asRecord(t).functionDeclarations));
  const tools = declarations.map((d) => {
    const r = asRecord(d);
    return {
      name: String(r.name),
      description: String(r.description ?? ""),
      parameters: r.parameters ?? r.parametersJsonSchema,
    };
  });
  const calling = asRecord(asRecord(body.toolConfig).functionCallingConfig);
  const allowed = arrayOf(calling.allowedFunctionNames);
  const toolChoice: ToolChoice | undefined =
    calling.mode === "AUTO"
      ? "auto"
      : calling.mode === "NONE"
        ? "none"
        : calling.mode === "ANY"
          ? allowed.length === 1
            ? { name: String(allowed[0]) }
            : "required"
          : undefined;
  const system = textOf(asRecord(body.systemInstruction).parts);
  const generation = asRecord(body.generationConfig);
  return settings(
    { ...(system !== "" && { instructions: system }), messages, tools },
    toolChoice,
    generation.maxOutputTokens,
    generation.temperature,
  );
}

/** A function response's text: glassloop's `output` or `error`, another client's lone field, else JSON. */
function geminiResultText(response: Record<string, unknown>): string {
  const keys = Object.keys(response);
  const only = keys.length === 1 ? response[keys[0] as string] : undefined;
  const value = response.output ?? response.error ?? only;
  if (typeof value === "string") return value;
  return JSON.stringify(value === undefined ? response : value);
}
