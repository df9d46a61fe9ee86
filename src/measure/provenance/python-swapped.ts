// A third check of the Python hook (./python-hook.ts), from the third red team of issue 19: a slot of
// a module that is not the tree's given ANOTHER object that is not the tree's either. The planted walk
// (./python-planted.ts) looks for the tree's own code, and the watched identities cover the runner's
// report path; neither sees `statistics.median = callable` (a frozen test's oracle now answers False,
// which equals the 0 the undone code returns), `operator.eq = operator.is_not`, `math.isclose = max`,
// `functools.partial(min, default=0)` or a Mock put in a slot, or `sys.modules['x']` pointed at
// another module object. Such a swap cannot pick a test (choosing needs code, and code of the tree is
// planted), so the canaries catch it on the assertion path; it is the oracle a frozen test compares
// with that they never touch.
//
// What it keeps: a copy of every plain module's namespace (`dict.copy`, in C), for the modules loaded
// when the tree's first code file is opened (before any of it runs), and for each module loaded after
// that when it is loaded (the import system's own "import {!r} # {!r}" message, sent by importlib
// right after a module's body ran, is where: the gate wraps `importlib._bootstrap._verbose_message`
// from then on, and the wrapper raises an audit event of its own that the hook handles). At exit the
// namespaces the planted walk reads are compared with their copies by identity in C (`map(is_, …)`),
// and only a namespace where something changed is walked: a slot whose old or new
// value is callable (a function, a class, a builtin, a partial, a bound method) or a descriptor is a
// finding, `swapped`, naming the slot and both values. Data (counters, caches, settings) is left out.
//
// What the runner itself changes (a hook slot it sets and never puts back) happens on the base too:
// the judgment (./judge.ts) blames only the swaps the base run's record does not have.
//
// The text below is Python, spliced into the hook's closure (4 spaces deep) after the planted check.

/** Swapped slots reported per process at most: the rest are counted as one more line. */
export const SWAPPED_PER_PROCESS = 40;

export function pythonSwappedSource(): string {
  return `
    # --- Slots swapped for other objects that are not the tree's (./python-swapped.ts) ---
    kept_spaces = []
    # The tree's own modules, kept apart: a finding there names the module's file, which the judgment
    # holds to the diff (a module the change modified is its own to rewrite; ./judge.ts).
    tree_kept = {}
    tree_said = set()
    NOT_KEPT = frozenset(('__main__', '__mp_main__', 'sitecustomize', 'usercustomize'))
    kept_names = set()
    absent = ([],)
    call_check = callable
    DESCRIPTORS = (classmethod, property, staticmethod)
    builtin_type = type(len)
    function_qual = function_type.__dict__['__qualname__'].__get__
    builtin_qual = builtin_type.__dict__['__qualname__'].__get__
    builtin_module = builtin_type.__dict__['__module__'].__get__
    type_qual = type.__dict__['__qualname__'].__get__
    type_module = type.__dict__['__module__'].__get__

    # Every name the import system loaded a module under (and every name at the start): what is in
    # sys.modules under a standard library name and not here was put there by hand (./python-between-tests.ts,
    # which adds the names it is done with).
    imported = set()

    def keep(name, module):
        imported.add(name)
        # The namespace as its module's own body left it: a copy, made in C (two tuples of its names
        # and values cost more than twice as much: 5.2 M instructions on python-calc's pytest run). The script's own namespace and this hook's module change as they run. Only
        # plain modules: a subclass's __dict__ can be code (the py library's lazy modules import
        # everything they name when it is read: 33 M instructions on python-calc's pytest run).
        if type(module) is not module_type or type(name) is not str or name in kept_names or name in NOT_KEPT:
            return
        space = object_getattr(module, '__dict__')
        path = space.get('__file__')
        if type(path) is str and path.startswith(TREE):
            # Taken again when its body has run (the import system's message below): the first tree
            # module is in sys.modules, still empty, when its file is opened and the copies start.
            tree_kept[name] = (space, space.copy(), path)
            return
        kept_names.add(name)
        kept_spaces.append((name, module, space, space.copy()))

    def text(value):
        return value if type(value) is str else '?'

    def describe(value):
        # Read through the types' own descriptors: no attribute lookup that an object could answer.
        if value is absent:
            return 'nothing'
        kind = type(value)
        try:
            if kind is function_type:
                return text(globals_of(value).get('__name__')) + '.' + text(function_qual(value))
            if kind is module_type:
                return 'module ' + text(object_getattr(value, '__dict__').get('__name__'))
            if kind is builtin_type:
                return text(builtin_module(value)) + '.' + text(builtin_qual(value))
            if issubclass(kind, type):
                return text(type_module(value)) + '.' + text(type_qual(value))
            return 'an object of ' + text(type_module(kind)) + '.' + text(type_qual(kind))
        except Exception:
            return '?'

    def own_definition(name, space, key, value):
        # The module's own function or class under its own name, back in its slot: a patch the runner
        # had in place when the copy was taken (pytest's warnings capture during collection) and has
        # put back since. \`statistics.median = statistics.median_low\` is not its own name.
        kind = type(value)
        if kind is function_type:
            return globals_of(value) is space and function_qual(value) == key
        if issubclass(kind, type):
            return type_module(value) == name and type_qual(value) == key
        return False

    def code_like(value):
        return value is not absent and (call_check(value) or type(value) in DESCRIPTORS)

    def swapped_scan(scanned):
        # Only the namespaces the planted walk reads too (\`scanned\`: what the tree's modules hold or
        # import from, the runner's and the report writer's, builtins, and every module loaded after
        # the tree's first code file): a comparison of all of them cost 7 M instructions. Each is
        # compared with its copy by identity in C; only one where something changed is walked.
        # With the accelerator, one C call says which namespaces are not exactly their copies (the same
        # key and value objects in the same order): about 30 instructions a slot against about 480.
        left = ${SWAPPED_PER_PROCESS}
        chosen = [entry for entry in kept_spaces if entry[0] in scanned]
        moved = None
        if accel is not None:
            try:
                moved = frozenset(accel_differ([entry[2] for entry in chosen], [entry[3] for entry in chosen]))
            except Exception:
                moved = None
        for index, (name, module, space, copy) in enumerate(chosen):
            now_module = modules.get(name)
            if now_module is not None and now_module is not module and left > 0:
                left -= 1
                emit('tamper', 'ev', 'swapped', 'what', 'sys.modules[' + name + '] (was ' + describe(module) + ', now ' + describe(now_module) + ')', 'by', '', 'line', 0)
            if index not in moved if moved is not None else all(map(is_, map(space.get, copy), copy.values())):
                continue
            for key, old in list(copy.items()):
                new = space.get(key, absent)
                if new is old or not (code_like(old) or code_like(new)) or own_definition(name, space, key, new):
                    continue
                if (name + ':' + str(key)) in SLOTS:
                    continue
                if left <= 0:
                    emit('tamper', 'ev', 'swapped', 'what', 'more slots (not listed)', 'by', '', 'line', 0)
                    return
                left -= 1
                emit('tamper', 'ev', 'swapped', 'what', name + '.' + str(key) + ' (was ' + describe(old) + ', now ' + describe(new) + ')', 'by', '', 'line', 0)

    def tree_swapped_scan():
        # A function of the tree's own module (a helper the frozen tests import, an oracle) replaced
        # since its body ran: \`setattr(shapes.testing, 'assert_close', lenient)\` from the code under
        # test that a frozen test imports before it takes the helper was a CANDIDATE (the test then
        # binds the replacement). What the module does to its own names (its own function back under
        # its own name) is left out, as above.
        # Also when the tests start and after each test's call (./python-between-tests.ts): a swap put
        # back from atexit once the frozen test had bound it. Each slot is said once.
        for name, (space, copy, path) in list(tree_kept.items()):
            if all(map(is_, map(space.get, copy), copy.values())):
                continue
            for key, old in list(copy.items()):
                new = space.get(key, absent)
                # Only a function (or class, descriptor) the module's body left: a slot the module
                # fills later itself (\`_parser = None\`, set on first use) is its own.
                if new is old or not code_like(old) or own_definition(name, space, key, new):
                    continue
                what = name + '.' + str(key) + ' (was ' + describe(old) + ', now ' + describe(new) + ')'
                if what in tree_said:
                    continue
                if len(tree_said) >= ${SWAPPED_PER_PROCESS}:
                    return
                tree_said.add(what)
                emit('tamper', 'ev', 'exports', 'what', what, 'by', path, 'line', 0)

    # Where a module loaded later is kept: importlib says "import {!r} # {!r}" right after the
    # module's body ran and before its importer gets it back. Python's -v is the only reader of that
    # message; the wrapper keeps it working. It holds nothing but the original and sys.audit, and it
    # is put in place only when the tree's first code file is opened (before any of it runs): the
    # modules loaded until then are kept at once, so pytest's own start-up pays nothing per import.
    bootstrap = modules.get('_frozen_importlib')
    verbose_original = getattr(bootstrap, '_verbose_message', None)
    loaded_code = [None]

    def swapped_start():
        if verbose_original is not None:
            wrap_loader_message()
        if accel is not None:
            # The same keep() for every module at once, in C; what it cannot decide comes back.
            try:
                left = accel_keep(modules, imported, kept_names, NOT_KEPT, kept_spaces)
            except Exception:
                left = None
            if left is not None:
                for name in left:
                    keep(name, modules.get(name))
                return
        for name, module in list(modules.items()):
            keep(name, module)

    def wrap_loader_message():
        message_text = 'import {!r} # {!r}'
        audit = sys.audit
        level = sys.flags.verbose

        def _verbose_message(message, *args, verbosity=1):
            if message == message_text and args:
                audit('ranex.loaded', args[0])
            if level >= verbosity:
                return verbose_original(message, *args, verbosity=verbosity)
        loaded_code[0] = _verbose_message.__code__
        bootstrap._verbose_message = _verbose_message

    def loaded(args):
        # Only the wrapper's own call counts: any code can raise an audit event by name.
        try:
            frame = getframe(3)  # loaded, observe, hook, then the frame that raised the event
        except ValueError:
            frame = None
        if frame is not None and frame.f_code is loaded_code[0] and args:
            name = args[0]
            keep(name, modules.get(name))
            if pending:
                snapshot()  # a watched module that finished loading (./python-hook.ts)
`;
}
