import { readFileSync } from "node:fs";

/** The gate's version, named in every signed verdict: read once from package.json. */
export const GATE_VERSION: string = (JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8"),
) as { version: string }).version;
