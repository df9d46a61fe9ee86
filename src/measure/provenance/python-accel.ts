// The Python record's accelerator (issue 19's cost): a small C extension the gate compiles for each
// interpreter it finds (./python-accel-build.ts) and the hook loads by absolute path before any code
// of the tree runs (./python-hook.ts). It holds no judgment: what is a finding stays in Python.
//
// - install(hook, relevant, restricted): a C audit hook (PySys_AddAuditHook: process-wide, never
//   removed, like sys.addaudithook) that leaves in C the events the Python hook would leave after
//   its first set lookup, and calls the hook for the rest. A Python hook costs about 3,000
//   instructions an event even when it returns at once (CPython builds the event's name, looks up
//   `__cantrace__` and calls a Python function), on about 3,300 events of a small pytest run.
//   Once only: a second call, whoever makes it, is refused, so code under test cannot hand over a
//   callable or lists of its own. It also leaves what the hook leaves before any file of the tree was
//   read (every event but `open` and the gate's own), and an `open` for reading of a file outside
//   the tree by a plain absolute path; any `open` it passes on may be the tree's, and ends that.
// - differ(spaces, copies): which namespaces no longer hold exactly their copy's (key, value) pairs,
//   by identity, in order. No `==`, no hash: no code of the tree can run inside it. versions(spaces)
//   and changed(spaces, versions): the same question from the dicts' versions (PEP 509), without
//   reading a slot, for the per-test check (3.11 to 3.13; an interpreter without them uses differ).
// - where(space, keys) and moved(groups): the watched functions' slots by their place in the dict's
//   entries, so that comparing them is an identity check per slot, in C, with no lookup; watch(name,
//   space) takes those groups of a watched module (its functions and its classes' methods) at once.
// - keep(modules, ...): the swapped-slot check's copies of every module's namespace when the tree's
//   first code file is opened. suspects(name, space, classes, plain): the entries of a namespace the
//   exit's planted walk must look at, leaving out only what it would find nothing in for sure.
// - blame(frame, ...): the blame walk up the stack, with the frames its last clean walk passed
//   (forget() drops them at exit).
// Anything the C side cannot vouch for (not a dict, a slot that moved) says "changed", and the Python
// code then does what it did without the accelerator: the findings are the same either way.

import { ACCEL_SLOTS_SOURCE } from "./python-accel-slots.js";

/** The module's name (PyInit__ranex_accel); its file is `ranex-accel` + EXT_SUFFIX, which no import statement names. */
export const ACCEL_MODULE = "_ranex_accel";
export const ACCEL_FILE_STEM = "ranex-accel";

export const ACCEL_SOURCE = String.raw`/* Ranex Gate: the Python record's accelerator (src/measure/provenance/python-accel.ts). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#if PY_VERSION_HEX < 0x030B0000
/* PyThreadState_EnterTracing is 3.11's: older interpreters run the record's pure-Python hook. */
#error "the accelerator needs Python 3.11 or later"
#endif

#define MAX_NAMES 64

/* Set once by install(), never changed nor freed: the callable and the names it wants. */
static int used;
static PyObject *hook;
static PyInterpreterState *home;
static PyObject *relevant[MAX_NAMES];      /* the event names, the frozenset's own str objects */
static const char *relevant_c[MAX_NAMES];
static int n_relevant;
static PyObject *restricted[MAX_NAMES];    /* object.__getattr__'s attribute names it wants */
static const char *restricted_c[MAX_NAMES];
static int n_restricted;
static PyObject *getattr_event;
/* The record's hook is running: an event its own work raises (each frame it reads is audited) is left
   here, as its Python flag would leave it after a call (one flag for all threads, like that one). */
static int running;
/* The tree's folder ("/…/"), and whether a file of it may have been read: until then no code of the
   tree has run, and the record's hook leaves every event but an "open" and its own at once. */
static PyObject *tree_obj;
static const char *tree_c;
static Py_ssize_t tree_len;
static int tree_read;

/* An "open" (path, mode, flags) the record's hook leaves at once: a path that is not a str, or a
   file outside the tree, named by an absolute path the hook would not normalise (no /./ or /../),
   opened for reading. Anything else goes to the hook, and may be a read of the tree's. */
static int
open_left(PyObject *args)
{
    PyObject *path, *mode, *flags;
    const char *text, *letters;
    Py_ssize_t len;
    long bits;
    if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) < 3)
        return 0;
    path = PyTuple_GET_ITEM(args, 0);
    mode = PyTuple_GET_ITEM(args, 1);
    flags = PyTuple_GET_ITEM(args, 2);
    if (!PyUnicode_CheckExact(path))
        return 1;
    text = PyUnicode_AsUTF8AndSize(path, &len);
    if (text == NULL) {
        PyErr_Clear();
        return 0;
    }
    if ((Py_ssize_t)strlen(text) != len || text[0] != '/' || strstr(text, "/./") || strstr(text, "/../")
        || (len >= tree_len && memcmp(text, tree_c, tree_len) == 0))
        return 0;
    if (mode == Py_None) {
        if (!PyLong_CheckExact(flags))
            return 0;
        bits = PyLong_AsLong(flags);
        if (bits == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        return (bits & 3) == 0;
    }
    if (!PyUnicode_CheckExact(mode) || (letters = PyUnicode_AsUTF8(mode)) == NULL) {
        PyErr_Clear();
        return 0;
    }
    return strchr(letters, 'r') != NULL || strchr(letters, '+') != NULL;
}

static int
audit(const char *event, PyObject *args, void *unused)
{
    PyObject *name = NULL;
    int i;
    (void)unused;
    /* Another interpreter never had the record's Python hook (sys.addaudithook is per interpreter). */
    if (hook == NULL || running || PyInterpreterState_Get() != home)
        return 0;
    /* The interpreter's end: CPython raises this just before it drops its Python hooks (and then its
       modules, its sys and its builtins); a C hook lives on, but the record's hook ends with them,
       as it did when it was one of them. Only CPython's own, raised with no Python code running:
       sys.audit() of that name from code under test must not end the record. */
    if (event[0] == 'c' && event[1] == 'p' && strcmp(event, "cpython.PyInterpreterState_Clear") == 0
        && PyEval_GetFrame() == NULL) {
        hook = NULL;  /* its reference is left: the interpreter is being torn down */
        return 0;
    }
    for (i = 0; i < n_relevant; i++) {
        /* The first letter first: most events (exec, compile, marshal.loads) differ there. */
        if (relevant_c[i][0] == event[0] && strcmp(event, relevant_c[i]) == 0) {
            if (strcmp(event, "open") == 0) {
                if (open_left(args))
                    return 0;
                tree_read = 1;  /* perhaps a file of the tree: from here on, the hook sees everything it asks for */
            } else if (!tree_read && strncmp(event, "ranex.", 6) != 0) {
                return 0;
            }
            name = Py_NewRef(relevant[i]);
            break;
        }
    }
    if (name == NULL) {
        if (!tree_read)
            return 0;
        if (event[0] == 'o' && strcmp(event, "object.__getattr__") == 0) {
            /* (object, attribute name): only the frame and traceback attributes the record watches. */
            PyObject *attr;
            const char *text;
            if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) < 2)
                return 0;
            attr = PyTuple_GET_ITEM(args, 1);
            if (!PyUnicode_Check(attr))
                return 0;
            text = PyUnicode_AsUTF8(attr);
            if (text == NULL) {
                PyErr_Clear();
                return 0;
            }
            for (i = 0; i < n_restricted; i++)
                if (strcmp(text, restricted_c[i]) == 0)
                    break;
            if (i == n_restricted)
                return 0;
            name = Py_NewRef(getattr_event);
        } else if (strncmp(event, "ctypes.", 7) == 0) {
            name = PyUnicode_FromString(event);
            if (name == NULL)
                return -1;  /* as CPython does when it cannot build a Python hook's event name */
        } else {
            return 0;
        }
    }
    {
        /* As CPython calls a Python hook: no tracing or profiling inside it. Its error, if any, is the
           event's, exactly as a Python hook's is (the record's hook catches every Exception). */
        PyThreadState *ts = PyThreadState_Get();
        PyObject *argv[2] = {name, args};
        PyObject *result;
        PyThreadState_EnterTracing(ts);
        running = 1;
        result = PyObject_Vectorcall(hook, argv, 2, NULL);
        running = 0;
        PyThreadState_LeaveTracing(ts);
        Py_DECREF(name);
        if (result == NULL)
            return -1;
        Py_DECREF(result);
    }
    return 0;
}

/* The names of a frozenset of exact str into the C arrays (each str kept alive for good). */
static int
take_names(PyObject *set, PyObject **objects, const char **texts, int *count)
{
    PyObject *items, *item;
    if (!PyFrozenSet_CheckExact(set) || PySet_GET_SIZE(set) > MAX_NAMES || (items = PyObject_GetIter(set)) == NULL) {
        PyErr_SetString(PyExc_TypeError, "a frozenset of at most 64 str");
        return -1;
    }
    while ((item = PyIter_Next(items)) != NULL) {
        if (!PyUnicode_CheckExact(item) || (texts[*count] = PyUnicode_AsUTF8(item)) == NULL) {
            Py_DECREF(item);
            Py_DECREF(items);
            PyErr_SetString(PyExc_TypeError, "a frozenset of at most 64 str");
            return -1;
        }
        objects[(*count)++] = item;  /* the iterator's reference, kept for good */
    }
    Py_DECREF(items);
    return PyErr_Occurred() ? -1 : 0;
}

/* tree_read(): a module of the tree was loaded before the hook. Only ever lets more events through. */
static PyObject *
mark_tree_read(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    tree_read = 1;
    Py_RETURN_NONE;
}

static PyObject *
install(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
    (void)self;
    /* The first call only, whether it worked or not: the record's, made before any code of the tree. */
    if (used) {
        PyErr_SetString(PyExc_RuntimeError, "the record's audit hook is installed already");
        return NULL;
    }
    used = 1;
    if (argc != 4 || !PyCallable_Check(argv[0]) || !PyUnicode_CheckExact(argv[3])
        || (tree_c = PyUnicode_AsUTF8AndSize(argv[3], &tree_len)) == NULL || tree_len < 2 || tree_c[0] != '/'
        || tree_c[tree_len - 1] != '/' || (Py_ssize_t)strlen(tree_c) != tree_len) {
        PyErr_SetString(PyExc_TypeError, "install(hook, relevant, restricted, tree folder)");
        return NULL;
    }
    tree_obj = Py_NewRef(argv[3]);  /* kept for good: tree_c points into it, and blame() knows the record's walks by it */
    if (take_names(argv[1], relevant, relevant_c, &n_relevant) < 0
        || take_names(argv[2], restricted, restricted_c, &n_restricted) < 0)
        return NULL;
    getattr_event = PyUnicode_InternFromString("object.__getattr__");
    if (getattr_event == NULL)
        return NULL;
    home = PyInterpreterState_Get();
    hook = Py_NewRef(argv[0]);
    if (PySys_AddAuditHook(audit, NULL) < 0) {
        Py_CLEAR(hook);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* The dict behind a namespace: a dict itself, or a class's mappingproxy (its only field, unchanged
   from 3.3 to 3.13); NULL for anything else. */
typedef struct {
    PyObject_HEAD
    PyObject *mapping;
} proxy_object;

static PyObject *
dict_of(PyObject *space)
{
    if (PyDict_CheckExact(space))
        return space;
    if (Py_IS_TYPE(space, &PyDictProxy_Type) && PyDict_CheckExact(((proxy_object *)space)->mapping))
        return ((proxy_object *)space)->mapping;
    return NULL;
}

/* The same (key, value) objects in the same order: a dict.copy() of it that nothing has changed since. */
static int
same(PyObject *a, PyObject *b)
{
    Py_ssize_t i = 0, j = 0;
    PyObject *ka, *va, *kb, *vb;
    a = dict_of(a);
    b = dict_of(b);
    if (a == NULL || b == NULL || PyDict_GET_SIZE(a) != PyDict_GET_SIZE(b))
        return 0;
    while (PyDict_Next(a, &i, &ka, &va)) {
        if (!PyDict_Next(b, &j, &kb, &vb) || ka != kb || va != vb)
            return 0;
    }
    return 1;
}

/* differ(spaces, copies) -> tuple of the indexes whose namespace is not the same as its copy. */
static PyObject *
differ(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
    PyObject *spaces, *copies, *out, *index;
    Py_ssize_t i, n;
    (void)self;
    if (argc != 2 || !PySequence_Check(argv[0]) || !PySequence_Check(argv[1])) {
        PyErr_SetString(PyExc_TypeError, "differ(spaces, copies)");
        return NULL;
    }
    spaces = PySequence_Fast(argv[0], "differ(spaces, copies)");
    if (spaces == NULL)
        return NULL;
    copies = PySequence_Fast(argv[1], "differ(spaces, copies)");
    if (copies == NULL) {
        Py_DECREF(spaces);
        return NULL;
    }
    out = PyList_New(0);
    n = PySequence_Fast_GET_SIZE(spaces);
    for (i = 0; out != NULL && i < n; i++) {
        if (i < PySequence_Fast_GET_SIZE(copies)
            && same(PySequence_Fast_GET_ITEM(spaces, i), PySequence_Fast_GET_ITEM(copies, i)))
            continue;
        index = PyLong_FromSsize_t(i);
        if (index == NULL || PyList_Append(out, index) < 0)
            Py_CLEAR(out);
        Py_XDECREF(index);
    }
    Py_DECREF(spaces);
    Py_DECREF(copies);
    return out;
}

/* versions(spaces) -> tuple of each namespace's dict version (PEP 509: a new one at every change of
   the dict, whatever changes it), or None where the interpreter has none (3.14 dropped the field). */
static PyObject *
versions(PyObject *self, PyObject *spaces)
{
#if PY_VERSION_HEX < 0x030E0000
    PyObject *items, *out, *dict;
    Py_ssize_t i, n;
    (void)self;
    items = PySequence_Fast(spaces, "versions(spaces)");
    if (items == NULL)
        return NULL;
    n = PySequence_Fast_GET_SIZE(items);
    out = PyTuple_New(n);
    for (i = 0; out != NULL && i < n; i++) {
        PyObject *version;
        dict = dict_of(PySequence_Fast_GET_ITEM(items, i));
        version = dict == NULL ? Py_NewRef(Py_None) : PyLong_FromUnsignedLongLong(((PyDictObject *)dict)->ma_version_tag);
        if (version == NULL)
            Py_CLEAR(out);
        else
            PyTuple_SET_ITEM(out, i, version);
    }
    Py_DECREF(items);
    return out;
#else
    (void)self;
    (void)spaces;
    Py_RETURN_NONE;
#endif
}

/* changed(spaces, versions) -> list of the indexes whose dict is not at the version given: those may
   differ from what they held then (and a dict set to what it held is walked, and found the same). */
static PyObject *
changed(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
#if PY_VERSION_HEX < 0x030E0000
    PyObject *spaces, *given, *out, *index, *dict, *version;
    Py_ssize_t i, n;
    (void)self;
    if (argc != 2 || !PyTuple_CheckExact(argv[1])) {
        PyErr_SetString(PyExc_TypeError, "changed(spaces, versions)");
        return NULL;
    }
    given = argv[1];
    spaces = PySequence_Fast(argv[0], "changed(spaces, versions)");
    if (spaces == NULL)
        return NULL;
    n = PySequence_Fast_GET_SIZE(spaces);
    out = PyList_New(0);
    for (i = 0; out != NULL && i < n; i++) {
        dict = dict_of(PySequence_Fast_GET_ITEM(spaces, i));
        version = i < PyTuple_GET_SIZE(given) ? PyTuple_GET_ITEM(given, i) : NULL;
        if (dict != NULL && version != NULL && PyLong_CheckExact(version)
            && PyLong_AsUnsignedLongLong(version) == ((PyDictObject *)dict)->ma_version_tag)
            continue;
        PyErr_Clear();
        index = PyLong_FromSsize_t(i);
        if (index == NULL || PyList_Append(out, index) < 0)
            Py_CLEAR(out);
        Py_XDECREF(index);
    }
    Py_DECREF(spaces);
    return out;
#else
    (void)self;
    (void)argv;
    (void)argc;
    PyErr_SetString(PyExc_NotImplementedError, "no dict versions");
    return NULL;
#endif
}

/* where(space, keys) -> tuple of each key object's place among the dict's entries, or None when one
   is not there (by identity: the keys come from the dict itself). */
static PyObject *
where(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
    PyObject *dict, *keys, *out, *key, *value;
    Py_ssize_t pos = 0, k, n, found = 0, nxt = 0;
    (void)self;
    if (argc != 2 || (dict = dict_of(argv[0])) == NULL || !PyTuple_CheckExact(argv[1]))
        Py_RETURN_NONE;
    keys = argv[1];
    n = PyTuple_GET_SIZE(keys);
    out = PyTuple_New(n);
    if (out == NULL)
        return NULL;
    while (found < n && PyDict_Next(dict, &pos, &key, &value)) {
        /* The keys were listed in the dict's order: the next one is almost always the entry's. */
        k = (nxt < n && PyTuple_GET_ITEM(keys, nxt) == key) ? nxt : 0;
        for (; k < n; k++) {
            if (PyTuple_GET_ITEM(keys, k) == key && PyTuple_GET_ITEM(out, k) == NULL) {
                PyObject *at = PyLong_FromSsize_t(pos - 1);
                if (at == NULL) {
                    Py_DECREF(out);
                    return NULL;
                }
                PyTuple_SET_ITEM(out, k, at);
                found++;
                nxt = k + 1;
                break;
            }
        }
    }
    if (found < n) {
        Py_DECREF(out);
        Py_RETURN_NONE;
    }
    return out;
}

/* One group [space, keys, values, places, version]: each key object still at its place holding its
   value. A key object is in a dict once, so the entry holding it is the one a lookup of that name
   finds. The dict's version when that was last so (None at first) spares reading the slots while the
   dict has not changed. */
static int
still(PyObject *group)
{
    PyObject *dict, *keys, *values, *places, *key, *value;
    Py_ssize_t k, n, pos;
    if (!PyList_CheckExact(group) || PyList_GET_SIZE(group) != 5)
        return 0;
    dict = dict_of(PyList_GET_ITEM(group, 0));
    keys = PyList_GET_ITEM(group, 1);
    values = PyList_GET_ITEM(group, 2);
    places = PyList_GET_ITEM(group, 3);
    if (dict == NULL || !PyTuple_CheckExact(keys) || !PyTuple_CheckExact(values) || !PyTuple_CheckExact(places))
        return 0;
    n = PyTuple_GET_SIZE(keys);
    if (PyTuple_GET_SIZE(values) != n || PyTuple_GET_SIZE(places) != n)
        return 0;
#if PY_VERSION_HEX < 0x030E0000
    if (PyLong_CheckExact(PyList_GET_ITEM(group, 4))
        && PyLong_AsUnsignedLongLong(PyList_GET_ITEM(group, 4)) == ((PyDictObject *)dict)->ma_version_tag)
        return 1;
    PyErr_Clear();
#endif
    for (k = 0; k < n; k++) {
        pos = PyLong_AsSsize_t(PyTuple_GET_ITEM(places, k));
        if (pos < 0) {
            PyErr_Clear();
            return 0;
        }
        if (!PyDict_Next(dict, &pos, &key, &value) || key != PyTuple_GET_ITEM(keys, k) || value != PyTuple_GET_ITEM(values, k))
            return 0;
    }
#if PY_VERSION_HEX < 0x030E0000
    {
        PyObject *version = PyLong_FromUnsignedLongLong(((PyDictObject *)dict)->ma_version_tag);
        if (version == NULL)
            PyErr_Clear();
        else
            PyList_SetItem(group, 4, version);  /* steals it */
    }
#endif
    return 1;
}

/* moved(groups) -> list of the indexes of the groups where a slot is not as it was. */
static PyObject *
moved(PyObject *self, PyObject *groups)
{
    PyObject *out, *index;
    Py_ssize_t i;
    (void)self;
    if (!PyList_CheckExact(groups)) {
        PyErr_SetString(PyExc_TypeError, "moved(list)");
        return NULL;
    }
    out = PyList_New(0);
    for (i = 0; out != NULL && i < PyList_GET_SIZE(groups); i++) {
        if (still(PyList_GET_ITEM(groups, i)))
            continue;
        index = PyLong_FromSsize_t(i);
        if (index == NULL || PyList_Append(out, index) < 0)
            Py_CLEAR(out);
        Py_XDECREF(index);
    }
    return out;
}

/* Whether str name starts (direction -1) or ends (+1) with part (a str); an error is a no. */
static int
tail(PyObject *name, PyObject *part, int direction)
{
    Py_ssize_t found;
    if (!PyUnicode_Check(part))
        return 0;
    found = PyUnicode_Tailmatch(name, part, 0, PY_SSIZE_T_MAX, direction);
    if (found < 0) {
        PyErr_Clear();
        return 0;
    }
    return found == 1;
}

/* The frames of the last record's walk that found no tree code, bottom up, each held (a reference)
   until the next such walk replaces them: from each of them up, the first frame that is not a
   helper's is not the tree's. A frame that is not a generator's or a coroutine's runs once, without a
   pause, so while it is on the stack (a walk reaches it) every frame above it is the one that walk
   saw, and the walk stops there: pytest reads tracebacks all the time from deep in the same stack.
   Only the record's own walks (tree is the folder install() was given, an object code under test
   never holds) read or change them: a walk of code under test that loaded this file must not mark a
   frame of its own as seen. */
#define CLEAN_MAX 256
#define RESUMABLE (CO_GENERATOR | CO_COROUTINE | CO_ITERABLE_COROUTINE | CO_ASYNC_GENERATOR)
static PyObject *clean[CLEAN_MAX];
static int n_clean;

/* Drops the frames held (the record's exit: held to the interpreter's end, their locals would be too). */
static PyObject *
forget(PyObject *self, PyObject *unused)
{
    int i, n = n_clean;
    (void)self;
    (void)unused;
    n_clean = 0;
    for (i = 0; i < n; i++)
        Py_CLEAR(clean[i]);
    Py_RETURN_NONE;
}

/* The new list of clean frames: walked (references handed over), then the old list from index at on. */
static void
remember(PyObject **walked, int n_walked, int at)
{
    PyObject *next[CLEAN_MAX];
    int i, n = 0;
    for (i = 0; i < n_walked; i++)
        next[n++] = walked[i];
    for (i = at; at >= 0 && i < n_clean && n < CLEAN_MAX; i++)
        next[n++] = Py_NewRef(clean[i]);
    forget(NULL, NULL);
    for (i = 0; i < n; i++)
        clean[i] = next[i];
    n_clean = n;
}

/* blame(frame, tree, helper_dirs, helper_ends) -> (file, line) or None: the record's blamed() walk in C.
   From frame up, past the frames of helpers that act for their caller (files under helper_dirs, or
   ending in one of helper_ends, never a file of the tree), the first frame: the tree's file and line when
   it is under tree, else None. Frames are read through the C API, which audits nothing: in Python
   each step (f_code, f_back) was an audited read, a call of the record's hook. */
static PyObject *
blame(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyFrameObject *frame, *back;
    PyCodeObject *code;
    PyObject *name, *tree, *dirs, *ends, *found = NULL, *walked[CLEAN_MAX];
    Py_ssize_t i;
    int helper, n_walked = 0, at = -1, mine, k;
    (void)self;
    if (nargs != 4 || !PyUnicode_Check(args[1]) || !PyTuple_Check(args[2]) || !PyTuple_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "blame(frame, tree, helper_dirs, helper_ends)");
        return NULL;
    }
    if (args[0] == Py_None)
        Py_RETURN_NONE;
    if (!PyFrame_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "blame(frame, ...)");
        return NULL;
    }
    tree = args[1];
    dirs = args[2];
    ends = args[3];
    mine = tree_obj != NULL && tree == tree_obj;
    frame = (PyFrameObject *)args[0];
    Py_INCREF(frame);
    while (frame != NULL) {
        for (k = 0; mine && k < n_clean; k++) {
            if (clean[k] == (PyObject *)frame) {
                at = k;
                break;
            }
        }
        if (at >= 0)
            break;
        code = PyFrame_GetCode(frame);
        name = code->co_filename;
        if (PyUnicode_Check(name) && tail(name, tree, -1)) {
            found = Py_BuildValue("(Oi)", name, PyFrame_GetLineNumber(frame));
            Py_DECREF(code);
            Py_DECREF(frame);
            for (k = 0; k < n_walked; k++)
                Py_DECREF(walked[k]);
            return found;
        }
        helper = 0;
        if (PyUnicode_Check(name)) {
            for (i = 0; !helper && i < PyTuple_GET_SIZE(dirs); i++)
                helper = tail(name, PyTuple_GET_ITEM(dirs, i), -1);
            for (i = 0; !helper && i < PyTuple_GET_SIZE(ends); i++)
                helper = tail(name, PyTuple_GET_ITEM(ends, i), 1);
        }
        if (mine && !(code->co_flags & RESUMABLE) && n_walked < CLEAN_MAX)
            walked[n_walked++] = Py_NewRef(frame);
        Py_DECREF(code);
        if (!helper)
            break;
        back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
    }
    Py_XDECREF(frame);
    if (mine)
        remember(walked, n_walked, at);
    Py_RETURN_NONE;
}

${ACCEL_SLOTS_SOURCE}
static PyMethodDef methods[] = {
    {"blame", (PyCFunction)(void (*)(void))blame, METH_FASTCALL, "blame(frame, tree, helper_dirs, helper_ends) -> (file, line) or None"},
    {"forget", forget, METH_NOARGS, "forget(): drops the frames the record's blame walks hold"},
    {"install", (PyCFunction)(void (*)(void))install, METH_FASTCALL, "install(hook, relevant, restricted, tree folder): once"},
    {"tree_read", mark_tree_read, METH_NOARGS, "tree_read(): a module of the tree was loaded before the hook"},
    {"differ", (PyCFunction)(void (*)(void))differ, METH_FASTCALL, "differ(spaces, copies) -> [index]"},
    {"where", (PyCFunction)(void (*)(void))where, METH_FASTCALL, "where(space, keys) -> (place, ...) or None"},
    {"versions", versions, METH_O, "versions(spaces) -> (version or None, ...), or None"},
    {"changed", (PyCFunction)(void (*)(void))changed, METH_FASTCALL, "changed(spaces, versions) -> [index]"},
    {"moved", moved, METH_O, "moved([[space, keys, values, places, version], ...]) -> [index]"},
    {"keep", (PyCFunction)(void (*)(void))keep, METH_FASTCALL, "keep(modules, imported, kept_names, not_kept, kept) -> [name] or None"},
    {"watch", (PyCFunction)(void (*)(void))watch, METH_FASTCALL, "watch(name, space) -> [(namespace, keys, values, places, prefix)] or None"},
    {"suspects", (PyCFunction)(void (*)(void))suspects, METH_FASTCALL, "suspects(name, space, classes, plain) -> [(key, value) or (key, class, members)] or None"},
    {NULL, NULL, 0, NULL},
};

/* Multi-phase: _imp.create_dynamic makes the module without putting it in sys.modules. */
static PyModuleDef_Slot slots[] = {{0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ranex_accel", "Ranex Gate's audit filter and identity comparisons.", 0, methods, slots,
};

PyMODINIT_FUNC
PyInit__ranex_accel(void)
{
    return PyModuleDef_Init(&module);
}
`;
