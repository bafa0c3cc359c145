/**
 * `glassloop/guardrails`: what a guardrail is made of (its verdicts, what it judges, the tools it
 * gets), `toolGuardrail` for a check typed by one tool's arguments, and the guardrails shipped
 * from the threat model (docs/security.md): secret egress, a URL allow-list, sizes. An agent
 * takes them as `guardrails: { input, output, tools }` (the `Guardrails` type and the errors a
 * tripped run throws come from the root).
 */
export type {
  GuardrailAgent,
  GuardrailAllow,
  GuardrailInput,
  GuardrailOutput,
  GuardrailReject,
  GuardrailStage,
  GuardrailToolCall,
  GuardrailToolResult,
  GuardrailTools,
  GuardrailTripwire,
  GuardrailVerdict,
  InputGuardrail,
  InputVerdict,
  OutputGuardrail,
  ToolAfterCheck,
  ToolBeforeCheck,
  ToolGuardrail,
  ToolGuardrailBase,
} from "../features/guardrails/guardrail.js";
export { type SecretEgressOptions, secretEgressGuard } from "../features/guardrails/guards/secret-egress.js";
export {
  type SizeGuard,
  type SizeGuardOptions,
  sizeGuard,
} from "../features/guardrails/guards/size-guard.js";
export {
  inputGuardrail,
  outputGuardrail,
  toolGuardrail,
} from "../features/guardrails/guards/tool-guardrail.js";
export {
  type UrlAllowList,
  type UrlAllowListOptions,
  urlAllowList,
} from "../features/guardrails/guards/url-allow-list.js";
