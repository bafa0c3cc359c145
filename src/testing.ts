/**
 * Test doubles for glassloop agents, for users' tests as much as ours: `import … from "glassloop/testing"`.
 */

export {
  ScriptExhaustedError,
  type ScriptedFailure,
  type ScriptedReply,
  type ScriptedToolCall,
  type ScriptStep,
} from "./testing/script.js";
export {
  FunctionModel,
  type RecordedRequest,
  ScriptedModel,
  type TestModelOptions,
} from "./testing/scripted-model.js";
