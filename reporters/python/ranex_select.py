"""Ranex Gate's test selection for pytest: run only the tests named in $RANEX_SELECT_FILE.

Loaded with `-p ranex_select` (PYTEST_ADDOPTS) when the gate repeats target tests (tests.stable) or
runs mutants (diff.needed). Ids are the gate's (`path/to/test_x.py::Class::test[param]`), relative to
the tree root; pytest's node ids are relative to its rootdir, so either may be a suffix of the other.
"""
import os


def _wanted():
    path = os.environ.get("RANEX_SELECT_FILE")
    if not path:
        return None
    with open(path, encoding="utf-8") as handle:
        return [line.rstrip("\n") for line in handle if line.strip()]


def _matches(nodeid, wanted):
    return any(nodeid == w or w.endswith("/" + nodeid) or nodeid.endswith("/" + w) for w in wanted)


def pytest_collection_modifyitems(session, config, items):
    wanted = _wanted()
    if wanted is None:
        return
    keep = [item for item in items if _matches(item.nodeid, wanted)]
    drop = [item for item in items if not _matches(item.nodeid, wanted)]
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep
