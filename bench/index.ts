/**
 * `npm run bench`: runs every section and prints its tables. `npm run bench -- loop` runs only the
 * sections named. To add one, export a `BenchSection` from a file here and list it below.
 */
import { cliBench } from "./cli.js";
import { evalsBench } from "./evals.js";
import { floorBench } from "./floor.js";
import { localModelBench } from "./local-model.js";
import { loopBench } from "./loop.js";
import { memoryBench } from "./memory.js";
import { newProvidersBench } from "./new-providers.js";
import { postgresBench } from "./postgres.js";
import { providersBench } from "./providers.js";
import { scaleBench } from "./scale.js";
import { serveBench } from "./serve.js";
import { streamMemoryBench } from "./stream-memory.js";
import { type BenchSection, formatTable } from "./table.js";
import { traceBench } from "./trace.js";

const sections: BenchSection[] = [
  { name: "loop", run: loopBench },
  { name: "trace", run: traceBench },
  { name: "providers", run: providersBench },
  { name: "floor", run: floorBench },
  { name: "stream-memory", run: streamMemoryBench },
  { name: "new-providers", run: newProvidersBench },
  { name: "memory", run: memoryBench },
  { name: "postgres", run: postgresBench },
  { name: "scale", run: scaleBench },
  { name: "serve", run: serveBench },
  { name: "cli", run: cliBench },
  { name: "local", run: localModelBench },
  { name: "evals", run: evalsBench },
];

const wanted = process.argv.slice(2);
const chosen = wanted.length ? sections.filter((s) => wanted.includes(s.name)) : sections;
if (chosen.length === 0) {
  console.error(
    `No bench section named ${wanted.join(", ")}; known: ${sections.map((s) => s.name).join(", ")}`,
  );
  process.exit(2);
}
console.log(`glassloop bench · Node ${process.version} · ${process.platform}/${process.arch}\n`);
for (const section of chosen) {
  for (const table of await section.run()) console.log(`${formatTable(table)}\n`);
}
