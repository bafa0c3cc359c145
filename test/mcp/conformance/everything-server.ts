import { Agent } from "glassloop";
import { createAgentServer, type McpServedTool, type McpServerContent } from "glassloop/mcp";
import { FunctionModel } from "glassloop/testing";

/**
 * The fixed tools, resources and prompts the conformance suite's server scenarios call (each
 * scenario names them: `test_image_content`, `test://static-text`, `test_simple_prompt`, ...),
 * written with glassloop's server API and offered beside an agent, as any glassloop MCP server
 * would offer its own. An agent cannot know these names; this shows the server side can do what
 * each scenario asks.
 */

/** A 1x1 red PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/** A WAV file holding one silent 8-bit sample at 8 kHz. */
function silentWav(): string {
  const wav = Buffer.alloc(45);
  wav.write("RIFF", 0);
  wav.writeUInt32LE(37, 4);
  wav.write("WAVEfmt ", 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(8000, 28);
  wav.writeUInt16LE(1, 32);
  wav.writeUInt16LE(8, 34);
  wav.write("data", 36);
  wav.writeUInt32LE(1, 40);
  wav.writeUInt8(128, 44);
  return wav.toString("base64");
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const noArguments = { type: "object", properties: {} } as const;

const tools: McpServedTool[] = [
  {
    name: "test_simple_text",
    description: "Returns simple text.",
    run: () => "This is a simple text response for testing.",
  },
  {
    name: "test_image_content",
    description: "Returns an image.",
    inputSchema: noArguments,
    run: () => ({ content: [{ type: "image", data: PNG, mimeType: "image/png" }] }),
  },
  {
    name: "test_audio_content",
    description: "Returns audio.",
    inputSchema: noArguments,
    run: () => ({ content: [{ type: "audio", data: silentWav(), mimeType: "audio/wav" }] }),
  },
  {
    name: "test_embedded_resource",
    description: "Returns an embedded resource.",
    inputSchema: noArguments,
    run: () => ({
      content: [
        {
          type: "resource",
          resource: {
            uri: "test://embedded-resource",
            mimeType: "text/plain",
            text: "This is an embedded resource content.",
          },
        },
      ],
    }),
  },
  {
    name: "test_multiple_content_types",
    description: "Returns text, an image and a resource.",
    inputSchema: noArguments,
    run: () => ({
      content: [
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: PNG, mimeType: "image/png" },
        {
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: JSON.stringify({ test: "data", value: 123 }),
          },
        },
      ],
    }),
  },
  {
    name: "test_tool_with_logging",
    description: "Logs three messages while it runs.",
    inputSchema: noArguments,
    async run(_args, call) {
      await call.log("info", "Tool execution started");
      await pause(50);
      await call.log("info", "Tool processing data");
      await pause(50);
      await call.log("info", "Tool execution completed");
      return "Tool with logging executed successfully";
    },
  },
  {
    name: "test_error_handling",
    description: "Always fails.",
    inputSchema: noArguments,
    run: () => {
      throw new Error("This tool intentionally returns an error for testing");
    },
  },
  {
    name: "test_tool_with_progress",
    description: "Reports progress 0, 50, 100 of 100.",
    inputSchema: noArguments,
    async run(_args, call) {
      await call.progress(0, 100);
      await pause(50);
      await call.progress(50, 100);
      await pause(50);
      await call.progress(100, 100);
      return "Tool with progress executed successfully";
    },
  },
  {
    name: "test_sampling",
    description: "Asks the client's model.",
    inputSchema: { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] },
    async run({ prompt }, call) {
      const answer = await call.sample({
        messages: [{ role: "user", content: { type: "text", text: String(prompt) } }],
        maxTokens: 100,
      });
      const text = answer.content.type === "text" ? answer.content.text : `(${answer.content.type})`;
      return `LLM response: ${text}`;
    },
  },
  {
    name: "test_elicitation",
    description: "Asks the person for a name and an email address.",
    inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
    async run({ message }, call) {
      const answer = await call.elicit(String(message), {
        type: "object",
        properties: {
          username: { type: "string", description: "User's response" },
          email: { type: "string", description: "User's email address" },
        },
        required: ["username", "email"],
      });
      return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
    },
  },
  {
    name: "test_elicitation_sep1034_defaults",
    description: "Asks with a default for each primitive type.",
    inputSchema: noArguments,
    async run(_args, call) {
      const answer = await call.elicit("Please review your information", {
        type: "object",
        properties: {
          name: { type: "string", default: "John Doe" },
          age: { type: "integer", default: 30 },
          score: { type: "number", default: 95.5 },
          status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
          verified: { type: "boolean", default: true },
        },
      });
      return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
    },
  },
  {
    name: "test_elicitation_sep1330_enums",
    description: "Asks with each kind of enum.",
    inputSchema: noArguments,
    async run(_args, call) {
      const answer = await call.elicit("Please choose", {
        type: "object",
        properties: {
          untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
          titledSingle: {
            type: "string",
            oneOf: [
              { const: "value1", title: "First Option" },
              { const: "value2", title: "Second Option" },
            ],
          },
          legacyEnum: {
            type: "string",
            enum: ["opt1", "opt2", "opt3"],
            enumNames: ["Option One", "Option Two", "Option Three"],
          },
          untitledMulti: {
            type: "array",
            items: { type: "string", enum: ["option1", "option2", "option3"] },
          },
          titledMulti: {
            type: "array",
            items: {
              anyOf: [
                { const: "value1", title: "First Choice" },
                { const: "value2", title: "Second Choice" },
              ],
            },
          },
        },
      });
      return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
    },
  },
  {
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: {
        address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } },
      },
      properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
      additionalProperties: false,
    },
    run: ({ name }) => `Hello, ${String(name)}`,
  },
  {
    name: "test_reconnection",
    description: "Closes its stream mid-call; the answer arrives after the client reconnects.",
    inputSchema: noArguments,
    async run(_args, call) {
      await pause(50);
      call.closeStream();
      await pause(200);
      return "Reconnection test completed";
    },
  },
];

/** Everything the server scenarios call, written with glassloop's server API. */
export const conformanceContent: McpServerContent = {
  tools,
  resources: [
    {
      uri: "test://static-text",
      name: "static-text",
      description: "A static text resource.",
      mimeType: "text/plain",
      read: () => "This is the content of the static text resource.",
    },
    {
      uri: "test://static-binary",
      name: "static-binary",
      description: "A static binary resource (a PNG).",
      mimeType: "image/png",
      read: () => Buffer.from(PNG, "base64"),
    },
    {
      uri: "test://watched-resource",
      name: "watched-resource",
      description: "A resource clients can subscribe to.",
      mimeType: "text/plain",
      read: () => "watched",
      watch: () => () => {},
    },
  ],
  resourceTemplates: [
    {
      uriTemplate: "test://template/{id}/data",
      name: "template",
      description: "Data for an id.",
      mimeType: "application/json",
      read: (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
      complete: { id: (value) => ["123", "456"].filter((id) => id.startsWith(value)) },
    },
  ],
  prompts: [
    {
      name: "test_simple_prompt",
      description: "A simple prompt.",
      get: () => "This is a simple prompt for testing.",
    },
    {
      name: "test_prompt_with_arguments",
      description: "A prompt with two arguments.",
      arguments: [
        {
          name: "arg1",
          description: "First test argument",
          required: true,
          complete: (value) => ["test", "testValue1"].filter((v) => v.startsWith(value)),
        },
        { name: "arg2", description: "Second test argument", required: true },
      ],
      get: ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
    },
    {
      name: "test_prompt_with_embedded_resource",
      description: "A prompt that embeds a resource.",
      arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
      get: ({ resourceUri }) => [
        {
          role: "user",
          content: {
            type: "resource",
            resource: {
              uri: resourceUri ?? "",
              mimeType: "text/plain",
              text: "Embedded resource content for testing.",
            },
          },
        },
        { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
      ],
    },
    {
      name: "test_prompt_with_image",
      description: "A prompt with an image.",
      get: () => [
        { role: "user", content: { type: "image", data: PNG, mimeType: "image/png" } },
        { role: "user", content: { type: "text", text: "Please analyze the image above." } },
      ],
    },
  ],
};

/** An echo agent served with the conformance content and its instructions as a prompt. */
export function conformanceServer() {
  const agent = new Agent({
    name: "echo",
    instructions: "Answer in one sentence.",
    model: new FunctionModel(() => ({ text: "the agent's answer" })),
  });
  return createAgentServer(agent, { ...conformanceContent, instructionsPrompt: true });
}
