// The floor bench's task, shared by every contender and the mock server: a calculator that takes
// three model calls and two tool calls ("Add 200 and 10, then multiply the result by 2." → 420).
// Dependency-free on purpose: the hand-written loops must not load zod or glassloop.

/** The model name every contender asks for. */
export const MODEL = "gpt-4o-mini";
/** The key every contender sends. */
export const API_KEY = "sk-mock";
/** The system prompt. */
export const SYSTEM =
  "You are a calculator. Use the tools for every arithmetic step, then reply with only the final number.";
/** The user's prompt. */
export const PROMPT = "Add 200 and 10, then multiply the result by 2.";
/** The answer a task must end with: it proves the tools really ran. */
export const EXPECTED = "420";

/** The two tools. */
export const tools = {
  add: { description: "Add two numbers and return the sum.", run: ({ a, b }) => a + b },
  multiply: { description: "Multiply two numbers and return the product.", run: ({ a, b }) => a * b },
};

/** JSON Schema of `{ a: number, b: number }`, what the zod schema converts to. */
export const jsonParams = {
  type: "object",
  properties: {
    a: { type: "number", description: "First operand" },
    b: { type: "number", description: "Second operand" },
  },
  required: ["a", "b"],
  additionalProperties: false,
};

/** The Chat Completions `tools` array of the hand-written loops. */
export const openaiTools = Object.entries(tools).map(([name, t]) => ({
  type: "function",
  function: { name, description: t.description, parameters: jsonParams },
}));

/** Folds one streamed Chat Completions delta into `{ content, toolCalls }`. */
export function foldDelta(acc, delta) {
  if (delta?.content) acc.content += delta.content;
  for (const tc of delta?.tool_calls ?? []) {
    acc.toolCalls[tc.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } };
    const c = acc.toolCalls[tc.index];
    if (tc.id) c.id = tc.id;
    if (tc.function?.name) c.function.name += tc.function.name;
    if (tc.function?.arguments) c.function.arguments += tc.function.arguments;
  }
  return acc;
}
