import type { Command } from "../io.js";

// Placeholder until its issue lands; replaced by the real command.
export const run: Command = async (_args, io) => {
  io.stderr("ranex verify: not built yet\n");
  return 2;
};
