/**
 * The model providers the CLI can name in `provider:model` strings. Each module registers its
 * provider on import; the CLI imports only these (not the whole package) to start fast.
 */
import "../models/presets.js";
import "../models/anthropic/index.js";
import "../models/replay.js";
import "../models/openai-responses/index.js";
import "../models/google/index.js";
