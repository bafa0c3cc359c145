/**
 * The event types moved to the vocabulary (`src/vocabulary/events.ts`); this path stays so
 * imports written against it keep working. New code imports the vocabulary.
 */
export type * from "../vocabulary/events.js";
