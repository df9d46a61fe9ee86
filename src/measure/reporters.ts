import { fileURLToPath } from "node:url";

/**
 * Report writers the gate ships for runners whose own JUnit output is not enough (Node 20's junit
 * reporter names no file). The folder is mounted read-only in every sandbox; commands find the
 * node:test reporter through $RANEX_NODE_REPORTER.
 */
export const REPORTERS_DIR = fileURLToPath(new URL("../../reporters", import.meta.url));
export const NODE_REPORTER = `${REPORTERS_DIR}/node-junit.mjs`;

/** Where the bwrap sandbox sees REPORTERS_DIR. */
export const SANDBOX_REPORTERS_DIR = "/opt/ranex/reporters";

/** The node:test reporter's path as the run sees it: inside bwrap, or on the host without it. */
export function nodeReporterFor(backend: "bwrap" | "none"): string {
  return backend === "bwrap" ? `${SANDBOX_REPORTERS_DIR}/node-junit.mjs` : NODE_REPORTER;
}

/** The folder of the gate's report writers as the run sees it ($RANEX_REPORTERS: jest-run.cjs, ...). */
export function reportersDirFor(backend: "bwrap" | "none"): string {
  return backend === "bwrap" ? SANDBOX_REPORTERS_DIR : REPORTERS_DIR;
}
