/**
 * `npx tsx scripts/count-exports.ts [file]`: how many names each package entry exports, as the
 * TypeScript checker sees them with every `export *` expanded, split by kind. Without an argument
 * it counts every entry of tsconfig.json's `paths` (`glassloop`, `glassloop/models`, …), one JSON
 * line each; with a file, that file alone. The root is kept at about 80 names.
 */
import { countExports, packageEntries } from "./entry-exports.js";

const file = process.argv[2];
if (file) {
  console.log(JSON.stringify(countExports([file]).get(file)));
} else {
  const entries = packageEntries();
  const counts = countExports(entries.map((e) => e.file));
  for (const { entry, file } of entries) console.log(JSON.stringify({ entry, ...counts.get(file) }));
}
