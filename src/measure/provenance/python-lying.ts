// Values that lie about themselves (issue 19): code under test that returns an object whose `__eq__`
// answers True for anything (`class _N: def __eq__(self, other): return True`) makes every
// `assert f(x) == expected` of a frozen test pass with the task undone. Nothing in the process is
// tampered with, no slot is swapped, every canary stays honest: the oldest way to game an `==`.
//
// What the gate asks: does the value say it equals an object it has never seen? The per-test plugin
// (./python-between-tests.ts) turns on pytest's own `pytest_assertion_pass` hook (the
// `enable_assertion_pass_hook` setting, set in the configuration's cache before any test module is
// rewritten; rewritten modules are cached under a name of the gate's, so a cache written without
// the hook is never read). At each passing `assert` it reads the asserting frame's locals (pytest's
// rewriter keeps every operand there, as `@py_assert<N>`, until the assert ends) and, for each value
// whose class, or a class it inherits, defines `__eq__` in a file of the tree, calls that `__eq__`
// with an instance of a class made for the process. An honest `__eq__` returns NotImplemented or
// False, or raises (it reads an attribute the stranger lacks); one that answers True itself (not a
// truthy object: a query builder's or a symbolic library's `==` returns an expression) is a finding,
// `lying`, naming the class, the file and line of its `__eq__`, and the test. Lists, tuples, sets
// and dicts are looked into, two levels deep and 50 items each (`[_N()] == [1]`). unittest's
// `assertEqual` and `assertAlmostEqual` compare inside the library, where no hook sees the
// operands: after each unittest case's setup, its instance gets its own `assertEqual` and
// `assertAlmostEqual` that look at both operands the same way and call the real ones (the
// instance's attributes shadow the class's: no slot of `unittest.case` changes).
//
// The judgment (./judge.ts) blames it only when that file is one the change added or modified and
// not a frozen file: a wildcard the owner ships (`ANY` in a conftest or in unchanged library code)
// is theirs. Not covered: unittest's other assertion methods and other libraries' helpers, `!=`,
// ordering and `in` comparisons, an `__eq__` that tells the gate's stranger from a test's value,
// asserts in modules pytest does not rewrite, and runners other than pytest.
//
// The text below is Python, spliced into the hook's closure (4 spaces deep) after the plugin is
// built: it uses the hook's captured built-ins and adds its functions to the plugin.

/** Findings of this check per process at most. */
export const LYING_PER_PROCESS = 20;

export function pythonLyingSource(): string {
  return `
    # --- Values that lie about themselves (./python-lying.ts) ---
    stranger_type = type('stranger', (), {'__slots__': (), '__module__': 'ranex'})
    lying_left = [${LYING_PER_PROCESS}]
    lying_busy = [False]
    lying_named = set()  # classes already reported: one finding per class and process
    CONTAINERS = (list, tuple, set, frozenset)
    from _functools import partial as bound_partial

    def lying_eq(value, kind=type, mro_key='__mro__', getter=type_getattr, mods=modules, func=function_type,
                 code=code_of, tree=TREE, space_of=object_getattr, mod_type=module_type):
        # (where, line, class name) of a tree-defined __eq__ the value's class uses, or None.
        klass = kind(value)
        for owner in getter(klass, mro_key):
            eq = getter(owner, '__dict__').get('__eq__')
            if eq is None:
                continue
            if kind(eq) is func:
                body = code(eq)
                where, line = body.co_filename, body.co_firstlineno
            else:
                module = mods.get(getter(owner, '__module__'))
                where = space_of(module, '__dict__').get('__file__') if kind(module) is mod_type else None
                line = 0
            if kind(where) is not str or not where.startswith(tree):
                return None
            return eq, where, line, str(getter(owner, '__module__')) + '.' + str(getter(owner, '__qualname__'))
        return None

    def lying_values(values, depth, out, kind=type, containers=CONTAINERS, listed=list, dict_type=dict):
        for value in values:
            if len(out) > 200:
                return
            value_kind = kind(value)
            if value_kind in containers or value_kind is dict_type:
                if depth < 2:
                    items = listed(value.values() if value_kind is dict_type else value)
                    lying_values(items[:50], depth + 1, out)
                continue
            out.append(value)

    def lying_probe(values, test, lineno, audit=sys.audit, text=str, busy=lying_busy, left=lying_left,
                    stranger=stranger_type, named=lying_named):
        # Each tree-defined __eq__ among the values, asked once whether it equals a stranger.
        candidates = []
        lying_values(values, 0, candidates)
        seen_classes = set()
        for value in candidates:
            found = lying_eq(value)
            if found is None or found[3] in seen_classes or found[3] in named:
                continue
            eq, where, line, name = found
            seen_classes.add(name)
            try:
                answer = eq(value, stranger())
                said = answer is True
            except Exception:
                continue
            if said and left[0] > 0:
                left[0] -= 1
                named.add(name)
                what = (text(test) + ' (line ' + text(lineno) + ') compared a ' + name
                        + ' whose __eq__ says it equals an object it has never seen')
                audit('ranex.between', 'lying', what, (where, line if line > 0 else lineno))

    def pytest_assertion_pass(item, lineno, frames=getframe, listed=list, busy=lying_busy, left=lying_left):
        # A plain assert passed: its operands are the asserting frame's locals (pytest's rewriter
        # keeps them as @py_assert<N> until the assert ends).
        if busy[0] or left[0] <= 0:
            return
        busy[0] = True
        try:
            frame = frames(1)
            while frame is not None and frame.f_code.co_name != '_call_assertion_pass':
                frame = frame.f_back
            if frame is not None and frame.f_back is not None:
                lying_probe(listed(frame.f_back.f_locals.values()), item.nodeid, lineno)
        except Exception:
            pass
        finally:
            busy[0] = False

    def lying_assert(first, second, *rest, ranex_assert=None, ranex_test='', busy=lying_busy, left=lying_left,
                     frames=getframe, **options):
        # unittest's assertEqual and assertAlmostEqual compare inside the library: the operands are
        # looked at here, on the way in, then the real method runs.
        if not busy[0] and left[0] > 0:
            busy[0] = True
            try:
                lying_probe((first, second), ranex_test, frames(1).f_lineno)
            except Exception:
                pass
            finally:
                busy[0] = False
        return ranex_assert(first, second, *rest, **options)

    def pytest_runtest_setup(item, getter=getattr, partial=bound_partial, text=str):
        # After the setup, a unittest case's instance exists (pytest 7: _testcase; 8+: instance, and
        # _testcase as a property): its own attributes shadow the class's methods, so no slot of
        # unittest.case changes.
        yield
        try:
            case = getter(item, '_testcase', None)
            if case is None:
                return
            space = object_getattr(case, '__dict__')
            for name in ('assertEqual', 'assertAlmostEqual'):
                space[name] = partial(lying_assert, ranex_assert=getter(case, name), ranex_test=text(item.nodeid))
        except Exception:
            pass

    def pytest_configure(config, mods=modules):
        # pytest's own hook for passing asserts, on before the first test module is rewritten; the
        # rewritten modules' cache gets a name of the gate's (one written without the hook would turn
        # it off for that module).
        try:
            config._inicache['enable_assertion_pass_hook'] = True
            rewrite = mods.get('_pytest.assertion.rewrite')
            tail = rewrite.PYC_TAIL
            if not tail.startswith('.ranex'):
                rewrite.PYC_TAIL = '.ranex' + tail
        except Exception:
            pass

    for hookimpl in (pytest_assertion_pass, pytest_configure, pytest_runtest_setup):
        hookimpl.pytest_impl = {'wrapper': False, 'hookwrapper': hookimpl is pytest_runtest_setup, 'optionalhook': True,
                                'tryfirst': False, 'trylast': hookimpl is pytest_runtest_setup, 'specname': None}
        plugin_space[hookimpl.__name__] = hookimpl
    plugin_codes = plugin_codes + (code_of(lying_probe),)
`;
}
