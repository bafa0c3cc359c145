// The floor with zod loaded and the task's schema converted to JSON Schema, as any program that
// writes its tools in zod has them: the reference for glassloop's heap, which includes zod's.
// The loop itself is the floor's (raw-http.mjs), unchanged.
import { z } from "zod";
import rawHttp from "./raw-http.mjs";

const input = z.object({ a: z.number().describe("First operand"), b: z.number().describe("Second operand") });
/** The schema as JSON Schema: kept, as a program keeps the tools it sends. */
export const parameters = z.toJSONSchema(input);

/** Returns the floor's task runner. */
export default rawHttp;
