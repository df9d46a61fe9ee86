/** The measuring process's fd that carries the sealing key from the parent (issue 20): a pipe, never a file. */
export const KEY_PIPE_FD = 4;
