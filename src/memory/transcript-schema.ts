import { transcriptSchemas } from "./message-schema.js";

/** The zod schema of a transcript message, for validating history that comes from outside. */
export const messageSchema = transcriptSchemas().message;
