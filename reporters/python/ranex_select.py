"""Ranex Gate's test selection for pytest: run only the tests named in $RANEX_SELECT_FILE.

Loaded with `-p ranex_select` (PYTEST_ADDOPTS) when the gate repeats target tests (tests.stable) or
runs mutants (diff.needed). Ids are the gate's (`path/to/test_x.py::Class::test[param]`), relative to
the tree root; pytest's node ids are relative to its rootdir, so either may be a suffix of the other.

It proves that it ran: $RANEX_SELECT_FILE.ran lists, one a line, every wanted id that a collected
test matched. A run without that file (the plugin was not loaded: a command that sets PYTHONPATH
or PYTEST_ADDOPTS itself) or with a wanted id missing from it is not a run of the selection, and
the gate never reads its results as the selected tests' outcomes (src/measure/select.ts).

With RANEX_SELECT_BY=file the list names test files (the PR's new ones, for its own runs): every
item of those files that the command collected runs, nothing else does. Collection itself is left
whole, so a file that fails to import is still reported as pytest always reports it. The proof
then lists every wanted file that gave an item or failed to collect.
"""
import os


def _wanted():
    path = os.environ.get("RANEX_SELECT_FILE")
    if not path:
        return None
    with open(path, encoding="utf-8") as handle:
        return [line.rstrip("\n") for line in handle if line.strip()]


def _match(nodeid, wanted):
    return nodeid == wanted or wanted.endswith("/" + nodeid) or nodeid.endswith("/" + wanted)


def _matches(nodeid, wanted):
    return any(_match(nodeid, w) for w in wanted)


def _by_file():
    return os.environ.get("RANEX_SELECT_BY") == "file"


def _file_of(nodeid):
    return nodeid.split("::", 1)[0]


_collect_failed = []


def pytest_collectreport(report):
    if _by_file() and report.failed:
        _collect_failed.append(_file_of(report.nodeid))


def _select_files(config, items, wanted):
    keep = [item for item in items if _matches(_file_of(item.nodeid), wanted)]
    drop = [item for item in items if not _matches(_file_of(item.nodeid), wanted)]
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep
    seen = [_file_of(item.nodeid) for item in keep] + _collect_failed
    matched = [w for w in wanted if any(_match(f, w) for f in seen)]
    with open(os.environ["RANEX_SELECT_FILE"] + ".ran", "w", encoding="utf-8") as proof:
        proof.write("".join(w + "\n" for w in matched))


def pytest_collection_modifyitems(session, config, items):
    wanted = _wanted()
    if wanted is None:
        return
    if _by_file():
        _select_files(config, items, wanted)
        return
    keep = [item for item in items if _matches(item.nodeid, wanted)]
    drop = [item for item in items if not _matches(item.nodeid, wanted)]
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep
    matched = [w for w in wanted if any(_match(item.nodeid, w) for item in keep)]
    with open(os.environ["RANEX_SELECT_FILE"] + ".ran", "w", encoding="utf-8") as proof:
        proof.write("".join(w + "\n" for w in matched))
