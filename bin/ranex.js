#!/usr/bin/env node
// Runs the built CLI when present (npm run build), else the TypeScript source through tsx.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const built = join(root, "dist", "cli", "main.js");
let main;
if (existsSync(built)) {
  ({ main } = await import(pathToFileURL(built).href));
} else {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import(pathToFileURL(join(root, "src", "cli", "main.ts")).href));
}
process.exitCode = await main(process.argv.slice(2));
