import type { HttpProvider } from "../../models/http-provider.js";
import { type ResponsesBodyOptions, toResponsesBody } from "./request.js";
import { fromResponsesBody } from "./response.js";
import { ResponsesStreamAssembler } from "./stream.js";

/** The Responses protocol: the translation the kit (models/http-provider.ts) calls. */
export const RESPONSES: HttpProvider<ResponsesBodyOptions> = {
  toBody: (request, settings) => toResponsesBody(request, settings),
  fromBody: (body, _settings, provider) => fromResponsesBody(body, provider),
  stream: (_settings, { provider, deliver }) => {
    const assembler = new ResponsesStreamAssembler(provider, deliver);
    return { push: (event) => assembler.push(event.data, event.event), finish: () => assembler.finish() };
  },
};
