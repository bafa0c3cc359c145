import type { HttpProvider } from "../../models/http-provider.js";
import { type ConverseSettings, toConverseBody } from "./request.js";
import { ConverseStreamAssembler, parseConverse } from "./response.js";

const PROVIDER = "bedrock";

/** A Bedrock call's settings: what the model adds to the request. */
export interface BedrockCallSettings {
  converse: ConverseSettings;
}

/** The Converse protocol: the translation the kit (models/http-provider.ts) calls. */
export const CONVERSE: HttpProvider<BedrockCallSettings> = {
  toBody: (request, settings) => toConverseBody(request, settings.converse, PROVIDER),
  fromBody: (body, _settings, provider) => parseConverse(body, provider),
  stream: (_settings, context) => new ConverseStreamAssembler(context),
};
