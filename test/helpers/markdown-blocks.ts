/** Fenced code blocks of the Markdown docs, with what each one says about how to test it. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** How a block is tested, from its first line. */
export type BlockMode =
  /** Type-checked and executed. */
  | { kind: "run" }
  /** Type-checked only; `reason` says why it cannot run here (a real server, a GGUF file, stdio). */
  | { kind: "check"; reason: string }
  /** An excerpt that is not a whole module (`...` elisions); `reason` says so. Neither checked nor run. */
  | { kind: "skip"; reason: string };

/** One fenced block. */
export interface CodeBlock {
  /** `docs/concepts.md:51`: the file and the line of the opening fence. */
  where: string;
  file: string;
  line: number;
  /** The fence's info string (`ts`, `sh`, `text`, `json`), "" when none. */
  lang: string;
  code: string;
  /** Names the block takes from test/docs/fixtures.ts (`// needs: agent, model`). */
  needs: string[];
  /** Where the block's relative imports resolve (`// src/trace/cli.ts` on its first line). */
  location?: string;
  mode: BlockMode;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/;
// `// needs: a, b; not run: why` (TS) or `# not run: why` (shell); a location is a repo path alone.
const DIRECTIVE = /^\s*(?:\/\/|#)\s*((?:needs|not run|not checked):.*)$/;
const LOCATION = /^\s*\/\/\s*((?:src|bench|test|examples)\/[\w./-]+\.ts)\s*$/;

/** The README and every docs/*.md, relative to `root`. */
export function docFiles(root: string): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...docs];
}

/** Every fenced block of `file` (relative to `root`), in order. */
export function codeBlocks(root: string, file: string): CodeBlock[] {
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const [, indent = "", fence = "", lang = ""] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j]!;
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(line)?.[1];
      if (close && close[0] === fence[0] && close.length >= fence.length) break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line);
    }
    blocks.push(describeBlock(file, i + 1, lang, body.join("\n")));
    i = j;
  }
  return blocks;
}

function describeBlock(file: string, line: number, lang: string, code: string): CodeBlock {
  const first = code.split("\n", 1)[0] ?? "";
  const block: CodeBlock = {
    where: `${file}:${line}`,
    file,
    line,
    lang,
    code,
    needs: [],
    mode: { kind: "run" },
  };
  const location = LOCATION.exec(first);
  if (location?.[1]) block.location = location[1];
  const directive = DIRECTIVE.exec(first)?.[1];
  if (!directive) return block;
  // A reason may hold semicolons; only a known key starts a new part.
  for (const part of directive.split(/;\s*(?=needs:|not run:|not checked:)/)) {
    const colon = part.indexOf(":");
    const key = part.slice(0, colon).trim();
    const value = part.slice(colon + 1).trim();
    if (key === "needs")
      block.needs = value
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean);
    else if (key === "not run") block.mode = { kind: "check", reason: value };
    else if (key === "not checked") block.mode = { kind: "skip", reason: value };
  }
  return block;
}
