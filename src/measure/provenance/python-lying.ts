// Values that lie about themselves (issue 19): code under test that returns an object whose `__eq__`
// answers True for anything (`class _N: def __eq__(self, other): return True`) makes every
// `assert f(x) == expected` of a frozen test pass with the task undone. Nothing in the process is
// tampered with, no slot is swapped, every canary stays honest: the oldest way to game an `==`.
//
// What the gate asks: does a value of the tree say it equals something it has never seen? Three
// ways in, all from the per-test plugin (./python-between-tests.ts), outside the audit hook (the
// hook never calls tree code):
//   - the classes the tree's modules define, once the tests are collected and again when the
//     session ends (modules imported later): each class whose comparison, its own or inherited, is
//     defined in a tree file is asked with a blank instance (`object.__new__`). An honest `__eq__`
//     reads an attribute the blank lacks and raises, or says False or NotImplemented;
//   - the classes made while the tests run (inside a function: no module holds them), found after
//     each test's call (./python-lying-classes.ts) and asked the same way;
//   - unittest's `assertEqual`, `assertAlmostEqual` and `assertNotEqual`, which compare inside the
//     library where no hook sees the operands: when each unittest case's call starts its instance gets
//     its own methods that ask both operands (lists, tuples, sets and dict values too, two levels,
//     50 items each), then call the real ones. The instance's attributes shadow the class's: no slot
//     of `unittest.case` changes.
// Asked of what: an instance of a class made for the process, and a random int, float and str drawn
// for the process (an `__eq__` true only for numbers tells the stranger apart, not these). `__eq__`
// and `__contains__` answering `True` itself (not a truthy object: a query builder's or an array's
// `==` returns an expression), `__ne__` answering `False` (or `True` of the value itself while `==`
// does not say False: not a NaN), an ordering answering `True` to the stranger: a finding, `lying`,
// naming the class, the file and line of its method, and the test where one compared it.
// pytest's own `pytest_assertion_pass` would hand over every plain assert's operands, but turning it
// on makes the rewriter emit the explanation code for every assert: 25 M instructions on
// python-calc's six tests, more than the record's whole budget (measured under callgrind).
//
// The judgment (./judge.ts) blames it only when that file is one the change added or modified and
// not a frozen file: a wildcard the owner ships (`ANY` in a conftest or in unchanged library code)
// is theirs. Not covered (docs/measurement.md): an `__eq__` that looks at its own instance and is
// compared by a plain assert (only a blank is asked then), one that tells the random values from a
// test's, a class made inside a function from a base that is not a root or freed within the test,
// other assertion helpers, `__bool__`, and runners other than pytest.
//
// The text below is Python, spliced into the hook's closure (4 spaces deep) after the plugin is
// built: it uses the hook's captured built-ins and adds its functions to the plugin.

import { pythonLyingClassesSource } from "./python-lying-classes.js";

/** Findings of this check per process at most. */
export const LYING_PER_PROCESS = 20;

export function pythonLyingSource(): string {
  return `
    # --- Values that lie about themselves (./python-lying.ts) ---
    stranger_type = type('stranger', (), {'__slots__': (), '__module__': 'ranex'})
    # Real values of the types a test compares with, random for this process: an __eq__ that tells
    # the stranger apart (True only for numbers, only for a float) must know the test's expected value
    # to tell these apart too. Never 0, never integral, never empty: unequal to any blank instance.
    lying_seed = int.from_bytes(posix.urandom(8), 'little')
    PROBES = ((stranger_type(), 'an object'), ((lying_seed >> 4) + 1000003, 'a random int'),
              ((lying_seed >> 12) / 7919.0 + 0.5, 'a random float'), ('ranex-' + hex(lying_seed), 'a random str'))
    lying_left = [${LYING_PER_PROCESS}]
    lying_busy = [False]
    lying_named = set()  # classes already reported: one finding per class and process
    lying_walked = set()  # tree modules whose classes were asked
    CONTAINERS = (list, tuple, set, frozenset)
    from _functools import partial as bound_partial

    # What each comparison would claim of an object it has never seen.
    CLAIMS = (('__eq__', 'equals'), ('__ne__', 'is not unequal to'), ('__contains__', 'contains'), ('__lt__', 'is less than'),
              ('__le__', 'is at most'), ('__gt__', 'is greater than'), ('__ge__', 'is at least'))
    DUNDERS = tuple(dunder for dunder, claim in CLAIMS)
    # Asked with the random values too: an honest ordering says True of half of them.
    PROBED = frozenset(('__eq__', '__ne__', '__contains__'))
${pythonLyingClassesSource()}
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

    def lying_answer(method, value, dunder, probes=PROBES, probed=PROBED, lie=True, getter=type_getattr, kind=type,
                     unknown=NotImplemented):
        # What the value claims of something it has never seen, or None. The answer True itself (False
        # for __ne__): a query builder's or a symbolic library's == returns an expression, no answer.
        if dunder == '__ne__':
            lie = False
        for probe, what in (probes if dunder in probed else probes[:1]):
            try:
                if method(value, probe) is not lie:
                    continue
                # The old spelling \`return not self.__eq__(other)\` says False where __eq__ does not
                # know the other side (\`not NotImplemented\`): a mistake, not a lie.
                if lie is False and getter(kind(value), '__eq__')(value, probe) is unknown:
                    continue
                return what
            except Exception:
                pass
        if dunder == '__ne__':
            # != says True of the value itself, while == does not say False (not a NaN): a frozen
            # assertNotEqual or assert a != b passes whatever the value is.
            try:
                if method(value, value) is True and (value == value) is not False:
                    return ''
            except Exception:
                pass
        return None

    def lying_ask(found, value, subject, lineno, dunder='__eq__', claim='equals', audit=sys.audit,
                  named=lying_named, left=lying_left):
        # Does the value say it equals (contains, orders against) something it has never seen?
        method, where, line, name = found
        key = name + '.' + dunder
        if key in named or left[0] <= 0:
            return
        what = lying_answer(method, value, dunder)
        if what is None:
            return
        left[0] -= 1
        named.add(key)
        said = 'differs from itself' if what == '' else claim + ' ' + what + ' it has never seen'
        audit('ranex.between', 'lying', subject + ' whose ' + dunder + ' says it ' + said, (where, line if line > 0 else lineno))

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
                   walked=lying_walked, mod_type=module_type, rooted=set(), builtins_module=modules['builtins']):
        # The classes the tree's modules define, each asked with a blank instance.
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
                lying_judge(value, when)
            for value in listed(space.values()):
                # What a class made inside a function of the tree may derive from (./python-lying-classes.ts).
                value_kind = kind(value)
                if value_kind is mod_type:
                    # Not builtins (its exceptions; the rewriter binds it in every test module as
                    # @py_builtins: the value types are roots already) nor the runner's modules.
                    if id(value) in rooted or value is builtins_module or str(getattr(value, '__name__', '')).split('.')[0] in runner:
                        continue
                    rooted.add(id(value))
                    for item in listed(object_getattr(value, '__dict__').values()):
                        if is_class(kind(item), type):
                            watch_root(item)
                elif is_class(value_kind, type):
                    watch_root(value)

    def lying_judge(value, when, claims=CLAIMS, blank_of=object.__new__):
        # A class asked with a blank instance: an honest __eq__ reads an attribute the blank lacks, or
        # compares and says False.
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
                        return
            lying_ask(found, blank, 'the tree class ' + found[3] + ' (asked with a blank instance ' + when + ')', 0, dunder, claim)

    def lying_assert(first, second, *rest, ranex_assert=None, ranex_test='', busy=lying_busy, left=lying_left,
                     frames=getframe, text=str, kind=type, claims=CLAIMS[:2], **options):
        # unittest's assertEqual and assertAlmostEqual compare inside the library: the operands are
        # looked at here, on the way in (a class made inside a function too), then the real method runs.
        if not busy[0] and left[0] > 0:
            busy[0] = True
            try:
                candidates = []
                lying_values((first, second), 0, candidates)
                line = frames(1).f_lineno
                for value in candidates:
                    for dunder, claim in claims:
                        found = lying_class(kind(value), dunder)
                        if found is not None:
                            lying_ask(found, value, ranex_test + ' (line ' + text(line) + ') compared a ' + found[3], line, dunder, claim)
            except Exception:
                pass
            finally:
                busy[0] = False
        return ranex_assert(first, second, *rest, **options)

    def pytest_collection_finish(session):
        lying_walk('when the tests were collected')
        lying_watch_start('when the tests were collected')

    def pytest_sessionfinish(session):
        lying_walk('after the tests ran')
        lying_watch('after the tests ran')

    def lying_call_end(item, text=str):
        # Right after each test's call phase (the per-test hook of ./python-between-tests.ts, after its
        # own look): a class made inside a function while it ran is alive until the cyclic collector
        # frees it (./python-lying-classes.ts).
        try:
            lying_watch('made while ' + text(item.nodeid) + ' ran')
        except Exception:
            pass

    def lying_call_start(item, getter=getattr, partial=bound_partial, text=str):
        # When a unittest case's call starts (its setUp runs inside the call, under pytest), its
        # instance exists (pytest 7: _testcase; 8+: instance, and _testcase as a property): its own
        # attributes shadow the class's methods, so no slot of unittest.case changes.
        try:
            case = getter(item, '_testcase', None)
            if case is None:
                return
            space = object_getattr(case, '__dict__')
            for name in ('assertEqual', 'assertAlmostEqual', 'assertNotEqual'):
                space[name] = partial(lying_assert, ranex_assert=getter(case, name), ranex_test=text(item.nodeid))
        except Exception:
            pass

    for hookimpl in (pytest_collection_finish, pytest_sessionfinish):
        hookimpl.pytest_impl = {'wrapper': False, 'hookwrapper': False, 'optionalhook': True,
                                'tryfirst': False, 'trylast': False, 'specname': None}
        plugin_space[hookimpl.__name__] = hookimpl
    plugin_codes = plugin_codes + (code_of(lying_ask),)
`;
}
