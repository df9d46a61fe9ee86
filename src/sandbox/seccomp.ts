// The sandbox's seccomp filter, as the classic-BPF program bwrap's `--seccomp FD` installs before it
// runs the command (with no_new_privs set, so no process of the run can drop it). Every process of a
// run is the same user in the same namespaces, and this host has no Yama: without the filter, code
// under test could attach to the runner that reports on it (Maven, node:test's parent, `go test`)
// and rewrite its memory or steal its file descriptors. The filter denies, with EPERM, the calls that
// reach into another process and the kernel interfaces no supported runner needs; everything else
// is allowed. Built here as data (no libseccomp), so the profile digest can cover it.

/** Linux's `AUDIT_ARCH_X86_64` (EM_X86_64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE). */
export const AUDIT_ARCH_X86_64 = 0xc000003e;
/** x32 system calls are x86_64's numbers with this bit set: denied as a whole. */
const X32_SYSCALL_BIT = 0x40000000;
const EPERM = 1;

/** Denied system calls by name, with their x86_64 numbers (arch/x86/entry/syscalls/syscall_64.tbl). */
export const DENIED_SYSCALLS: Readonly<Record<string, number>> = Object.freeze({
  // Reaching into another process: its memory, its registers, its file descriptors.
  ptrace: 101,
  process_vm_readv: 310,
  process_vm_writev: 311,
  kcmp: 312,
  pidfd_getfd: 438,
  process_madvise: 440,
  // Kernel interfaces no runner needs, and each a way around the rest (defense in depth).
  perf_event_open: 298,
  bpf: 321,
  userfaultfd: 323,
  add_key: 248,
  request_key: 249,
  keyctl: 250,
  // Mounting: the capabilities are dropped already; this keeps the calls out of reach entirely.
  pivot_root: 155,
  mount: 165,
  umount2: 166,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
  open_tree_attr: 467,
});

// struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6].
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
// Classic BPF opcodes (linux/bpf_common.h) and seccomp's return values (linux/seccomp.h).
const LD_W_ABS = 0x20;
const JMP_JEQ_K = 0x15;
const JMP_JGE_K = 0x35;
const RET_K = 0x06;
export const SECCOMP_RET_ALLOW = 0x7fff0000;
export const SECCOMP_RET_ERRNO = 0x00050000;

interface Instruction { code: number; jt: number; jf: number; k: number }

/** The filter's instructions: a foreign architecture or x32 call is denied, then each denied number. */
export function seccompInstructions(arch = process.arch): Instruction[] {
  if (arch !== "x64") {
    // The numbers above are x86_64's; on another architecture they would deny the wrong calls.
    throw new Error(`the sandbox's seccomp filter is built for x86_64 only, and this machine is ${arch}`);
  }
  const numbers = [...new Set(Object.values(DENIED_SYSCALLS))].sort((a, b) => a - b);
  const deny = SECCOMP_RET_ERRNO | EPERM;
  // Layout: 0 ld arch, 1 jeq x86_64, 2 ret deny, 3 ld nr, 4 jge x32, 5.. jeq each, allow, deny.
  const denyAt = 5 + numbers.length + 1;
  const jumpTo = (from: number, to: number) => to - from - 1;
  const program: Instruction[] = [
    { code: LD_W_ABS, jt: 0, jf: 0, k: OFFSET_ARCH },
    { code: JMP_JEQ_K, jt: 1, jf: 0, k: AUDIT_ARCH_X86_64 },
    { code: RET_K, jt: 0, jf: 0, k: deny },
    { code: LD_W_ABS, jt: 0, jf: 0, k: OFFSET_NR },
    { code: JMP_JGE_K, jt: jumpTo(4, denyAt), jf: 0, k: X32_SYSCALL_BIT },
  ];
  numbers.forEach((nr, i) => program.push({ code: JMP_JEQ_K, jt: jumpTo(5 + i, denyAt), jf: 0, k: nr }));
  program.push({ code: RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ALLOW }, { code: RET_K, jt: 0, jf: 0, k: deny });
  if (program.some((ins) => ins.jt > 255)) throw new Error("the seccomp filter's jumps do not fit classic BPF");
  return program;
}

/** The program as bwrap reads it: an array of `struct sock_filter` (u16 code, u8 jt, u8 jf, u32 k), host byte order. */
export function seccompProgram(arch = process.arch): Buffer {
  const program = seccompInstructions(arch);
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((ins, i) => {
    bytes.writeUInt16LE(ins.code, i * 8);
    bytes.writeUInt8(ins.jt, i * 8 + 2);
    bytes.writeUInt8(ins.jf, i * 8 + 3);
    bytes.writeUInt32LE(ins.k >>> 0, i * 8 + 4);
  });
  return bytes;
}
