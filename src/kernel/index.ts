// The pure kernel: plain data in, a verdict out. Nothing here reaches the world.
export * from "./types.js";
export * from "./claims.js";
export { makeGate, GateError } from "./gate.js";
export { evaluate, evidenceDigest } from "./evaluate.js";
export { canonicalJson, sha256Hex, subjectDigest } from "./subject.js";
export { configurationFailure } from "./configuration.js";
