/**
 * OpenTelemetry for glassloop (`import { otelListener } from "glassloop/otel"`): GenAI spans for
 * runs, steps, model calls and tool calls. A separate entry so the core never loads
 * `@opentelemetry/api`, an optional peer dependency.
 */
export { type OtelOptions, otelListener, type WorkerTaggedEvent } from "./trace/otel.js";
