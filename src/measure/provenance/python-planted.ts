// Two checks of the Python hook (./python-hook.ts) found by a fresh red team (issue 19): code under
// test shares the runner's process, and a plain attribute assignment raises no audit event, so the
// watched functions' identities saw only the ones they listed. These close the classes instead:
//
// - **Planted code, checked once at exit** (`planted_scan`): no function, method, property or class
//   of the tree, nor an object of a class of the tree, may sit in a module that is not the tree's
//   (the standard library, `builtins`, the runner, its plugins, installed distributions), on a class
//   such a module defines, or on `sys.meta_path`/`sys.path_hooks`; and no module of the tree may be
//   registered under a name of the standard library or the runner. Before tree code runs none of
//   them exists, so nothing needs a snapshot: `statistics.median = f`, `ElementTree.Element =
//   Subclass`, `TestReport.passed = property(...)`, `unittest.case._Outcome = Subclass`,
//   `builtins.sorted = f`, a finder on the meta path are all the same finding. The owner's frozen
//   files doing it are listed, not blamed (./judge.ts). A few registration slots that the standard
//   library's own setters fill (`logging.setLoggerClass`, `asyncio.set_event_loop_policy`) are not
//   planting. One walk of the loaded modules' namespaces at exit: no per-event work.
// - **The report is the runner's to write** (`report_guard`): the report path (`$RANEX_JUNIT`, read
//   when the hook starts, before any tree code) opened for writing, renamed, linked, copied or
//   truncated onto (by path or by the same inode) with tree code on the stack, or a process started
//   by tree code after the runner wrote the report, is tampering. Honest tests write files all the
//   time, never the report. These events are rare, so the cost is only where they happen.
//
// The text below is Python, spliced into the hook's closure (4 spaces deep): it uses the hook's
// captured built-ins (`emit`, `seen`, `modules`, `TREE`, `object_getattr`, ...), never a module
// attribute that code under test could replace.

/** Audit events the report guard acts on (besides `open`): writes onto a path, and process starts. */
export const REPORT_EVENTS: readonly string[] = [
  "os.rename", "os.link", "os.symlink", "os.truncate", "os.remove", "shutil.copyfile", "shutil.copytree",
  "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
];

/** Top-level modules walked at exit whenever they are loaded (besides the runner's): the report's writers and builtins. */
const WALKED_TOPS: readonly string[] = ["builtins", "unittest", "xml", "json", "io", "sys", "importlib", "site"];

/** Modules whose classes are walked too, besides the watched ones and those the tree uses or loaded late. */
const CLASSES_WALKED: readonly string[] = ["builtins", "pytest", "_pytest.nodes", "_pytest._code.code", "_pytest.fixtures", "unittest.suite", "unittest.loader", "xml.etree.ElementTree"];

/** Module attributes that the standard library's own setters fill with the caller's class or object. */
const REGISTRATION_SLOTS: readonly (readonly [string, string])[] = [
  ["logging", "_loggerClass"], ["logging", "_logRecordFactory"], ["asyncio.events", "_event_loop_policy"],
];

export function pythonPlantedSource(watched: readonly string[]): string {
  return `
    # --- Planted code and the report's writer (./python-planted.ts) ---
    try:
        REPORT = posix.environ.get(b'RANEX_JUNIT')
        REPORT = REPORT.decode('utf-8', 'surrogateescape') if REPORT else None
    except Exception:
        REPORT = None
    pstat = posix.stat
    report_written = [False]
    REPORT_EVENTS = frozenset(${JSON.stringify(REPORT_EVENTS)})
    SPAWNS = frozenset(('subprocess.Popen', 'os.system', 'os.exec', 'os.posix_spawn', 'os.spawn', 'os.fork', 'os.forkpty'))
    SLOTS = frozenset(${JSON.stringify(REGISTRATION_SLOTS.map(([m, a]) => `${m}:${a}`))})
    method_type = type((lambda: 0).__get__(0))
    PLAIN = frozenset((str, int, float, bool, bytes, tuple, frozenset, dict, list, set, type(None), module_type,
                       type(len), type(object.__init__), type(str.join), type(object().__str__)))
    tree_named = {}
    globals_of = function_type.__globals__.__get__

    def tree_file_of(name):
        hit = tree_named.get(name, 0)
        if hit == 0:
            module = modules.get(name) if type(name) is str else None
            path = object_getattr(module, '__dict__').get('__file__') if type(module) is module_type else None
            hit = path if type(path) is str and path.startswith(TREE) else None
            tree_named[name] = hit
        return hit

    def function_origin(function, space):
        # Where a function was defined, from its globals (reading __globals__ raises no audit event,
        # reading __code__ does): only a function made in globals without a file (exec) is asked its code.
        path = space.get('__file__')
        if type(path) is not str:
            path = code_of(function).co_filename
        return path if type(path) is str and path.startswith(TREE) else None

    def origin(value, depth):
        # The tree file a function, method, property or class comes from, or an object's class; else None.
        kind = type(value)
        if kind is function_type:
            return function_origin(value, globals_of(value))
        if kind in PLAIN or depth > 2:
            return None
        if kind is staticmethod or kind is classmethod or kind is method_type:
            return origin(object_getattr(value, '__func__'), depth + 1)
        if kind is property:
            return origin(object_getattr(value, 'fget'), depth + 1) or origin(object_getattr(value, 'fset'), depth + 1)
        if issubclass(kind, type):
            return tree_file_of(type_getattr(value, '__module__'))
        if type_getattr(kind, '__name__') == 'partial':
            try:
                return origin(object_getattr(value, 'func'), depth + 1)
            except Exception:
                return None
        return tree_file_of(type_getattr(kind, '__module__'))

    def planted(what, by):
        key = ('planted', what, by)
        if key not in seen:
            seen.add(key)
            emit('tamper', 'ev', 'planted', 'what', what, 'by', by, 'line', 0)

    def planted_member(qual, member):
        kind = type(member)
        if kind is function_type or kind is property or kind is staticmethod or kind is classmethod:
            by = origin(member, 0)
            if by is not None:
                planted(qual, by)

    def planted_value(name, attr, value):
        by = origin(value, 0)
        if by is not None and (name + ':' + str(attr)) not in SLOTS:
            planted(name + '.' + str(attr), by)

    # The modules loaded before any code of the tree ran (names only: a copy of the key set). Those
    # loaded later are walked whole at exit; of the earlier ones only the runner's, the report
    # writer's, builtins and the ones the tree's own modules use (a frozen test's oracle), since a
    # walk of every namespace and class costs about 20 M instructions on a small pytest run.
    WALKED = frozenset(${JSON.stringify(WALKED_TOPS)})
    CLASSES_WALKED = frozenset(${JSON.stringify([...watched, ...CLASSES_WALKED])})
    early_names = [None]
    # The namespaces the walk read, for the swapped-slot check (./python-swapped.ts).
    scanned_names = [{}]

    def early_snapshot():
        # Called when the first code file of the tree is opened, before any of it runs.
        early_names[0] = set(modules)

    # Kinds of value that can hold no code of the tree (a str, a compiled pattern, a logger: any object
    # of a class that is not the tree's), learnt as the walk meets them; and the wrappers that can.
    plain_kinds = set(PLAIN)
    # A built-in class (int, str, a C module's) cannot be given an attribute (Py_TPFLAGS_IMMUTABLETYPE:
    # TypeError), so its members are not walked.
    IMMUTABLE = 1 << 8
    WRAPPERS = {staticmethod, classmethod, property, method_type}

    def foreign(function, space):
        # A function found in a namespace it was not defined in: the tree's, unless its globals name a file elsewhere.
        home = globals_of(function)
        if home is space:
            return False
        path = home.get('__file__')
        return not (type(path) is str and not path.startswith(TREE))

    def planted_item(name, space, classes, attr, value):
        # One entry of a namespace walked: its common paths read a function's own attributes (the
        # type's descriptors, which nothing can override) rather than call the captured getters.
        kind = type(value)
        if kind in plain_kinds:
            return
        if kind is function_type:
            if value.__globals__ is not space and foreign(value, space):
                planted_value(name, attr, value)
            return
        if kind in WRAPPERS:
            planted_value(name, attr, value)
            return
        if issubclass(kind, type):
            owner = type_getattr(value, '__module__')
            if owner != name or not classes or type_getattr(value, '__flags__') & IMMUTABLE:
                if owner != name and tree_file_of(owner) is not None:
                    planted_value(name, attr, value)
                return
            planted_members(name, space, value, list(type_getattr(value, '__dict__').items()))
            return
        if type_getattr(kind, '__name__') == 'partial':
            WRAPPERS.add(kind)
            planted_value(name, attr, value)
        elif tree_file_of(type_getattr(kind, '__module__')) is None:
            plain_kinds.add(kind)
        else:
            planted_value(name, attr, value)

    def planted_members(name, space, value, members):
        qual = None
        for key, member in members:
            held = type(member)
            if held is function_type:
                if member.__globals__ is space or not foreign(member, space):
                    continue
            elif held not in WRAPPERS:
                continue
            qual = qual or name + '.' + str(type_getattr(value, '__qualname__')) + '.'
            planted_member(qual + str(key), member)

    def planted_walk(name, space, classes):
        # Every name of every namespace walked (about 5,000 on python-calc, 7 M instructions in
        # Python): with the accelerator, C reads them all and hands over only the entries the loop
        # would look at (not a kind known to be plain, not a function of the namespace's own globals,
        # not a class of the module whose members are all such), about 1 in 10.
        picked = None
        if accel is not None:
            try:
                picked = accel_suspects(name, space, classes, plain_kinds)
            except Exception:
                picked = None
        if picked is None:
            for attr, value in list(space.items()):
                planted_item(name, space, classes, attr, value)
            return
        for entry in picked:
            if len(entry) == 3:
                planted_members(name, space, entry[1], entry[2])
            else:
                planted_item(name, space, classes, entry[0], entry[1])

    def planted_scan():
        top_names = stdlib | runner
        before = early_names[0] or ()
        wanted = {}
        tree_spaces = []
        for name, module in list(modules.items()):
            if type(module) is not module_type or type(name) is not str:
                continue
            space = object_getattr(module, '__dict__')
            path = space.get('__file__')
            if type(path) is str and path.startswith(TREE):
                if name.split('.', 1)[0] in top_names:
                    planted('sys.modules[' + name + ']', path)
                tree_spaces.append(space)
            elif name not in before or name in CLASSES_WALKED:
                wanted[name] = True
            elif name.split('.', 1)[0] in WALKED:
                wanted[name] = False
        # The modules the tree's own modules hold or import from: what a frozen test compares with.
        for space in tree_spaces:
            for value in list(space.values()):
                kind = type(value)
                if kind is module_type:
                    used = object_getattr(value, '__dict__').get('__name__')
                elif kind is function_type:
                    used = globals_of(value).get('__name__')
                elif issubclass(kind, type):
                    used = type_getattr(value, '__module__')
                else:
                    continue
                if type(used) is str and not wanted.get(used, False):
                    wanted[used] = True
        scanned_names[0] = wanted
        for name, classes in list(wanted.items()):
            module = modules.get(name)
            if type(module) is not module_type:
                continue
            space = object_getattr(module, '__dict__')
            path = space.get('__file__')
            if not (type(path) is str and path.startswith(TREE)):
                planted_walk(name, space, classes)
        for label, entries in (('sys.meta_path', sys.meta_path), ('sys.path_hooks', sys.path_hooks)):
            for entry in list(entries):
                by = origin(entry, 0)
                if by is not None:
                    planted(label, by)

    def tree_on_stack(frame):
        while frame is not None:
            name = frame.f_code.co_filename
            if type(name) is str and name.startswith(TREE):
                return name, frame.f_lineno
            frame = frame.f_back
        return None

    def is_report(path):
        if REPORT is None or type(path) is not str:
            return False
        if path == REPORT:
            return True
        try:
            one, two = pstat(path), pstat(REPORT)
        except (OSError, ValueError):
            return False
        return one.st_ino == two.st_ino and one.st_dev == two.st_dev

    def report_guard(event, args, frame):
        # The report is written by the runner, once; tree code on the stack of a write to it, or of a
        # process started after it, is forging it.
        if event in SPAWNS:
            if not report_written[0]:
                return
            how = 'started a process after the report was written'
        else:
            target = args[1] if event in ('os.rename', 'os.link', 'os.symlink', 'shutil.copyfile', 'shutil.copytree') else args[0]
            if not is_report(target):
                return
            how = 'wrote the test report (' + event + ')'
        who = tree_on_stack(frame)
        if who is None:
            if event == 'open':
                report_written[0] = True
            return
        key = ('report', how, who[0])
        if key not in seen:
            seen.add(key)
            emit('tamper', 'ev', 'report', 'what', how, 'by', who[0], 'line', who[1])
`;
}
