import { z } from "zod";
import { tool } from "../tools/tool.js";
import type { LongTermMemory } from "./long-term.js";

/** Names of the long-term memory tools. */
export const MEMORY_TOOLS = { save: "memory_save", search: "memory_search" } as const;

/**
 * `memory_save` and `memory_search` over one LongTermMemory, for agents that decide themselves
 * what to remember and when to look. The scope is fixed by the memory, never chosen by the model.
 */
export function memoryTools(memory: LongTermMemory) {
  const save = tool({
    name: MEMORY_TOOLS.save,
    description:
      "Saves a fact to long-term memory so it can be found in later conversations. Save one self-contained fact per call.",
    input: z.object({
      text: z.string().min(1).max(4_000).describe("The fact, written so it makes sense on its own."),
      tags: z.array(z.string().max(50)).max(10).optional().describe("Optional keywords."),
    }),
    run: async ({ text, tags }, { signal }) => {
      const note = await memory.remember(text, tags ? { tags } : {}, signal);
      return `Saved as note ${note.id}.`;
    },
  });
  const search = tool({
    name: MEMORY_TOOLS.search,
    description:
      "Searches long-term memory for facts saved in earlier conversations. Returns the best matches.",
    input: z.object({
      query: z.string().min(1).max(1_000).describe("What to look for, in words."),
      k: z.number().int().min(1).max(20).optional().describe("How many notes to return (default 5)."),
    }),
    // Reading memory twice is harmless, so a call cut off by a crash may be re-run on resume.
    idempotent: true,
    run: async ({ query, k }, { signal }) => {
      const notes = await memory.search(query, k ?? 5, signal);
      if (notes.length === 0) return "No matching notes.";
      return notes.map((n) => `- [note ${n.id}] ${n.text}`).join("\n");
    },
  });
  return [save, search] as const;
}
