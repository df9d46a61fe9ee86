// A check of the Python hook (./python-hook.ts) that looks while the tests run, not only at exit (issue
// 19, the open classes of docs/measurement.md): code under test that swaps an oracle or an assertion
// only for a while, and puts it back before the process ends with \`setattr\` itself (from \`atexit\`, a
// \`weakref.finalize\`, a timer thread, a later test's call), leaves no tree code on the stack and
// nothing to compare at exit. A plain attribute assignment, on a module or a class, raises no audit
// event (only a few setters do: \`__code__\`, \`__module__\`, \`__bases__\`), so the hook must look.
//
// When: the gate's own pytest plugin (built here, in the hook, registered through PYTEST_PLUGINS
// and taken out of \`sys.modules\` before any code of the tree runs) raises an audit event when the
// tests start (after collection), and before and after each test's call phase (a hookwrapper of
// \`pytest_runtest_call\`, first of all: after the test's setup, before its teardown; unittest cases
// run through pytest get the same). The hook believes only events raised by the plugin's own code
// objects, which it holds.
//
// What: the namespaces a frozen test compares with (the modules the tree's modules hold or import
// from, the watched modules, builtins), compared with the copies the swapped-slot check kept before
// any code of the tree ran (./python-swapped.ts), and the classes those modules define (not the
// watched ones', which compare() covers) with copies taken when the tests start; by identity in C,
// walked only where something changed. A function, class or descriptor slot that changed during a
// test's call, or before the first test (at collection), is a finding, \`between\`, naming the slot,
// both values and the test. A slot the test's own \`monkeypatch\` fixture set (its records, read by the
// plugin) is the test's, not a finding; a fixture's own patches are made in its setup and undone in
// its teardown, outside the window. The judgment (./judge.ts) drops those the base run has too.
//
// The text below is Python, spliced into the hook's closure (4 spaces deep) after the swapped-slot
// check: it uses the hook's captured built-ins, never a module attribute code under test could replace.

/** The pytest plugin's name (PYTEST_ADDOPTS `-p`): a module the hook builds, never a file. */
export const BETWEEN_PLUGIN = "ranex_between";

/** Findings of the per-test check per process at most. */
export const BETWEEN_PER_PROCESS = 20;

/**
 * PYTEST_PLUGINS for a run whose Python processes get the hook: pytest imports the plugin by name
 * (the hook's module) before any conftest. Not \`-p\` in PYTEST_ADDOPTS: pytest parses its options a
 * second time for that (6 M instructions on python-calc's run, against none for this).
 */
export function betweenPluginEnv(own: string | undefined): string {
  return [own, BETWEEN_PLUGIN].filter((p) => p !== undefined && p !== "").join(",");
}

export function pythonBetweenSource(watched: readonly string[]): string {
  return `
    # --- Slots swapped while the tests run (./python-between-tests.ts) ---
    # The plugin's functions take what they call as defaults (pluggy passes hook arguments by name and
    # leaves those out) and close over nothing of the hook. pluggy reads \`pytest_impl\` (what
    # \`pytest.hookimpl\` sets) without pytest imported.
    def pytest_runtestloop(session, audit=sys.audit, getter=getattr, text=str, tupled=tuple):
        # The collected tests' own modules: their namespaces are what a frozen test's body reads.
        names = {}
        try:
            for item in session.items:
                name = getter(getter(item, 'module', None), '__name__', None)
                if type(name) is str:
                    names[name] = True
        except Exception:
            pass
        audit('ranex.between', 'tests', '', tupled(names))
        yield

    # The one hook the plugin has per test: every per-test look hangs on it, the lying-values checks'
    # (./python-lying.ts) too. They had a hookwrapper of the setup and a makereport hook of their own
    # (called for setup, call and teardown): 1.7 M instructions more on python-long's 61 tests. A
    # plain hook before the call and a makereport hook after it, instead of this wrapper, cost 3.8 M
    # more (callgrind, issue 19).
    def pytest_runtest_call(item, audit=sys.audit, kind=type, listed=list, text=str, tupled=tuple):
        lying_call_start(item)
        audit('ranex.between', 'before', '', ())
        yield
        patched = []
        try:
            for value in listed(item.funcargs.values()):
                if kind(value).__name__ == 'MonkeyPatch':
                    for entry in listed(value._setattr):
                        patched.append((entry[0], entry[1]))
        except Exception:
            pass
        audit('ranex.between', 'after', text(item.nodeid), tupled(patched))
        lying_call_end(item)

    plugin = module_type(${JSON.stringify(BETWEEN_PLUGIN)})
    plugin_space = object_getattr(plugin, '__dict__')
    # pytest warns that a plugin imported before it could rewrite its asserts (an error under
    # \`filterwarnings = error\`) unless the module's docstring opts out.
    plugin_space['__doc__'] = "Ranex Gate's per-test check. PYTEST_DONT_REWRITE"
    for hookimpl in (pytest_runtestloop, pytest_runtest_call):
        hookimpl.pytest_impl = {'wrapper': False, 'hookwrapper': True, 'optionalhook': False,
                                'tryfirst': True, 'trylast': False, 'specname': None}
        plugin_space[hookimpl.__name__] = hookimpl
    plugin_codes = (code_of(pytest_runtestloop), code_of(pytest_runtest_call))
    # The per-test wrapper's, asked first (by identity: an equal code object of the tree's is no proof).
    call_code = plugin_codes[1]

    # Out of sys.modules as soon as pytest registered it (pluggy calls this historic hook for the
    # plugin itself at once), before any conftest or code of the tree: not at the tree's first code
    # file, which comes first where the configuration loads a plugin of the tree with \`-p\` or a
    # virtualenv in the tree holds pytest's own plugins, and pytest would then not find this one.
    def pytest_plugin_registered(plugin, manager, me=plugin, mods=modules, name=${JSON.stringify(BETWEEN_PLUGIN)}):
        if plugin is me and mods.get(name) is me:
            del mods[name]

    pytest_plugin_registered.pytest_impl = {'wrapper': False, 'hookwrapper': False, 'optionalhook': False,
                                            'tryfirst': False, 'trylast': False, 'specname': None}
    plugin_space['pytest_plugin_registered'] = pytest_plugin_registered
    modules[${JSON.stringify(BETWEEN_PLUGIN)}] = plugin
    # (label, owner, space, copy, module?) of the namespaces compared per test: a module's with the
    # copy the swapped-slot check kept before any code of the tree ran, a class's with one taken when
    # the tests start (after collection).
    watched_now = []
    before_call = [None]
    between_left = [${BETWEEN_PER_PROCESS}]
    WATCHED_SET = frozenset(${JSON.stringify(watched)})

    def tree_space(module):
        # The namespace of a module loaded from a file of the tree, or None.
        if type(module) is not module_type:
            return None
        space = object_getattr(module, '__dict__')
        path = space.get('__file__')
        return space if type(path) is str and path.startswith(TREE) else None

    def between_choose(test_modules):
        # What a frozen test compares with: the modules the tree's modules hold or import from, the
        # watched ones and builtins. The watched modules' classes are compare()'s already. And the
        # test modules' own namespaces (their oracles and helpers, as their imports bound them),
        # compared from when the tests start like a class's.
        for name in test_modules:
            module = modules.get(name)
            space = tree_space(module)
            if space is None:
                continue
            test_module_bindings(name, space, space['__file__'])
            taken = space.copy()
            watched_now.append((name, module, space, taken, False, [taken, {}]))
        wanted = set(WATCHED_SET)
        wanted.add('builtins')
        for module in list(modules.values()):
            space = tree_space(module)
            if space is None:
                continue
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
                if type(used) is str:
                    wanted.add(used)
        for name, module, space, copy in list(kept_spaces):
            if name not in wanted:
                continue
            watched_now.append((name, module, space, copy, True, [copy, {}]))
            if name in WATCHED_SET or modules.get(name) is not module:
                continue
            for value in list(space.values()):
                # A built-in class cannot be given an attribute (Py_TPFLAGS_IMMUTABLETYPE).
                if issubclass(type(value), type) and type_getattr(value, '__module__') == name and not type_getattr(value, '__flags__') & IMMUTABLE:
                    members = type_getattr(value, '__dict__')
                    taken = members.copy()
                    watched_now.append((name + '.' + str(type_getattr(value, '__qualname__')), value, members, taken, False, [taken, {}]))

    bindings_left = [50]

    def test_module_bindings(name, space, path):
        # Before the first test: a slot of a test module that holds another module object than the one
        # loaded under that module's name, or that names a loaded module but holds code of another
        # module (\`test_x.statistics = Fake\`, \`from datetime import datetime\` is its own), or the
        # tree's code under another name than its own. Code under test imported by the test module can
        # rebind its names before any copy is taken. What the test file binds itself (an alias) is in
        # the base run's record too, and dropped there (./judge.ts).
        for key, value in list(space.items()):
            if type(key) is not str or key[:2] == '__' or bindings_left[0] <= 0:
                continue
            kind = type(value)
            what = None
            if kind is module_type:
                if modules.get(object_getattr(value, '__dict__').get('__name__')) is not value:
                    what = describe(value) + ', not the module loaded under that name'
            elif kind is function_type or issubclass(kind, type):
                home = globals_of(value).get('__name__') if kind is function_type else type_getattr(value, '__module__')
                home_module = modules.get(home) if type(home) is str else None
                where = object_getattr(home_module, '__dict__').get('__file__') if type(home_module) is module_type else None
                own = function_qual(value) if kind is function_type else type_getattr(value, '__qualname__')
                if type(modules.get(key)) is module_type and home != key:
                    what = describe(value) + ', not the module ' + key
                elif type(where) is str and where.startswith(TREE) and where != path and own != key:
                    what = describe(value) + ", the tree's code under another name"
            if what is None:
                continue
            what = name + '.' + key + ' (' + what + ') before the first test ran'
            if ('between', what) in seen:
                continue
            seen.add(('between', what))
            bindings_left[0] -= 1
            emit('tamper', 'ev', 'between', 'what', what, 'by', '', 'line', 0)

    def slots_changed(name, space, copy, is_module):
        # (name, value now) of each slot that differs from the copy where the old or new value is code.
        for key in (list(copy) if is_module else list(space.keys()) + [k for k in copy if k not in space]):
            old = copy.get(key, absent)
            new = space.get(key, absent)
            if new is old or not (code_like(old) or code_like(new)):
                continue
            if is_module and own_definition(name, space, key, new):
                continue
            yield key, new

    def between_changed():
        # The slots that differ from the copies now: {(index, key): value}. Each namespace is compared
        # in C with what it held when last walked (a slot the runner keeps changed, such as pytest's
        # _reprcompare, is walked once, not at every test), and walked against its copy only when
        # that differs.
        changed = {}
        for index, (name, owner, space, copy, is_module, last) in enumerate(watched_now):
            if is_module and modules.get(name, absent) is not owner:
                changed[(index, None)] = modules.get(name, absent)
            ref = last[0]
            if (not accel_differ((space,), (ref,))) if accel is not None else (all(map(is_, map(space.get, ref), ref.values())) and len(space) == len(ref)):
                if last[1]:
                    changed.update(last[1])
                continue
            found = {(index, key): new for key, new in slots_changed(name, space, copy, is_module)}
            last[0] = space.copy()
            last[1] = found
            changed.update(found)
        return changed

    # With the accelerator: (versions, copies) of the last call's start, for the namespaces whose dict
    # has not changed since (the same version: the same keys and values), whose copy is taken again.
    last_before = [None]

    def between_before():
        # What every namespace holds when the test's call starts: a copy each, in C (about 30
        # instructions a slot, against about 480 for comparing it with its copy from the start, which
        # the call's end does anyway where something changed), and the modules under the names.
        # With the accelerator, each dict's version too: at the call's end only a namespace whose dict
        # changed since is compared (a version per namespace instead of reading every slot), and a
        # namespace whose dict is at the version of the last call's start keeps that copy.
        if accel is None:
            versions = copies = None
        else:
            versions = accel_versions([entry[2] for entry in watched_now])
            last = last_before[0]
            if versions is not None and None not in versions and last is not None and len(last[0]) == len(versions):
                copies = [then_copy if now == then else entry[2].copy()
                          for now, then, then_copy, entry in zip(versions, last[0], last[1], watched_now)]
                last_before[0] = (versions, copies)
            elif versions is not None and None not in versions:
                copies = None
            else:
                versions = copies = None
        if copies is None:
            copies = [space.copy() for name, owner, space, copy, is_module, last in watched_now]
            if versions is not None:
                last_before[0] = (versions, copies)
        return copies, \
            [modules.get(name, absent) if is_module else None for name, owner, space, copy, is_module, last in watched_now], \
            versions

    def between_after(pre, test, patched):
        # The findings of comparing with the copies before and after the call (between_changed()
        # twice), walking only the namespaces that changed during the call: each is compared with
        # what it held when the call started (one \`itemgetter\` over those names, in C, a name gone
        # raising KeyError, and the identities with map(is_)), and only one that differs is walked
        # against its copy. What a slot already held when the call started is no finding of this test.
        spaces_before, modules_before, versions_before = pre
        changed = {}
        earlier = {}
        # With the accelerator, one C call says which namespaces are not exactly their copies (the same
        # key and value objects in the same order: no lookup, no ==, no hash, so no code of the tree).
        if accel is None:
            moved = None
        elif versions_before is not None and None not in versions_before:
            moved = accel_changed([entry[2] for entry in watched_now], versions_before)
        else:
            moved = accel_differ([entry[2] for entry in watched_now], spaces_before)
        for index, (name, owner, space, copy, is_module, last) in enumerate(watched_now):
            if is_module:
                now = modules.get(name, absent)
                if now is not owner:
                    changed[(index, None)] = now
                    then = modules_before[index]
                    if then is not owner:
                        earlier[(index, None)] = then
            before = spaces_before[index]
            if moved is not None:
                if index not in moved:
                    continue
            elif len(space) == len(before):
                keys = tupled(before)
                try:
                    if len(keys) > 1:
                        if all(map(is_, itemgetter(*keys)(space), before.values())):
                            continue
                    elif not keys or space.get(keys[0], absent) is before[keys[0]]:
                        continue
                except Exception:
                    pass  # a name gone (KeyError)
            for key, new in slots_changed(name, space, copy, is_module):
                changed[(index, key)] = new
                # What the slot held when the call started, where it differed from the copy as a
                # finding would (what between_changed() said then).
                then = before.get(key, absent)
                old = copy.get(key, absent)
                if then is not old and (code_like(old) or code_like(then)) and not (is_module and own_definition(name, space, key, then)):
                    earlier[(index, key)] = then
        between_report(changed, earlier, test, patched)

    def between_report(changed, earlier, test, patched):
        for (index, key), new in changed.items():
            if earlier.get((index, key), absent) is new:
                continue
            name, owner, space, copy, is_module, last = watched_now[index]
            if any(target is owner and attr == key for target, attr in patched):
                continue  # the test's own monkeypatch fixture: undone at its teardown
            if key is None:
                what = 'sys.modules[' + name + '] (was ' + describe(owner) + ', now ' + describe(new) + ')'
            else:
                what = name + '.' + str(key) + ' (was ' + describe(copy.get(key, absent)) + ', now ' + describe(new) + ')'
            what += ' while ' + test + ' ran' if test else ' before the first test ran'
            if ('between', what) in seen or between_left[0] <= 0:
                continue
            seen.add(('between', what))
            between_left[0] -= 1
            emit('tamper', 'ev', 'between', 'what', what, 'by', '', 'line', 0)

    unloaded_at = [None]

    def unloaded_scan(cached=False):
        # A module under a name of the standard library or the runner that the import system did not
        # load (built by code, or executed by hand: module_from_spec and exec_module, a legacy
        # load_module): no copy was kept of it, so the swapped-slot check has nothing to compare.
        # The names the import system loaded are all in \`imported\`; the rest are few (the tree's).
        # After a test, with the accelerator: sys.modules at the version of the last whole scan holds
        # the same names and modules, and \`imported\` has only grown since, so nothing new can be found
        # but through a module's own \`__file__\`, which the scan at exit (never cached) reads again.
        if cached and accel is not None and early_names[0] is not None:
            version = accel_versions((modules,))
            if version is not None and None not in version:
                if version == unloaded_at[0]:
                    return
                unloaded_at[0] = version
        # Most looks find none: asking that first, in C, costs half of making the set of the names
        # (about 40,000 instructions a look against 85,000 on python-long's run). So a name this look
        # never has to read again (not one of the standard library or the runner, or said once
        # already) joins \`imported\` too, and an honest tree that puts one of its own modules under
        # another name by hand does not pay the whole look after every test.
        if modules.keys() <= imported:
            return
        for name in list(set(modules).difference(imported)):
            if type(name) is not str or name in NOT_KEPT or name == ${JSON.stringify(BETWEEN_PLUGIN)}:
                imported.add(name)
                continue
            top = name.split('.', 1)[0]
            if top not in stdlib and top not in runner:
                imported.add(name)
                continue
            module = modules.get(name)
            if type(module) is module_type:
                path = object_getattr(module, '__dict__').get('__file__')
                if type(path) is str and path.startswith(TREE):
                    continue  # the tree's own module under that name: the planted check's
            key = ('unloaded', name)
            if early_names[0] is None:
                continue
            imported.add(name)
            if key in seen:
                continue
            seen.add(key)
            emit('tamper', 'ev', 'unloaded', 'what', 'sys.modules[' + name + '] (' + describe(module) + ')', 'by', '', 'line', 0)

    def between(args):
        # Only the plugin's own code: any code can raise an audit event by name.
        try:
            frame = getframe(3)  # between, observe, hook, then the frame that raised the event
        except ValueError:
            return
        code = frame.f_code
        if (code is not call_code and not any(code is mine for mine in plugin_codes)) or len(args) != 3:
            return
        phase, test, patched = args
        if phase == 'tests':
            if not watched_now:
                between_choose(patched if type(patched) is tuple else ())
            between_report(between_changed(), {}, '', ())
            unloaded_scan()
            tree_swapped_scan()
        elif phase == 'before':
            before_call[0] = between_before()
        elif phase == 'lying' and type(test) is str and type(patched) is tuple and len(patched) == 2:
            # ./python-lying.ts: a value of the tree that says it equals a stranger.
            if ('lying', test) not in seen:
                seen.add(('lying', test))
                emit('tamper', 'ev', 'lying', 'what', test, 'by', str(patched[0]), 'line', int(patched[1]))
        elif phase == 'after' and type(test) is str and type(patched) is tuple:
            if before_call[0] is None:
                between_report(between_changed(), {}, test, patched)
            else:
                between_after(before_call[0], test, patched)
            before_call[0] = None
            compare()  # the watched modules' functions and their classes', by identity in C
            unloaded_scan(True)
            tree_swapped_scan()  # the tree's own modules (./python-swapped.ts)
`;
}
