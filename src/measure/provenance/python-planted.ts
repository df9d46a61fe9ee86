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

/** Module attributes that the standard library's own setters fill with the caller's class or object. */
const REGISTRATION_SLOTS: readonly (readonly [string, string])[] = [
  ["logging", "_loggerClass"], ["logging", "_logRecordFactory"], ["asyncio.events", "_event_loop_policy"],
];

export function pythonPlantedSource(): string {
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

    # The modules (and their classes) loaded before any code of the tree ran, with a copy of each
    # namespace: at exit a namespace whose values are still the same objects, one by one (compared
    # by identity at C speed, never with ==, which could call the tree's __eq__), needs no walk.
    from _operator import is_ as same
    early = []
    early_classes = []
    early_names = set()
    snapped = [False]

    def same_values(now, then):
        return len(now) == len(then) and all(map(same, now.values(), then.values()))

    def early_snapshot():
        # Called when the first code file of the tree is opened, before any of it runs.
        snapped[0] = True
        for name, module in list(modules.items()):
            if type(module) is not module_type or type(name) is not str:
                continue
            space = object_getattr(module, '__dict__')
            path = space.get('__file__')
            if type(path) is str and path.startswith(TREE):
                continue
            early_names.add(name)
            early.append((name, space, space.copy()))
            for value in [v for v in space.values() if issubclass(type(v), type)]:
                if type_getattr(value, '__module__') == name:
                    members = type_getattr(value, '__dict__')
                    early_classes.append((name, value, members, members.copy()))

    def planted_scan():
        top_names = stdlib | runner
        for name, space, then in early:
            if same_values(space, then):
                continue
            for attr, value in list(space.items()):
                if then.get(attr, then) is not value:
                    planted_value(name, attr, value)
        for name, cls, members, then in early_classes:
            if same_values(members, then):
                continue
            qual = name + '.' + str(type_getattr(cls, '__qualname__')) + '.'
            for key, member in list(members.items()):
                if then.get(key, then) is not member:
                    planted_member(qual + str(key), member)
        # Modules loaded after the tree's code began: walked whole (a function of the module itself,
        # the common case, leaves after an identity test of its globals).
        for name, module in list(modules.items()):
            if type(module) is not module_type or type(name) is not str or name in early_names:
                continue
            space = object_getattr(module, '__dict__')
            path = space.get('__file__')
            if type(path) is str and path.startswith(TREE):
                if name.split('.', 1)[0] in top_names:
                    planted('sys.modules[' + name + ']', path)
                continue
            for attr, value in list(space.items()):
                kind = type(value)
                if kind in PLAIN or (kind is function_type and globals_of(value) is space):
                    continue
                if kind is not function_type and issubclass(kind, type) and type_getattr(value, '__module__') == name:
                    qual = name + '.' + str(type_getattr(value, '__qualname__')) + '.'
                    for key, member in list(type_getattr(value, '__dict__').items()):
                        if type(member) is not function_type or globals_of(member) is not space:
                            planted_member(qual + str(key), member)
                    continue
                planted_value(name, attr, value)
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
