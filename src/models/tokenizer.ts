/**
 * OpenAI's published BPE tokenizers (o200k_base, cl100k_base through gpt-tokenizer), loaded on
 * first use: the tables are megabytes, and importing glassloop must stay fast. Other vendors
 * publish no tokenizer; their tokens are counted by their count endpoints or estimated.
 */

/** Which counting method is used for a model: an OpenAI BPE encoding, or the estimate. */
export type TokenEncoding = "o200k_base" | "cl100k_base" | "estimate";

/** Counts the tokens of one piece of text. */
export type Encoder = (text: string) => number;

const encoders = new Map<"o200k_base" | "cl100k_base", Promise<Encoder>>();

/**
 * The BPE encoding for an OpenAI-family model id (`openai:gpt-4o-mini`, `gpt-4.1`, `o3-mini`), or
 * `estimate` for everything else: other vendors do not publish their tokenizers.
 */
export function encodingFor(modelId: string): TokenEncoding {
  const name = (modelId.includes(":") ? modelId.slice(modelId.lastIndexOf(":") + 1) : modelId).toLowerCase();
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|chatgpt-|o[1-9]|codex)/.test(name)) return "o200k_base";
  if (/^(gpt-4|gpt-3\.5|text-embedding-)/.test(name)) return "cl100k_base";
  return "estimate";
}

/** The encoder of a BPE encoding, loaded once per process. */
export function loadEncoder(encoding: "o200k_base" | "cl100k_base"): Promise<Encoder> {
  let loading = encoders.get(encoding);
  if (!loading) {
    loading =
      encoding === "o200k_base"
        ? import("gpt-tokenizer/encoding/o200k_base").then((m) => (t: string) => m.countTokens(t))
        : import("gpt-tokenizer/encoding/cl100k_base").then((m) => (t: string) => m.countTokens(t));
    encoders.set(encoding, loading);
  }
  return loading;
}
