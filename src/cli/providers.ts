/**
 * The model providers the CLI can name in `provider:model` strings. Each module registers its
 * provider on import; the CLI imports only these (not the whole package) to start fast.
 */
import "../providers/presets.js";
import "../providers/anthropic/index.js";
import "../providers/replay.js";
import "../providers/openai-responses/index.js";
import "../providers/google/index.js";
