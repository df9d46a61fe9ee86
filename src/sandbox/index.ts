// The isolated runner: untrusted code (setup, tests, checks) runs only behind this interface.
export type { RunRequest, RunResult, SandboxBackend, SandboxProfile } from "./types.js";
export { createSandbox, findBwrap, type Sandbox, type SandboxOptions } from "./runner.js";
export { profileDigest } from "./profile.js";
export { SECRET_ENV_NAMES, assertKeyless, KeylessError } from "./keyless.js";
export { checkSandbox, type SandboxCheck } from "./check.js";
export { cgroupSupport } from "./cgroup.js";
