// `npm run schema`: writes the JSON schemas generated from src/policy/schema.ts.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { schemaFiles } from "../src/policy/json-schema.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
for (const [file, text] of Object.entries(schemaFiles())) {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
  process.stdout.write(`wrote ${file}\n`);
}
