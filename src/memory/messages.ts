/**
 * The transcript's types moved to the vocabulary (`src/vocabulary/messages.ts`); this path stays
 * so imports written against it keep working. New code imports the vocabulary.
 */
export * from "../vocabulary/messages.js";
