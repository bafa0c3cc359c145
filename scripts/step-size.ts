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
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/** The functions one step runs, in the order it reaches them, as the loop, the model call and the turn name them. */
const STEP = [
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

/** What the step reads besides its own code: the run's state, the hooks, the budget. */
const NOUNS = ["RunState", "RunHooks", "Budget"];

const CORE_ROOMS = ["core/vocabulary", "core/errors.ts", "tools", "loop"];

/** The folder of the files that assemble an agent for a run rather than run a step. */
const ASSEMBLER = "agent/";

const root = process.argv[2] ?? process.cwd();
const src = join(root, "src");

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
const files = sourceFiles(src).map((path) => relative(src, path));

/** The file that declares each top-level function or class named in `names`. */
function definers(names: readonly string[]): string[] {
  const wanted = new Set(names);
  const found = new Set<string>();
  for (const file of files) {
    const text = readFileSync(join(src, file), "utf8");
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
    for (const node of sf.statements) {
      const named =
        ts.isFunctionDeclaration(node) ||
        ts.isClassDeclaration(node) ||
        ts.isInterfaceDeclaration(node) ||
        ts.isTypeAliasDeclaration(node);
      if (named && node.name && wanted.has(node.name.text)) found.add(file);
    }
  }
  return [...found].sort();
}

function report(title: string, list: readonly string[]): number {
  const total = list.reduce((sum, f) => sum + lines(join(src, f)), 0);
  console.log(`${title}: ${list.length} files, ${total} lines`);
  for (const f of list) console.log(`  ${String(lines(join(src, f))).padStart(5)}  src/${f}`);
  return total;
}

const step = definers(STEP);
report("one step (its own code)", step);
const nouns = definers(NOUNS).filter((f) => !step.includes(f));
report("  and the nouns it reads", nouns);

const inCore = (f: string) =>
  CORE_ROOMS.some((room) => (room.endsWith(".ts") ? f === room : f.startsWith(`${room}/`))) &&
  !f.startsWith("tools/builtin/");
const core = files.filter(inCore).sort();
const coreLines = core.reduce((sum, f) => sum + lines(join(src, f)), 0);
console.log(`core: ${core.length} files, ${coreLines} lines`);
for (const room of CORE_ROOMS) {
  const of = core.filter((f) => (room.endsWith(".ts") ? f === room : f.startsWith(`${room}/`)));
  console.log(`  ${room}: ${of.length} files, ${of.reduce((s, f) => s + lines(join(src, f)), 0)} lines`);
}
const assembler = files.filter((f) => f.startsWith(ASSEMBLER));
const assemblerLines = assembler.reduce((sum, f) => sum + lines(join(src, f)), 0);
console.log(`  (not core: the assembler, ${assembler.length} files, ${assemblerLines} lines)`);
