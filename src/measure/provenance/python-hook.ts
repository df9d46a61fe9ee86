// The Python half of the provenance record (docs/measurement.md, "What ran"): a `sitecustomize`
// module on the gate's read-only folder, first on PYTHONPATH, that installs an audit hook before any
// code of the tree runs. `sys.addaudithook` cannot be undone. The hook writes what it sees, one JSON
// line at a time, into a FIFO the measuring process reads from outside the sandbox: code under test
// can add lines but never take one back, and cannot read the pipe (mode 0200 on a read-only mount).
//
// Everything the hook needs lives in a closure, never in a module's globals (sys.modules would hand
// them to anyone); it calls only built-in functions captured at install, never a Python function a
// module attribute could replace, so tree code never runs inside it.

import { ACCEL_FILE_STEM, ACCEL_MODULE } from "./python-accel.js";
import { BETWEEN_PLUGIN, pythonBetweenSource } from "./python-between-tests.js";
import { pythonLyingSource } from "./python-lying.js";
import { pythonPlantedSource } from "./python-planted.js";
import { pythonSwappedSource } from "./python-swapped.js";

/** Top-level modules of the runners the gate knows (pytest and its own dependencies). */
export const PYTHON_RUNNER_MODULES: readonly string[] = [
  "pytest", "_pytest", "pluggy", "iniconfig", "py", "exceptiongroup", "tomli", "packaging", "xdist", "execnet",
];

/** Modules whose functions decide what a test's outcome is reported as; replacing one is tampering. */
export const WATCHED_MODULES: readonly string[] = [
  "unittest.case", "unittest.result", "_pytest.runner", "_pytest.reports", "_pytest.junitxml", "_pytest.python",
  "_pytest.unittest", "_pytest.outcomes", "_pytest.main", "_pytest.assertion.rewrite", "_pytest.assertion.util",
  "_pytest.skipping", "_pytest.terminal", "pluggy._callers", "pluggy._hooks", "pluggy._manager", "xml.etree.ElementTree",
];

export function pythonHookSource(fifo: string, treeRoot: string): string {
  return `# Added by Ranex Gate for this run only: the provenance record (what ran, and from where).
def _ranex_provenance():
    # Every built-in the record's code calls, bound here once: its functions then find them in their
    # own closure, not through the builtins module, which code under test can rewrite for the length
    # of a test's call (an \`all\` that says True blinds every comparison). Kept complete by a test
    # (test/measure/provenance/python-hook-builtins.test.ts).
    from builtins import (Exception, NotImplemented, OSError, TypeError, ValueError, all, any, bool, bytearray,
                          bytes, callable, classmethod, complex, dict, enumerate, float, frozenset, getattr,
                          globals, hex, id, int, issubclass, len, list, map, object, property, range, set,
                          staticmethod, str, tuple, type, zip)
    FIFO = ${JSON.stringify(fifo)}
    TREE = ${JSON.stringify(treeRoot.replace(/\/+$/, ""))} + "/"
    import sys
    import posix
    from _json import encode_basestring_ascii as quote
    from _operator import is_, itemgetter
    from itertools import chain
    # Comparisons of many slots at once, in C (./python-between-tests.ts, compare()).
    tupled = tuple
    getter_call = itemgetter.__call__
    chain_all = chain.from_iterable
    try:
        fd = posix.open(FIFO, posix.O_WRONLY | posix.O_APPEND | posix.O_CLOEXEC)
    except OSError:
        # The run's PYTEST_PLUGINS loads the gate's plugin by this name (./python-between-tests.ts).
        sys.modules[${JSON.stringify(BETWEEN_PLUGIN)}] = type(sys)(${JSON.stringify(BETWEEN_PLUGIN)})
        return
    write, getpid, pread, popen, pclose, listdir = posix.write, posix.getpid, posix.read, posix.open, posix.close, posix.listdir
    getframe = sys._getframe
    # The gate's accelerator (./python-accel.ts): loaded by absolute path from the gate's own folder
    # (never through sys.path, where the tree could shadow it), under a file name no import statement
    # names, and kept out of sys.modules. Absent (no compiler or headers where the gate runs, another
    # interpreter, RANEX_PY_ACCEL=0), the record does the same work in Python.
    try:
        from _imp import create_dynamic, extension_suffixes
        accel = create_dynamic(type(sys.implementation)(
            name=${JSON.stringify(ACCEL_MODULE)}, origin=FIFO.rpartition('/')[0] + '/py/${ACCEL_FILE_STEM}' + extension_suffixes()[0]))
        accel_differ, accel_where, accel_moved = accel.differ, accel.where, accel.moved
        accel_versions, accel_changed = accel.versions, accel.changed
        accel_blame, accel_suspects, accel_watch, accel_keep = accel.blame, accel.suspects, accel.watch, accel.keep
    except Exception:
        accel = None
    nonce = posix.urandom(8).hex()
    pid = getpid()
    budget = [5000]

    def emit(kind, *pairs):
        if budget[0] <= 0:
            return
        budget[0] -= 1
        parts = ['{"k":', quote(kind), ',"pid":', str(getpid())]
        for i in range(0, len(pairs), 2):
            value = pairs[i + 1]
            parts.append(',' + quote(pairs[i]) + ':' + (quote(value[:1500]) if type(value) is str else str(int(value))))
        line = ''.join(parts) + '}\\n'
        try:
            write(fd, line.encode('utf-8', 'replace'))
        except OSError:
            pass

    stdlib = frozenset(sys.stdlib_module_names)
    runner = frozenset(${JSON.stringify(PYTHON_RUNNER_MODULES)})
    roots = [TREE]
    installed = {}
    for entry in list(sys.path):
        if type(entry) is not str or not entry.startswith('/'):
            continue
        if entry.startswith(TREE) and entry.rstrip('/') + '/' not in roots:
            roots.append(entry.rstrip('/') + '/')
        elif ('-packages' in entry) and not entry.startswith(TREE):
            try:
                names = listdir(entry)
            except OSError:
                names = []
            for name in names:
                if name.endswith(('.dist-info', '.egg-info', '.pth')):
                    continue
                installed.setdefault(name.split('.', 1)[0], entry)

    def shadows(path):
        for root in roots:
            if not path.startswith(root):
                continue
            parts = [p for p in path[len(root):].split('/') if p != '__pycache__']
            if not parts:
                continue
            top = parts[0].split('.', 1)[0]
            if top in stdlib:
                return 'stdlib:' + top
            if top in runner:
                return 'runner:' + top
            if top in installed:
                return 'installed:' + top + ':' + installed[top]
        return ''

    seen = set()
    busy = [False]
    # Whether a file of the tree was opened for reading yet (or a module of the tree was loaded before
    # the hook): until then no code of the tree can have run, so an import or an event has no tree
    # frame to find, and the walks up the stack (each step an audited read, a call of this hook) are
    # left out. pytest imports most of its modules before it reads the tree's first file.
    tree_read = [False]

    def pyc_flags(path):
        try:
            handle = popen(path, posix.O_RDONLY | posix.O_CLOEXEC)
        except OSError:
            return -1
        try:
            head = pread(handle, 16)
        finally:
            pclose(handle)
        if len(head) < 8:
            return -1
        return head[4] | (head[5] << 8)

    def code_file(path):
        if path in seen:
            return
        seen.add(path)
        if path.endswith('.py'):
            emit('code', 'p', path, 'kind', 'source', 'shadow', shadows(path))
        elif path.endswith('.pyc'):
            flags = pyc_flags(path)
            if flags >= 0:
                emit('code', 'p', path, 'kind', 'bytecode', 'shadow', shadows(path), 'flags', flags)
        elif path.endswith(('.so', '.pyd')):
            emit('code', 'p', path, 'kind', 'native', 'shadow', shadows(path))
        elif '.dist-info/' in path or '.egg-info/' in path or path.endswith('.pth'):
            emit('meta', 'p', path)
        else:
            return True  # not code: the caller may keep it as data

    # Test data (issue 19): a tree file that is not code, opened for reading, with the tree file whose
    # code opened it; and the tree files opened for writing (what the run wrote is not its base's
    # data). Bounded apart from the budget, so the end line always has room. Caches are no data.
    data_left = [1000]
    getcwd = posix.getcwd

    def tree_path(path):
        # Relative or with dot segments (Path(__file__).parent / '..' / 'data'): made absolute by hand,
        # calling no module's code.
        if path[:1] != '/':
            try:
                path = getcwd() + '/' + path
            except OSError:
                return path
        parts = []
        for part in path.split('/'):
            if part == '..':
                if parts:
                    parts.pop()
            elif part != '' and part != '.':
                parts.append(part)
        return '/' + '/'.join(parts)

    def cache(path):
        return '/__pycache__/' in path or '/.pytest_cache/' in path or '/.mypy_cache/' in path

    def data_file(path, frame):
        if data_left[0] <= 0 or budget[0] <= 1000 or cache(path):
            return
        data_left[0] -= 1
        # The reader is the first tree frame up the stack, a few calls away for a test (pathlib,
        # json, a helper); a file the runner reads for itself (its configuration) has none, and each
        # step is an audited read of f_back, so the walk gives up after 12.
        by = ''
        steps = 0
        while frame is not None and steps < 12:
            name = frame.f_code.co_filename
            if type(name) is str and name.startswith(TREE):
                by = name
                break
            frame = frame.f_back
            steps += 1
        emit('data', 'p', path, 'by', by)

    def wrote(path):
        key = ('w', path)
        if key in seen or data_left[0] <= 0 or budget[0] <= 1000 or cache(path):
            return
        seen.add(key)
        data_left[0] -= 1
        emit('wrote', 'p', path)

    # The runner's own folders: its monkeypatch fixture sets attributes for whoever called it.
    runner_dirs = tuple(installed[top].rstrip('/') + '/' + top + '/' for top in runner if top in installed)

    FRAME_EVENTS = frozenset(('sys._getframe', 'sys._current_frames', 'sys.settrace', 'sys.setprofile',
                              'gc.get_objects', 'gc.get_referrers', 'gc.get_referents'))
    RESTRICTED = frozenset(('tb_frame', 'gi_frame', 'cr_frame', 'ag_frame', 'f_back', 'f_globals', 'f_locals'))
    type_getattr = type.__getattribute__
    object_getattr = object.__getattribute__
    CODE_SLOTS = frozenset(('__code__', '__defaults__', '__kwdefaults__'))
    module_type = type(sys)
    function_type = type(lambda: None)
    code_of = function_type.__code__.__get__
    modules = sys.modules
${pythonPlantedSource(WATCHED_MODULES)}
${pythonSwappedSource()}
${pythonBetweenSource(WATCHED_MODULES)}
${pythonLyingSource()}

    # The functions a test's verdict passes through: the assertion library and the runner's report
    # path. Their identities are taken when each module first shows up; a later replacement (a plain
    # class attribute assignment raises no audit event) is found by comparing identities.
    # The modules not taken yet: once all are, an import costs nothing here.
    pending = ${JSON.stringify(WATCHED_MODULES)}
    # (namespace, attribute, name, function): a module's __dict__ and a class's mappingproxy are both
    # live views, kept once so a comparison is one lookup per function, not a walk of the modules.
    originals = []
    # The same, one group per namespace (a module's functions, a class's members): (space, names,
    # functions), so compare() reads every watched slot with one \`itemgetter\` per namespace and
    # compares them all by identity in one pass in C (no == that a replacement's __eq__ could answer),
    # without a Python step per function; only a difference goes through the loop that says what changed.
    watched_groups = []
    # (groups compared, spaces, getters, functions) for the groups taken so far.
    watched_fast = [None]
    # With the accelerator, the same groups as [space, names, functions, places, version]: accel_moved()
    # says in one C call which groups have a slot whose key object is not at its place holding its
    # function (read only when the dict's version moved since they last all were).
    watched_at = []
    # What each of those groups names a slot by in a finding (module, class and a dot), by index.
    watched_prefix = []

    def snapshot():
        for name in tuple(pending):
            module = modules.get(name)
            if type(module) is not module_type:
                continue
            space = object_getattr(module, '__dict__')
            spec = space.get('__spec__')
            if spec is None or object_getattr(spec, '__dict__').get('_initializing', False):
                continue  # still running its own body: taken when it is done
            pending.remove(name)
            if accel is not None:
                # The same groups read in C (one call a module): a loop in Python over about 2,000
                # slots cost about 4 M instructions on python-calc's run.
                try:
                    groups = accel_watch(name, space)
                except Exception:
                    groups = None
                if groups is not None:
                    for namespace, keys, functions, places, prefix in groups:
                        watched_prefix.append(prefix)
                        watched_at.append([namespace, keys, functions, places, None])
                    continue
            group = ([], [])
            for attr, value in list(space.items()):
                if type(value) is function_type:
                    originals.append((space, attr, name + '.' + attr, value))
                    group[0].append(attr)
                    group[1].append(value)
                elif issubclass(type(value), type) and type_getattr(value, '__module__') == name:
                    qual = name + '.' + str(type_getattr(value, '__qualname__')) + '.'
                    members = type_getattr(value, '__dict__')
                    kept = ([], [])
                    for key, member in list(members.items()):
                        if type(member) is function_type or type(member) in (staticmethod, classmethod):
                            originals.append((members, key, qual + key, member))
                            kept[0].append(key)
                            kept[1].append(member)
                    watch_group(members, kept, qual)
            watch_group(space, group, name + '.')

    def watch_group(space, group, prefix):
        names, functions = group
        if not names:
            return
        if accel is not None:
            keys = tupled(names)
            watched_prefix.append(prefix)
            watched_at.append([space, keys, tupled(functions), accel_where(space, keys), None])
        if len(names) == 1:
            names, functions = names * 2, functions * 2  # itemgetter of one name returns no tuple
        watched_groups.append((space, itemgetter(*names), tupled(functions)))

    def replaced(space, attr, what, original):
        now = space.get(attr)
        if now is original:
            return
        by = ''
        if type(now) is function_type:
            by = code_of(now).co_filename
        key = ('replaced', what)
        if key not in seen:
            seen.add(key)
            emit('tamper', 'ev', 'replaced', 'what', what, 'by', str(by), 'line', 0)

    def compare():
        if accel is not None:
            # A slot may have moved without changing (the dict grew): each slot of a moved group is
            # looked up, and the places are taken again so that the next comparison is fast. By index:
            # a thread's snapshot may append while this runs, and a list allows that.
            for index in accel_moved(watched_at):
                group = watched_at[index]
                group[3] = accel_where(group[0], group[1])
                group[4] = None
                prefix = watched_prefix[index]
                for attr, original in zip(group[1], group[2]):
                    replaced(group[0], attr, prefix + str(attr), original)
            return
        state = watched_fast[0]
        if state is None or state[0] != len(watched_groups):
            groups = watched_groups[:]
            state = (len(groups), tupled(g[0] for g in groups), tupled(g[1] for g in groups),
                     tupled(chain_all(g[2] for g in groups)))
            watched_fast[0] = state
        try:
            if all(map(is_, chain_all(map(getter_call, state[2], state[1])), state[3])):
                return
        except Exception:
            pass  # a watched function deleted (KeyError): the loop below says which
        for space, attr, what, original in originals:
            replaced(space, attr, what, original)

    counter = [0]

    helper_files = {}
    # Frames of the last walk that found no tree code, bottom up, and their places in that list: from
    # each of them up, the first frame that is not a helper is not the tree's. A frame that is not a
    # generator's or a coroutine's runs once, without a pause, so while it is on the stack (the next
    # walk reaches it from the frame that asks) every frame above it is the one the last walk saw:
    # that walk stops there. The runner reads tracebacks all the time from deep in the same stack, and
    # each step of a walk costs a call of this hook (frame.f_code is audited). Frames are keys by
    # identity (never id(), which is audited too), held only until the next walk replaces them.
    clean = [[], {}]
    RESUMABLE = 0x20 | 0x80 | 0x100 | 0x200  # CO_GENERATOR, CO_COROUTINE, CO_ITERABLE_COROUTINE, CO_ASYNC_GENERATOR

    def blamed(frame):
        # The tree file and line of who asked: the first frame, walking up past the helpers that set
        # attributes for a caller (mock, the runner's monkeypatch, inspect), or None when it is not the tree's.
        chain, known = clean
        walked = []
        rest = []
        while frame is not None:
            at = known.get(frame)
            if at is not None:
                rest = chain[at:]
                break
            code = frame.f_code
            name = code.co_filename
            helper = helper_files.get(name)
            if helper is None:
                # Never a file of the tree, whatever its name (src/pkg/inspect.py is the tree's code).
                helper = not name.startswith(TREE) and (name.endswith('/unittest/mock.py') or name.startswith(runner_dirs) or name.endswith('/inspect.py'))
                helper_files[name] = helper
            if not helper and type(name) is str and name.startswith(TREE):
                return name, frame.f_lineno
            if not code.co_flags & RESUMABLE:
                walked.append(frame)
            if not helper:
                break
            frame = frame.f_back
        chain = walked + rest
        clean[0] = chain
        clean[1] = {f: i for i, f in enumerate(chain)}
        return None

    if accel is not None:
        # The same walk in C: each step read through the C API, which raises no audit event (in Python
        # every f_code and f_back is one, a call of this hook: pytest formatting a failure's traceback
        # walks its whole stack, about 3.7 M instructions on python-calc). It keeps the clean frames
        # as the walk above does (about 2.5 M instructions on python-calc without them).
        HELPER_ENDS = ('/unittest/mock.py', '/inspect.py')

        def blamed(frame):
            return accel_blame(frame, TREE, runner_dirs, HELPER_ENDS)

    def tamper(event, what, frame):
        if frame is None:
            return
        who = blamed(frame)
        if who is not None:
            key = (event, what, who[0])
            if key not in seen:
                seen.add(key)
                emit('tamper', 'ev', event, 'what', what, 'by', who[0], 'line', who[1])

    def observe(event, args):
        if event == 'ranex.loaded':
            loaded(args)
            return
        if event == 'ranex.between':
            between(args)
            return
        if event == 'open':
            path = args[0]
            if type(path) is not str:
                return
            if path[:1] != '/' or '/./' in path or '/../' in path:
                path = tree_path(path)
            inside = path.startswith(TREE)
            mode = args[1]
            reading = (args[2] & 3) == 0 if mode is None else ('r' in mode or '+' in mode)
            if inside:
                if reading:
                    tree_read[0] = True
                if reading and path not in seen:
                    if early_names[0] is None and path.endswith(('.py', '.pyc', '.so')):
                        early_snapshot()
                        swapped_start()
                        snapshot()
                    if code_file(path):
                        data_file(path, caller())
                if not reading or '+' in (mode or ''):
                    wrote(path)
            elif not reading:
                # A report being written outside the tree: what it says must come from the real functions.
                snapshot()
                compare()
                if REPORT is not None:
                    report_guard(event, args, caller())
            return
        if event == 'import':
            # The watched modules are taken when the tree's first code file is opened (none of it has
            # run yet) and, after that, as each finishes loading (loaded()); only without that message
            # to wrap is each import the moment (264 calls on python-calc's run: 3.6 M instructions).
            if pending and early_names[0] is not None and loaded_code[0] is None:
                snapshot()
            if not tree_read[0]:
                return  # before any code of the tree ran, nothing of it can have replaced a watched function
            counter[0] += 1
            if counter[0] % 25 == 0:
                compare()
            frame = caller()
            importer = frame.f_code.co_filename if frame is not None else None
            if type(importer) is str and importer.startswith(TREE):
                key = ('imp', args[0], importer)
                if key not in seen:
                    seen.add(key)
                    emit('imp', 'n', str(args[0]), 'by', importer)
            return
        if not tree_read[0]:
            return  # nothing of the tree can be on the stack yet: no frame to walk, nobody to blame
        if event in REPORT_EVENTS:
            report_guard(event, args, caller())
            return
        if event in FRAME_EVENTS or event.startswith('ctypes.'):
            tamper(event, event, caller())
        elif event == 'object.__setattr__' or event == 'object.__delattr__':
            target = args[0]
            if type(target) is function_type:
                # A standard or runner function whose code or defaults are replaced in place keeps its
                # identity, name and globals: no slot changes, so only this event shows it.
                if args[1] in CODE_SLOTS:
                    module = object_getattr(target, '__module__')
                    if type(module) is str and (module.split('.', 1)[0] in stdlib or module.split('.', 1)[0] in runner):
                        tamper(event, module + '.' + str(object_getattr(target, '__qualname__')) + '.' + str(args[1]), caller())
                return
            if not issubclass(type(target), type):
                return
            module = type_getattr(target, '__module__')
            if type(module) is str and (module.split('.', 1)[0] in stdlib or module.split('.', 1)[0] in runner):
                tamper(event, module + '.' + str(type_getattr(target, '__qualname__')) + '.' + str(args[1]), caller())
        elif event == 'object.__getattr__':
            if args[1] in RESTRICTED:
                tamper(event, str(args[1]), caller())

    def caller():
        try:
            return getframe(3)
        except ValueError:
            return None

    # The events observe() acts on. Most of what Python audits (exec, compile, marshal.loads on every
    # import, object.__getattr__ of __code__ and __defaults__) says nothing the record keeps: the hook
    # runs on each of them, so those leave after one set lookup, before any other work.
    RELEVANT = frozenset(('open', 'import', 'object.__setattr__', 'object.__delattr__', 'ranex.loaded', 'ranex.between')) | FRAME_EVENTS | REPORT_EVENTS

    def hook(event, args):
        # Never raises: an exception here would abort whatever the code was doing.
        try:
            if event not in RELEVANT:
                if event == 'object.__getattr__':
                    if args[1] not in RESTRICTED:
                        return
                elif event[:7] != 'ctypes.':
                    return
            if busy[0]:
                return
            busy[0] = True
            try:
                observe(event, args)
            finally:
                busy[0] = False
        except Exception:
            pass

    def at_exit():
        busy[0] = True
        clean[0] = []
        clean[1] = {}
        if accel is not None:
            accel.forget()
        try:
            snapshot()
            compare()
            planted_scan()
            swapped_scan(scanned_names[0])
            tree_swapped_scan()
            unloaded_scan()
            for name, module in list(modules.items()):
                if type(module) is not module_type:
                    continue
                path = object_getattr(module, '__dict__').get('__file__')
                if type(path) is str and path.startswith(TREE):
                    code_file(path)
                    # Which name each tree module was loaded as: the frozen tests' own import
                    # statements are resolved with it (an import event fires only on a first load).
                    # A few lines are left for the end line.
                    if budget[0] > 8:
                        emit('mod', 'n', str(name), 'p', path)
            emit('end', 'nonce', nonce)
        finally:
            # Held to the interpreter's end, the functions (and through them every module's globals)
            # cost its finalization about 1 % of python-calc's pytest run (issue 19, measured).
            del originals[:]
            del kept_spaces[:]
            tree_kept.clear()
            del watched_now[:]
            del watched_groups[:]
            del watched_at[:]
            del watched_prefix[:]
            watched_fast[0] = None
            busy[0] = False

    # The hook: behind the accelerator's filter in C when it loaded (its first install, this one;
    # another is refused), else as Python's own. Installed before the start line, which says which.
    if accel is not None:
        try:
            accel.install(hook, RELEVANT, RESTRICTED, TREE)
        except Exception:
            accel = None  # its comparisons are left too: one path or the other, whole
    if accel is None:
        sys.addaudithook(hook)
    emit('start', 'lang', 'python', 'accel', 1 if accel is not None else 0, 'nonce', nonce, 'ppid', posix.getppid(), 'exe', str(sys.executable), 'argv', ' '.join(str(a) for a in sys.orig_argv[:12]))
    # Modules already loaded (the interpreter's start imports them before any site code) from the tree.
    for name, module in list(sys.modules.items()):
        path = getattr(module, '__file__', None)
        if type(path) is str and path.startswith(TREE):
            tree_read[0] = True
            if accel is not None:
                accel.tree_read()  # the C filter then passes the events it held back until a file of the tree was read
            code_file(path)
    import atexit
    atexit.register(at_exit)
    snapshot()
    # This folder on sys.path made every import of the run look in it first (about 0.6 % of
    # python-calc's pytest run): it holds nothing to import once this module ran. PYTHONPATH keeps it
    # for the run's other Python processes.
    here = __file__.rpartition('/')[0] if type(globals().get('__file__')) is str else None
    while here in sys.path:
        sys.path.remove(here)


_ranex_provenance()
del _ranex_provenance
`;
}
