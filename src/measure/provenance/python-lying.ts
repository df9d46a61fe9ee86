// Values that lie about themselves (issue 19): code under test that returns an object whose `__eq__`
// answers True for anything (`class _N: def __eq__(self, other): return True`) makes every
// `assert f(x) == expected` of a frozen test pass with the task undone. Nothing in the process is
// tampered with, no slot is swapped, every canary stays honest: the oldest way to game an `==`.
//
// What the gate asks: does a value of the tree say it equals an object it has never seen? Two ways
// in, both from the per-test plugin (./python-between-tests.ts), outside the audit hook (the hook
// never calls tree code):
//   - the classes the tree's modules define, once the tests are collected and again when the
//     session ends (modules imported later): each class whose `__eq__`, its own or inherited, is
//     defined in a tree file is asked with a blank instance (`object.__new__`). An honest `__eq__`
//     reads an attribute the blank lacks and raises, or says False or NotImplemented;
//   - unittest's `assertEqual` and `assertAlmostEqual`, which compare inside the library where no
//     hook sees the operands: after each unittest case's setup its instance gets its own two methods
//     that ask both operands (lists, tuples, sets and dict values too, two levels, 50 items each),
//     then call the real ones. The instance's attributes shadow the class's: no slot of
//     `unittest.case` changes. This sees a class made inside a function as well.
// An `__eq__` that answers `True` itself to an instance of a class made for the process (not a
// truthy object: a query builder's or a symbolic library's `==` returns an expression) is a finding,
// `lying`, naming the class, the file and line of its `__eq__`, and the test where one compared it.
// pytest's own `pytest_assertion_pass` would hand over every plain assert's operands, but turning it
// on makes the rewriter emit the explanation code for every assert: 25 M instructions on
// python-calc's six tests, more than the record's whole budget (measured under callgrind).
//
// The judgment (./judge.ts) blames it only when that file is one the change added or modified and
// not a frozen file: a wildcard the owner ships (`ANY` in a conftest or in unchanged library code)
// is theirs. Not covered: a class made inside a function and compared by a plain assert, unittest's
// other assertion methods and other libraries' helpers, `!=`, an `__eq__` that tells a blank or
// the gate's stranger from a test's value, and runners other than pytest. The classes are asked of
// `__contains__` and the orderings as well (`assert 3 in Bag()`, `assert Rank() < 1`).
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
    lying_walked = set()  # tree modules whose classes were asked
    CONTAINERS = (list, tuple, set, frozenset)
    from _functools import partial as bound_partial

    # What each comparison would claim of an object it has never seen.
    CLAIMS = (('__eq__', 'equals'), ('__contains__', 'contains'), ('__lt__', 'is less than'),
              ('__le__', 'is at most'), ('__gt__', 'is greater than'), ('__ge__', 'is at least'))

    def lying_class(klass, dunder='__eq__', kind=type, mro_key='__mro__', getter=type_getattr, mods=modules,
                    func=function_type, code=code_of, tree=TREE, space_of=object_getattr, mod_type=module_type):
        # (method, where, line, class name) of a tree-defined dunder the class uses, or None.
        for owner in getter(klass, mro_key):
            method = getter(owner, '__dict__').get(dunder)
            if method is None:
                continue
            if kind(method) is func:
                body = code(method)
                where, line = body.co_filename, body.co_firstlineno
            else:
                module = mods.get(getter(owner, '__module__'))
                where = space_of(module, '__dict__').get('__file__') if kind(module) is mod_type else None
                line = 0
            if kind(where) is not str or not where.startswith(tree):
                return None
            return method, where, line, str(getter(owner, '__module__')) + '.' + str(getter(owner, '__qualname__'))
        return None

    def lying_ask(found, value, subject, lineno, dunder='__eq__', claim='equals', audit=sys.audit,
                  stranger=stranger_type, named=lying_named, left=lying_left):
        # Does the value say it equals (contains, orders against) an object it has never seen? True
        # itself: a query builder's or a symbolic library's == returns an expression, no answer.
        method, where, line, name = found
        key = name + '.' + dunder
        if key in named or left[0] <= 0:
            return
        try:
            answer = method(value, stranger())
        except Exception:
            return
        if answer is True:
            left[0] -= 1
            named.add(key)
            audit('ranex.between', 'lying', subject + ' whose ' + dunder + ' says it ' + claim + ' an object it has never seen',
                  (where, line if line > 0 else lineno))

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

    def lying_walk(when, mods=modules, listed=list, kind=type, getter=type_getattr, is_class=issubclass,
                   blank_of=object.__new__, walked=lying_walked, claims=CLAIMS):
        # The classes the tree's modules define, each asked with a blank instance (an honest __eq__
        # reads an attribute the blank lacks, or compares and says False).
        for name, module in listed(mods.items()):
            if name in walked:
                continue
            space = tree_space(module)
            if space is None:
                continue
            walked.add(name)
            for value in listed(space.values()):
                if not is_class(kind(value), type) or getter(value, '__module__') != name:
                    continue
                blank = None
                for dunder, claim in claims:
                    found = lying_class(value, dunder)
                    if found is None:
                        continue
                    if blank is None:
                        try:
                            blank = blank_of(value)
                        except Exception:
                            try:
                                blank = value.__new__(value)
                            except Exception:
                                break
                    lying_ask(found, blank, 'the tree class ' + found[3] + ' (asked with a blank instance ' + when + ')', 0, dunder, claim)

    def lying_assert(first, second, *rest, ranex_assert=None, ranex_test='', busy=lying_busy, left=lying_left,
                     frames=getframe, text=str, kind=type, **options):
        # unittest's assertEqual and assertAlmostEqual compare inside the library: the operands are
        # looked at here, on the way in (a class made inside a function too), then the real method runs.
        if not busy[0] and left[0] > 0:
            busy[0] = True
            try:
                candidates = []
                lying_values((first, second), 0, candidates)
                line = frames(1).f_lineno
                for value in candidates:
                    found = lying_class(kind(value))
                    if found is not None:
                        lying_ask(found, value, ranex_test + ' (line ' + text(line) + ') compared a ' + found[3], line)
            except Exception:
                pass
            finally:
                busy[0] = False
        return ranex_assert(first, second, *rest, **options)

    def pytest_collection_finish(session):
        lying_walk('when the tests were collected')

    def pytest_sessionfinish(session):
        lying_walk('after the tests ran')

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

    for hookimpl in (pytest_collection_finish, pytest_sessionfinish, pytest_runtest_setup):
        hookimpl.pytest_impl = {'wrapper': False, 'hookwrapper': hookimpl is pytest_runtest_setup, 'optionalhook': True,
                                'tryfirst': False, 'trylast': hookimpl is pytest_runtest_setup, 'specname': None}
        plugin_space[hookimpl.__name__] = hookimpl
    plugin_codes = plugin_codes + (code_of(lying_ask),)
`;
}
