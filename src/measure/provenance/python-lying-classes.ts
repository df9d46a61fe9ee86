// Classes made while the tests run (issue 19, values that lie about themselves, ./python-lying.ts):
// a class made inside a function of the tree (`def median_of(xs): class M(float): __eq__ = ...`) is
// in no module's namespace, so the walk of the tree's modules never asks it, and a plain
// `assert median_of(xs) == 2` hands its operands to nobody.
//
// What is looked at: a class lives until the cyclic collector frees it (its `__mro__` holds it), so
// after each test's call phase (and when the tests start, for classes made at import) the classes
// derived from the roots are compared with those seen before, and each new one whose own
// `__eq__`/`__ne__`/`__contains__`/ordering is the tree's is asked as the walk asks a module's class
// (a blank instance; ./python-lying.ts). The roots: `object` and the built-in value types, the classes
// the tree's modules hold, and the classes of the modules they hold (`import fractions`); a new class
// of a tree module becomes a root too (for its own subclasses), up to a bound.
//
// Cost: one `type.__subclasses__` and `len` per root in C after each test (about 0.08 M instructions
// on python-calc); the list is compared only when a count moved. Classes present when the tests start
// are held (they existed at import: no growth); a class seen later is held weakly, and its death
// forces the next comparison (a class freed and another made at its address with the counts even).
//
// Not seen: a class derived from a class that is not a root (a library class the tree reaches only
// through a call), or one made and freed by the collector within one test's call.
//
// Python text spliced into the hook's closure (4 spaces deep) by ./python-lying.ts.

/** Classes made during the tests that become roots themselves, at most. */
export const WATCH_ROOTS_MAX = 2000;

export function pythonLyingClassesSource(): string {
  return `
    # --- Classes made while the tests run (./python-lying-classes.ts) ---
    import _weakref
    from itertools import chain as watch_chain, compress as watch_compress, repeat as watch_repeat
    watch_roots = [object, int, float, complex, str, bytes, bytearray, tuple, list, dict, set, frozenset]
    # Classes are keyed by object.__hash__ (the address, rotated: unique while alive, and spread over a
    # set's slots, where an id's low bits, always 0, pile every key into a few; a metaclass's
    # __hash__ does not apply).
    watch_key = object.__hash__
    watch_root_ids = set(map(watch_key, watch_roots))
    watch_known = set()  # ids of the classes seen under the roots, while they live
    watch_held = []  # the classes present when the tests started: held, so no id of theirs is reused
    watch_refs = {}  # id -> weak reference of a class seen later (its callback forgets the id)
    watch_state = [None, False, ${WATCH_ROOTS_MAX}]  # counts at the last look; a seen class died; roots left

    def watch_root(klass, ids=watch_root_ids, roots=watch_roots, key_of=watch_key):
        key = key_of(klass)
        if key not in ids:
            ids.add(key)
            roots.append(klass)

    def watch_forget(key, ref, known=watch_known, refs=watch_refs, state=watch_state):
        known.discard(key)
        refs.pop(key, None)
        state[1] = True

    def lying_watch(when, subs=type.__subclasses__, roots=watch_roots, known=watch_known, state=watch_state,
                    chain=watch_chain, getter=type_getattr, dunders=DUNDERS, ref=_weakref.ref, partial=bound_partial,
                    refs=watch_refs, listed=list, zipped=zip, ident=watch_key, lengths_of=len, tree_names=lying_walked):
        # The classes under the roots that were not there at the last look, each asked if its own
        # comparisons are the tree's.
        counts = tuple(map(lengths_of, map(subs, roots)))
        if counts == state[0] and not state[1]:
            return
        state[1] = False
        level = listed(chain.from_iterable(map(subs, roots)))
        while level:
            by_id = dict(zipped(map(ident, level), level))
            fresh = set(by_id).difference(known)
            level = []
            for key in fresh:
                klass = by_id[key]
                known.add(key)
                try:
                    refs[key] = ref(klass, partial(watch_forget, key))
                except TypeError:
                    pass
                # Its subclasses made in the same window are looked at now; a class the tree made
                # (not unittest.mock's class for each Mock) stays a root for those made later.
                level.extend(subs(klass))
                try:
                    if state[2] > 0 and getter(klass, '__module__') in tree_names:
                        state[2] -= 1
                        watch_root(klass)
                except Exception:
                    pass
                try:
                    space = getter(klass, '__dict__')
                    if any(map(space.__contains__, dunders)):
                        lying_judge(klass, when)
                except Exception:
                    pass
        state[0] = tuple(map(lengths_of, map(subs, roots)))

    def lying_watch_start(when, subs=type.__subclasses__, roots=watch_roots, known=watch_known, state=watch_state,
                          chain=watch_chain, getter=type_getattr, held=watch_held, tree_names=lying_walked,
                          listed=list, ident=watch_key, lengths_of=len, repeated=watch_repeat, pick=watch_compress):
        # When the tests start: every class under the roots is held (no id of theirs is reused), and
        # those whose __module__ is a tree module's are asked (made at import inside a function, or by
        # type(): no module's namespace holds them). In C but for those few.
        level = listed(chain.from_iterable(map(subs, roots)))
        held.extend(level)
        known.update(map(ident, level))
        state[0] = tuple(map(lengths_of, map(subs, roots)))
        try:
            made = listed(pick(level, map(tree_names.__contains__, map(getter, level, repeated('__module__')))))
        except Exception:
            made = level
        for klass in made:
            try:
                lying_judge(klass, when)
            except Exception:
                pass
`;
}
