# One process of a run reaching into another (issue 19). `parent` stands for the runner that reports
# on a test (Maven, node:test's parent, the gate's wrapper): it holds a canary in its initial
# environment, a buffer in memory and a pipe only it can write. `child` stands for code under test:
# it tries every way in and prints `name=yes` or `name=no:<why>`; the parent then prints what
# really changed on its side.
import ctypes, os, subprocess, sys, threading, time

libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.process_vm_writev.restype = ctypes.c_ssize_t
libc.process_vm_readv.restype = ctypes.c_ssize_t
PTRACE_SEIZE = 0x4206


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def failed():
    errno = ctypes.get_errno()
    return OSError(errno, os.strerror(errno))


def parent():
    canary = os.environ["RANEX_PROBE_CANARY"].encode()
    buf = ctypes.create_string_buffer(canary, 64)
    r, w = os.pipe()
    got = []
    threading.Thread(target=lambda: got.append(os.read(r, 100)), daemon=True).start()
    env = {k: v for k, v in os.environ.items() if k != "RANEX_PROBE_CANARY"}
    subprocess.run([sys.executable, __file__, "child", str(ctypes.addressof(buf)), str(w)], env=env, check=False)
    os.close(w)
    time.sleep(0.2)
    print("mem_changed=" + ("yes" if buf.raw.startswith(b"MEMW") else "no"), flush=True)
    print("vm_changed=" + ("yes" if buf.raw[4:8] == b"VMWV" else "no"), flush=True)
    print("fd_received=" + ("yes" if got and b"INJECTED" in got[0] else "no"), flush=True)


def child(addr, wfd):
    ppid = os.getppid()

    def attempt(name, fn):
        try:
            fn()
            print(f"{name}=yes", flush=True)
        except Exception as e:  # noqa: BLE001 - the reason is the result
            print(f"{name}=no:{type(e).__name__}: {e}"[:160], flush=True)

    def mem_write():
        with open(f"/proc/{ppid}/mem", "r+b", buffering=0) as f:
            f.seek(addr)
            f.write(b"MEMW")

    def vm_writev():
        data = ctypes.create_string_buffer(b"VMWV")
        local, remote = IoVec(ctypes.addressof(data), 4), IoVec(addr + 4, 4)
        if libc.process_vm_writev(ppid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) != 4:
            raise failed()

    def vm_readv_self():
        data, into = ctypes.create_string_buffer(b"abcd"), ctypes.create_string_buffer(4)
        local, remote = IoVec(ctypes.addressof(into), 4), IoVec(ctypes.addressof(data), 4)
        if libc.process_vm_readv(os.getpid(), ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) != 4:
            raise failed()

    def ptrace_seize():
        if libc.ptrace(PTRACE_SEIZE, ppid, None, None) != 0:
            raise failed()

    def environ():
        if b"RANEX_PROBE_CANARY=" not in open(f"/proc/{ppid}/environ", "rb").read():
            raise ValueError("no canary in it")

    def mem_read():
        with open(f"/proc/{ppid}/mem", "rb", buffering=0) as f:
            f.seek(addr)
            f.read(4)

    def fd1_write():
        with open(f"/proc/{ppid}/fd/1", "a") as f:
            f.write("fd1_injected=yes\n")

    def fd_write():
        with open(f"/proc/{ppid}/fd/{wfd}", "wb") as f:
            f.write(b"INJECTED")

    def own_proc():
        # What runtimes read of themselves (the JVM: maps, status, fd) must stay open to them.
        for name in ("environ", "maps", "status", "cmdline", "auxv"):
            open(f"/proc/self/{name}", "rb").read()
        os.listdir("/proc/self/fd")
        os.readlink("/proc/self/exe")
        with open("/proc/self/mem", "rb", buffering=0) as f:
            f.seek(id(f))  # CPython: an object's id is its address
            f.read(1)

    attempt("mem_write", mem_write)
    attempt("vm_writev", vm_writev)
    attempt("vm_readv_self", vm_readv_self)
    attempt("ptrace", ptrace_seize)
    attempt("environ", environ)
    attempt("mem_read", mem_read)
    attempt("fd1_write", fd1_write)
    attempt("fd_write", fd_write)
    attempt("own_proc", own_proc)


if sys.argv[1] == "parent":
    parent()
else:
    child(int(sys.argv[2]), int(sys.argv[3]))
