/**
 * A tiny, hand-wired llama-architecture GGUF for testing the embedded local model for real.
 *
 * Vocabulary: 256 byte tokens (GPT-2 byte-level BPE, no merges) + 9 special tokens = 265.
 * Weights (F32, one block) are set by hand so that greedy decoding is deterministic:
 *  - the token embedding is one-hot, the FFN is zero, so the residual stream carries the
 *    current token unchanged and `output.weight` acts as a bigram table: each token ranks
 *    the tokens that may follow it. Where a grammar forbids the favourite, the next-ranked
 *    allowed token wins, which is how one table serves both free text and JSON under a grammar;
 *  - one attention head raises a "flag" dimension when a `<tool_response>` token occurs
 *    anywhere before the current position (its query/key live in the slowest RoPE pair, so
 *    position hardly matters). The flag shifts the first answer token: without a tool result
 *    the model opens a `<tool_call>`; with one it writes the final answer.
 *
 * Scripted behaviour, when the chat offers one tool whose single argument is a string:
 *   turn 1: `<tool_call>` → (grammar) name → `{"expression": "6*7"}` → `<|im_end|>`
 *   turn 2 (a tool result in the context): `Result: 42<|im_end|>`
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { encodeGguf, type GgufTensor, type GgufValue } from "./gguf-writer.js";

/** What the tiny model does, for assertions. */
export const TINY_MODEL = {
  /** The string argument it writes into any single-string-argument tool call. */
  argument: "6*7",
  /** Its final answer once a tool result is in the context. */
  answer: "Result: 42",
} as const;

/** The special tokens, in id order after the 256 byte tokens. */
export const TINY_SPECIAL_TOKENS = [
  "<|endoftext|>",
  "<|im_start|>",
  "<|im_end|>",
  "<tool_call>",
  "</tool_call>",
  "<tool_response>",
  "</tool_response>",
  "<think>",
  "</think>",
] as const;

const N_BYTES = 256;
const N_VOCAB = N_BYTES + TINY_SPECIAL_TOKENS.length; // 265
const N_EMBD = 272;
const N_FF = 16;
const FLAG_DIM = N_VOCAB; // 265: raised by attention after a <tool_response>
const QK_DIM = N_EMBD - 2; // last RoPE pair: rotates by ~1e-6 rad per position at freq_base 1e6

const TOKEN_TYPE_NORMAL = 1;
const TOKEN_TYPE_CONTROL = 3;
const TOKEN_TYPE_USER_DEFINED = 4;

function special(name: (typeof TINY_SPECIAL_TOKENS)[number]): number {
  return N_BYTES + TINY_SPECIAL_TOKENS.indexOf(name);
}

function byte(ch: string): number {
  return ch.charCodeAt(0);
}

/** GPT-2's byte → printable-unicode mapping, which byte-level BPE vocabularies are written in. */
function byteLevelVocabulary(): string[] {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const tokens: string[] = [];
  let shifted = 0;
  for (let b = 0; b < N_BYTES; b++) {
    tokens.push(String.fromCodePoint(printable(b) ? b : N_BYTES + shifted++));
  }
  return tokens;
}

/** A ChatML template with Qwen-style tool calls (written for this test; any such template works). */
const CHAT_TEMPLATE = `{%- if tools %}<|im_start|>system
{% if messages[0].role == 'system' %}{{ messages[0].content }}

{% endif %}# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>{% for tool in tools %}
{{ tool | tojson }}{% endfor %}
</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call><|im_end|>
{% elif messages[0].role == 'system' %}<|im_start|>system
{{ messages[0].content }}<|im_end|>
{% endif %}
{%- for message in messages %}
{%- if message.role == 'user' or (message.role == 'system' and not loop.first) or (message.role == 'assistant' and not message.tool_calls) %}<|im_start|>{{ message.role }}
{{ message.content }}<|im_end|>
{% elif message.role == 'assistant' %}<|im_start|>assistant
{% if message.content %}{{ message.content }}
{% endif %}{% for tool_call in message.tool_calls %}{% if tool_call.function is defined %}{% set tool_call = tool_call.function %}{% endif %}<tool_call>
{"name": "{{ tool_call.name }}", "arguments": {{ tool_call.arguments | tojson }}}
</tool_call>{% if not loop.last %}
{% endif %}{% endfor %}<|im_end|>
{% elif message.role == 'tool' %}{% if loop.first or messages[loop.index0 - 1].role != 'tool' %}<|im_start|>user{% endif %}
<tool_response>
{{ message.content }}
</tool_response>{% if loop.last or messages[loop.index0 + 1].role != 'tool' %}<|im_end|>
{% endif %}{% endif %}
{%- endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}`;

/** Logit margins: chain links beat the grammar fallbacks, which beat the flag's shift. */
const LINK = 30;
const FALLBACK = 20;
const WEAK = 10;
const FLAG_BOOST = 10;
const OPEN_TOOL_CALL = 5;

/** next[from][to]: how much token `from` favours `to` as its successor. */
function bigramTable(): Map<number, Map<number, number>> {
  const table = new Map<number, Map<number, number>>();
  const link = (from: number, to: number, logit: number) => {
    const row = table.get(from) ?? new Map<number, number>();
    table.set(from, row);
    row.set(to, logit);
  };
  const chain = (text: string, end: number) => {
    for (let i = 0; i < text.length; i++) {
      link(byte(text[i]!), i + 1 < text.length ? byte(text[i + 1]!) : end, LINK);
    }
  };
  const imEnd = special("<|im_end|>");
  // The assistant header ends in "\n": open a tool call (unless the flag says a result is back).
  link(byte("\n"), special("<tool_call>"), OPEN_TOOL_CALL);
  // Under the function-name grammar after `{"name": "`: no leading space, the name itself is forced.
  link(byte('"'), byte("c"), WEAK);
  // Under the params grammar: `{` → `"` (no whitespace), `:` → ` `, then the string value.
  link(byte("{"), byte('"'), LINK);
  link(byte(":"), byte(" "), LINK);
  link(byte('"'), byte(TINY_MODEL.argument[0]!), LINK);
  chain(TINY_MODEL.argument, byte('"'));
  // The closing quote's favourite is not allowed there, so its fallback `}` closes the object.
  link(byte('"'), byte("}"), FALLBACK);
  // After the call suffix: end the turn.
  link(special("</tool_call>"), imEnd, LINK);
  // The final answer, once the flag is up: "Result: 42" then end of turn.
  chain(TINY_MODEL.answer, imEnd);
  return table;
}

function tensor(name: string, shape: readonly number[], fill?: (data: Float32Array) => void): GgufTensor {
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
  fill?.(data);
  return { name, shape, data };
}

/** Row-major matrix with `cols` inputs (GGUF ne[0]) and `rows` outputs (ne[1]). */
function matrix(
  name: string,
  cols: number,
  rows: number,
  set: (m: (row: number, col: number, v: number) => void) => void,
) {
  return tensor(name, [cols, rows], (data) => set((row, col, v) => (data[row * cols + col] = v)));
}

function tinyModelTensors(): GgufTensor[] {
  const ones = (data: Float32Array) => data.fill(1);
  // rmsnorm(one-hot) = sqrt(N_EMBD) · one-hot; these scales undo that where a unit value is wanted.
  const unit = 1 / Math.sqrt(N_EMBD);
  // q·k / sqrt(head_dim) = qk² · N_EMBD / sqrt(N_EMBD): a score of 60 on a <tool_response> key, 0 elsewhere.
  const qk = Math.sqrt(60 / Math.sqrt(N_EMBD));
  const toolResponse = special("<tool_response>");
  const table = bigramTable();
  return [
    matrix("token_embd.weight", N_EMBD, N_VOCAB, (m) => {
      for (let t = 0; t < N_VOCAB; t++) m(t, t, 1);
    }),
    matrix("blk.0.attn_q.weight", N_EMBD, N_EMBD, (m) => {
      for (let t = 0; t < N_VOCAB; t++) m(QK_DIM, t, qk);
    }),
    matrix("blk.0.attn_k.weight", N_EMBD, N_EMBD, (m) => m(QK_DIM, toolResponse, qk)),
    matrix("blk.0.attn_v.weight", N_EMBD, N_EMBD, (m) => m(FLAG_DIM, toolResponse, unit)),
    matrix("blk.0.attn_output.weight", N_EMBD, N_EMBD, (m) => m(FLAG_DIM, FLAG_DIM, 1)),
    tensor("blk.0.attn_norm.weight", [N_EMBD], ones),
    tensor("blk.0.ffn_norm.weight", [N_EMBD], ones),
    tensor("blk.0.ffn_gate.weight", [N_EMBD, N_FF]),
    tensor("blk.0.ffn_up.weight", [N_EMBD, N_FF]),
    tensor("blk.0.ffn_down.weight", [N_FF, N_EMBD]),
    tensor("output_norm.weight", [N_EMBD], ones),
    matrix("output.weight", N_EMBD, N_VOCAB, (m) => {
      for (const [from, row] of table) for (const [to, logit] of row) m(to, from, logit);
      m(byte(TINY_MODEL.answer[0]!), FLAG_DIM, FLAG_BOOST);
    }),
  ];
}

function tinyModelMetadata(): Record<string, GgufValue> {
  const tokens = [...byteLevelVocabulary(), ...TINY_SPECIAL_TOKENS];
  const types = tokens.map((_, id) => {
    if (id < N_BYTES) return TOKEN_TYPE_NORMAL;
    // As in Qwen's tokenizer: ChatML markers are control tokens, the tool tags user-defined.
    return id <= special("<|im_end|>") ? TOKEN_TYPE_CONTROL : TOKEN_TYPE_USER_DEFINED;
  });
  return {
    "general.architecture": { type: "string", value: "llama" },
    "general.name": { type: "string", value: "glassloop tiny test model" },
    "general.alignment": { type: "u32", value: 32 },
    "llama.context_length": { type: "u32", value: 4096 },
    "llama.embedding_length": { type: "u32", value: N_EMBD },
    "llama.block_count": { type: "u32", value: 1 },
    "llama.feed_forward_length": { type: "u32", value: N_FF },
    "llama.attention.head_count": { type: "u32", value: 1 },
    "llama.attention.head_count_kv": { type: "u32", value: 1 },
    "llama.rope.dimension_count": { type: "u32", value: N_EMBD },
    "llama.rope.freq_base": { type: "f32", value: 1e6 },
    "llama.attention.layer_norm_rms_epsilon": { type: "f32", value: 1e-6 },
    "llama.vocab_size": { type: "u32", value: N_VOCAB },
    "tokenizer.ggml.model": { type: "string", value: "gpt2" },
    "tokenizer.ggml.pre": { type: "string", value: "default" },
    "tokenizer.ggml.tokens": { type: "string[]", value: tokens },
    "tokenizer.ggml.token_type": { type: "i32[]", value: types },
    "tokenizer.ggml.merges": { type: "string[]", value: [] },
    "tokenizer.ggml.bos_token_id": { type: "u32", value: special("<|endoftext|>") },
    "tokenizer.ggml.eos_token_id": { type: "u32", value: special("<|im_end|>") },
    "tokenizer.ggml.eot_token_id": { type: "u32", value: special("<|im_end|>") },
    "tokenizer.ggml.padding_token_id": { type: "u32", value: special("<|endoftext|>") },
    "tokenizer.ggml.add_bos_token": { type: "bool", value: false },
    "tokenizer.ggml.add_eos_token": { type: "bool", value: false },
    "tokenizer.chat_template": { type: "string", value: CHAT_TEMPLATE },
  };
}

/** The bytes of the tiny model (about 1.9 MB). */
export function tinyGgufBytes(): Uint8Array {
  return encodeGguf(tinyModelMetadata(), tinyModelTensors());
}

/** Writes the tiny model into `dir` and returns its path. */
export async function writeTinyGguf(dir: string, fileName = "tiny-tools.gguf"): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, fileName);
  await writeFile(file, tinyGgufBytes());
  return file;
}
