import { Agent, type Guardrails, type GuardrailTripwireError, tool } from "glassloop";
import {
  type GuardrailStage,
  type GuardrailVerdict,
  type InputGuardrail,
  type InputVerdict,
  inputGuardrail,
  type OutputGuardrail,
  outputGuardrail,
  secretEgressGuard,
  sizeGuard,
  type ToolGuardrail,
  toolGuardrail,
  urlAllowList,
} from "glassloop/guardrails";
import { ScriptedModel } from "glassloop/testing";
import type { GuardrailEvent } from "glassloop/trace";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";

class Session {
  constructor(readonly user: string) {}
}
const model = new ScriptedModel([]);
const transfer = tool({
  name: "transfer",
  description: "Moves money.",
  input: z.object({ to: z.string(), amount: z.number() }),
  run: ({ amount }) => amount,
});

describe("the guardrail API's types", () => {
  it("types an output guardrail with the agent's typed output, and its context", () => {
    new Agent({
      model,
      context: new Session("ann"),
      output: z.object({ answer: z.number() }),
      guardrails: {
        output: [
          {
            name: "positive",
            check: ({ output, finishedBy }, { context }) => {
              expectTypeOf(output).toEqualTypeOf<{ answer: number }>();
              expectTypeOf(finishedBy).toBeString();
              expectTypeOf(context).toEqualTypeOf<Session>();
              return output.answer >= 0 ? { action: "allow" } : { action: "reject", message: "must be >= 0" };
            },
          },
        ],
      },
    });
  });

  it("types a plain agent's output guardrail with string", () => {
    new Agent({
      model,
      guardrails: {
        output: [
          {
            name: "short",
            check: ({ output }) => {
              expectTypeOf(output).toBeString();
              return { action: "allow" };
            },
          },
        ],
      },
    });
  });

  it("does not let the guardrails decide the agent's output type", () => {
    const agent = new Agent({
      model,
      output: z.object({ n: z.number() }),
      guardrails: {
        output: [outputGuardrail<{ n: number }>({ name: "n", check: () => ({ action: "allow" }) })],
      },
    });
    expectTypeOf(agent).toEqualTypeOf<Agent<undefined, { n: number }>>();
    new Agent({
      model,
      output: z.object({ n: z.number() }),
      guardrails: {
        // @ts-expect-error an output guardrail for another output type does not fit
        output: [outputGuardrail<{ s: string }>({ name: "s", check: () => ({ action: "allow" }) })],
      },
    });
  });

  it("lets an input guardrail only allow or stop: its input cannot be corrected", () => {
    const g = inputGuardrail({
      name: "i",
      check: ({ text, images, files }) => {
        expectTypeOf(text).toBeString();
        expectTypeOf(images.length).toBeNumber();
        expectTypeOf(files.length).toBeNumber();
        return { action: "allow" };
      },
    });
    expectTypeOf(g).toEqualTypeOf<InputGuardrail<unknown>>();
    expectTypeOf<InputVerdict["action"]>().toEqualTypeOf<"allow" | "tripwire">();
    // @ts-expect-error reject is for output and tool guardrails
    inputGuardrail({ name: "r", check: () => ({ action: "reject", message: "no" }) });
    // @ts-expect-error a tripwire needs its reason
    inputGuardrail({ name: "t", check: () => ({ action: "tripwire" }) });
  });

  it("types a tool guardrail's arguments from the tool it names", () => {
    const cap = toolGuardrail(transfer, {
      name: "cap",
      before: ({ args }) => {
        expectTypeOf(args).toEqualTypeOf<{ to: string; amount: number }>();
        return { action: "allow" };
      },
      after: ({ args, content, status }) => {
        expectTypeOf(args.amount).toBeNumber();
        expectTypeOf(content).toBeString();
        expectTypeOf(status).toEqualTypeOf<import("glassloop").ToolOutcomeStatus>();
        return { action: "allow" };
      },
    });
    // Typed for one tool, it still fits an agent's list of tool guardrails.
    new Agent({ model, tools: [transfer], guardrails: { tools: [cap, secretEgressGuard()] } });
    const any = toolGuardrail({
      name: "any",
      before: ({ args }) => {
        expectTypeOf(args).toBeUnknown();
        return { action: "allow" };
      },
    });
    expectTypeOf(any).toEqualTypeOf<ToolGuardrail<unknown, unknown>>();
  });

  it("gives the shipped guards' parts their stages", () => {
    const urls = urlAllowList({ allow: ["https://docs.example.com"] });
    const size = sizeGuard({ maxInputChars: 10 });
    const guardrails: Guardrails = {
      input: [urls.input, size.input],
      output: [urls.output, size.output],
      tools: [urls.tool, size.tool, secretEgressGuard()],
    };
    expectTypeOf(guardrails.output).toEqualTypeOf<readonly OutputGuardrail<unknown, unknown>[] | undefined>();
    // @ts-expect-error an input guardrail is no tool guardrail
    const wrong: Guardrails = { tools: [urls.input] };
    void wrong;
  });

  it("names where a tripwire came from, and the event's verdicts", () => {
    expectTypeOf<GuardrailTripwireError["stage"]>().toEqualTypeOf<GuardrailStage>();
    expectTypeOf<GuardrailTripwireError["code"]>().toEqualTypeOf<import("glassloop").ErrorCode>();
    expectTypeOf<GuardrailEvent["action"]>().toEqualTypeOf<"allow" | "reject" | "tripwire" | "error">();
    expectTypeOf<GuardrailVerdict["action"]>().toEqualTypeOf<"allow" | "reject" | "tripwire">();
  });
});
