/**
 * `npx tsx scripts/step-size.ts [root]`: how many files and lines a reader opens to follow one
 * step of the loop without optional features, and how many lines the core is (the targets:
 * at most 4 files / 1,000 lines, and 2,500). `root` defaults to the working directory, so the same
 * rule can be run on an older checkout.
 *
 * The step: the files under src/ that define the functions one featureless step runs, named in
 * STEP below (a name a tree does not have is skipped; `Environment` is the class whose prepare,
 * admit and execute the turn calls). The nouns it reads besides: the files defining the run's
 * state, the hook interface and the budget. The core: every non-test .ts file of core/vocabulary/,
 * core/errors.ts, tools/ (not tools/builtin/) and loop/ (with loop/environment/); agent/ (the
 * files that assemble an agent) and features/ are not core.
 * Lines are `wc -l` lines.
 *
 * One model call: the files a reader opens to follow one model call of a default agent
 * (`agent.run`, OpenAI Chat Completions, no store, default features) from `agent.run` to the
 * socket and back: the functions named in MODEL_CALL below (its loop, agent and provider side),
 * plus the transport side: the kit (`models/http-provider.ts`) and every file of `models/http/` it
 * reaches through value imports. A file counts only when code it defines runs on that call: a
 * feature the default agent does not attach, or a branch a plain-text request does not take, is
 * not on it. The small checks and counters the call uses on its way (MODEL_CALL_HELPERS) are
 * printed apart and not in the total, like the step's nouns; files of only types are not
 * counted. test/step-size.test.ts keeps the names real and the totals under their ceilings.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";

/** The functions one step runs, in the order it reaches them, as the loop, the model call and the turn name them. */
export const STEP = [
  "runLoop",
  "runStep",
  "modelAnswer",
  // Older trees sent every model call through the context view, feature or not.
  "callThroughView",
  "stepRequest",
  "callModel",
  "toAssistantMessage",
  "actOn",
  "decideAnswer",
  // Older trees named the turn's levels runTurn, executeCall and runTool.
  "runTurn",
  "executeCall",
  "runTool",
  "takeTurn",
  "dispatchCall",
  "executeTool",
  "announceCall",
  "recordResult",
  "closeOpenCalls",
  "Environment",
];

/**
 * One default model call, in the order a reader meets it: the agent assembles the run (state,
 * emitter, features: a default agent has no tools, memory, recall or store, so its only feature is
 * the compaction after a context overflow, written in the assembly), the loop reaches the model
 * call through that hook, the provider builds the body, the kit sends it (the transport side is
 * counted apart), and the answer comes back through the provider's parser, the usage check, the
 * model call's events and the loop's admission of the calls. Code a plain-text request does not
 * reach (image and file checks, a stream, a refused tool call's recovery, replay's body readers)
 * is not named.
 */
export const MODEL_CALL = [
  "Agent",
  "initialMessages",
  "startRun",
  "makeEmitter",
  "attachFeatures",
  "runLoop",
  "runStep",
  "modelAnswer",
  "stepRequest",
  "callModel",
  "OpenAIChatModel",
  "toChatBody",
  // Older trees walked every request's messages through the attachment helper, attachments or not.
  "withToolAttachments",
  "OPENAI_QUIRKS",
  "parseChatCompletion",
  "checkedTokenUsage",
  "toAssistantMessage",
  "Environment",
];

/**
 * What the model call calls on its way besides the files it walks through, counted apart like the
 * step's nouns: the limits and cost checks of a run's start, the usage meter, a call's cost and the
 * budget, the tool list, the emitter of a run nobody listens to, the provider's checks of the
 * request (context window, tool-call ids, another provider's reasoning). Each returns to its caller
 * at once; a reader can take them on trust.
 */
export const MODEL_CALL_HELPERS = [
  "tightenLimits",
  "checkCostLimit",
  "textNotAllowed",
  "UsageMeter",
  "costOf",
  "silent",
  "Budget",
  "ToolRegistry",
  "checkContextWindow",
  "normalizeToolCallIds",
  "reportForeignReasoning",
];

/** The transport side of a model call: the kit, and the files of this folder it reaches. */
export const TRANSPORT_ENTRY = "models/http-provider.ts";
export const TRANSPORT_ROOM = "models/http/";

/** What the step reads besides its own code: the run's state, the hooks, the budget. */
export const NOUNS = ["RunState", "RunHooks", "Budget"];

const CORE_ROOMS = ["core/vocabulary", "core/errors.ts", "tools", "loop"];

/** The folder of the files that assemble an agent for a run rather than run a step. */
const ASSEMBLER = "agent/";

/** Files (relative to src/) and their lines. */
export interface Count {
  files: string[];
  lines: number;
}

/** The sizes this script reports, for the tree at `root`. */
export interface Sizes {
  step: Count;
  nouns: Count;
  modelCall: { loopSide: Count; transportSide: Count; total: Count; helpers: Count };
  core: Count;
  assembler: Count;
  /** Names of STEP, MODEL_CALL and MODEL_CALL_HELPERS no file of the tree defines. */
  missing: string[];
}

/** Measures the tree at `root`. */
export function measure(root: string): Sizes {
  const src = join(root, "src");
  const files = sourceFiles(src).map((path) => relative(src, path));
  const lineCount = new Map(files.map((f) => [f, lines(join(src, f))]));
  const count = (list: readonly string[]): Count => ({
    files: [...list],
    lines: list.reduce((sum, f) => sum + (lineCount.get(f) ?? 0), 0),
  });
  const declared = declarations(src, files);
  const definers = (names: readonly string[]) =>
    [...new Set(names.flatMap((n) => declared.get(n) ?? []))].sort();
  const missing = [...STEP, ...MODEL_CALL, ...MODEL_CALL_HELPERS].filter((n) => !declared.has(n));

  const step = definers(STEP);
  const nouns = definers(NOUNS).filter((f) => !step.includes(f));
  const transport = reached(
    src,
    TRANSPORT_ENTRY,
    (f) => f === TRANSPORT_ENTRY || f.startsWith(TRANSPORT_ROOM),
  );
  const loopSide = definers(MODEL_CALL).filter((f) => !transport.includes(f));
  const helpers = definers(MODEL_CALL_HELPERS).filter((f) => !loopSide.includes(f) && !transport.includes(f));
  const inCore = (f: string) =>
    CORE_ROOMS.some((room) => (room.endsWith(".ts") ? f === room : f.startsWith(`${room}/`))) &&
    !f.startsWith("tools/builtin/");
  return {
    step: count(step),
    nouns: count(nouns),
    modelCall: {
      loopSide: count(loopSide),
      transportSide: count(transport),
      total: count([...loopSide, ...transport]),
      helpers: count(helpers),
    },
    core: count(files.filter(inCore).sort()),
    assembler: count(files.filter((f) => f.startsWith(ASSEMBLER))),
    missing,
  };
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".test-d.ts"))
      out.push(path);
  }
  return out;
}

const lines = (file: string) => readFileSync(file, "utf8").split("\n").length - 1;

/** Each top-level function, class, interface, type or variable name, with the files declaring it. */
function declarations(src: string, files: readonly string[]): Map<string, string[]> {
  const declared = new Map<string, string[]>();
  const add = (name: string, file: string) => declared.set(name, [...(declared.get(name) ?? []), file]);
  for (const file of files) {
    const sf = ts.createSourceFile(file, readFileSync(join(src, file), "utf8"), ts.ScriptTarget.Latest);
    for (const node of sf.statements) {
      const named =
        ts.isFunctionDeclaration(node) ||
        ts.isClassDeclaration(node) ||
        ts.isInterfaceDeclaration(node) ||
        ts.isTypeAliasDeclaration(node);
      if (named && node.name) add(node.name.text, file);
      if (ts.isVariableStatement(node))
        for (const d of node.declarationList.declarations)
          if (ts.isIdentifier(d.name)) add(d.name.text, file);
    }
  }
  return declared;
}

/** `entry` and the files it reaches through value imports (not `import type`), kept to `inside`. */
function reached(src: string, entry: string, inside: (file: string) => boolean): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file) || !inside(file) || !existsSync(join(src, file))) return;
    seen.add(file);
    const sf = ts.createSourceFile(file, readFileSync(join(src, file), "utf8"), ts.ScriptTarget.Latest);
    for (const node of sf.statements) {
      const spec =
        ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly
          ? node.moduleSpecifier
          : ts.isExportDeclaration(node) && !node.isTypeOnly
            ? node.moduleSpecifier
            : undefined;
      if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith(".")) continue;
      // An import of only types (`import { type A }`) loads nothing.
      const clause = ts.isImportDeclaration(node) ? node.importClause : undefined;
      const bindings = clause?.namedBindings;
      if (
        clause &&
        !clause.name &&
        bindings &&
        ts.isNamedImports(bindings) &&
        bindings.elements.every((e) => e.isTypeOnly)
      )
        continue;
      visit(join(dirname(file), spec.text).replace(/\.js$/, ".ts"));
    }
  };
  visit(entry);
  return [...seen].sort();
}

function print(root: string): void {
  const sizes = measure(root);
  const src = join(root, "src");
  const show = (title: string, c: Count) => {
    console.log(`${title}: ${c.files.length} files, ${c.lines} lines`);
    for (const f of c.files) console.log(`  ${String(lines(join(src, f))).padStart(5)}  src/${f}`);
  };
  show("one step (its own code)", sizes.step);
  show("  and the nouns it reads", sizes.nouns);
  const { loopSide, transportSide, total, helpers } = sizes.modelCall;
  console.log(
    `one default model call, agent.run to the socket and back: ${total.files.length} files, ${total.lines} lines`,
  );
  show("  agent, loop, features and provider", loopSide);
  show("  transport (the kit and models/http/)", transportSide);
  show("  and the helpers it calls (counted apart)", helpers);
  console.log(`core: ${sizes.core.files.length} files, ${sizes.core.lines} lines`);
  for (const room of CORE_ROOMS) {
    const of = sizes.core.files.filter((f) => (room.endsWith(".ts") ? f === room : f.startsWith(`${room}/`)));
    console.log(`  ${room}: ${of.length} files, ${of.reduce((s, f) => s + lines(join(src, f)), 0)} lines`);
  }
  console.log(
    `  (not core: the assembler, ${sizes.assembler.files.length} files, ${sizes.assembler.lines} lines)`,
  );
  if (sizes.missing.length > 0) console.log(`names this tree does not define: ${sizes.missing.join(", ")}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  print(process.argv[2] ?? process.cwd());
