#!/usr/bin/env node
// Runs the TypeScript source through tsx in a checkout, and the built CLI (npm run build) where
// there is no source (an installed package, the container image): a stale build in a checkout
// must never be what runs.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const built = join(root, "dist", "cli", "main.js");
const source = join(root, "src", "cli", "main.ts");
let main;
if (!existsSync(source)) {
  ({ main } = await import(pathToFileURL(built).href));
} else {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import(pathToFileURL(source).href));
}
process.exitCode = await main(process.argv.slice(2));
