// The accelerator's reads of namespaces for the Python record's start and exit checks (issue 19's
// cost), spliced into its C source (./python-accel.ts) before its method table: watch() for the
// watched functions, keep() for the swapped-slot copies, suspects() for the planted walk. Each does in
// one C call what the record's Python did in a loop (./python-hook.ts, ./python-swapped.ts,
// ./python-planted.ts), and leaves out or hands back only what that loop would decide the same way:
// what it cannot read for sure goes back to Python. It uses the statics declared before it (tree_c,
// tree_len). Never a backtick in this text: it is a String.raw template.

export const ACCEL_SLOTS_SOURCE = String.raw`/* Names read here, made once and kept. */
static PyObject *module_attr, *file_attr, *func_attr, *fget_attr, *fset_attr, *qualname_attr;

static int
names_made(void)
{
    return (module_attr != NULL || (module_attr = PyUnicode_InternFromString("__module__")) != NULL)
        && (file_attr != NULL || (file_attr = PyUnicode_InternFromString("__file__")) != NULL)
        && (func_attr != NULL || (func_attr = PyUnicode_InternFromString("__func__")) != NULL)
        && (fget_attr != NULL || (fget_attr = PyUnicode_InternFromString("fget")) != NULL)
        && (fset_attr != NULL || (fset_attr = PyUnicode_InternFromString("fset")) != NULL)
        && (qualname_attr != NULL || (qualname_attr = PyUnicode_InternFromString("__qualname__")) != NULL);
}

/* 1 when path is an exact str under the tree's folder, 0 when it is not, -1 when it cannot be read here. */
static int
tree_file(PyObject *path)
{
    const char *text;
    Py_ssize_t len;
    if (!PyUnicode_CheckExact(path))
        return 0;
    text = PyUnicode_AsUTF8AndSize(path, &len);
    if (text == NULL) {
        PyErr_Clear();
        return -1;
    }
    return len >= tree_len && memcmp(text, tree_c, tree_len) == 0;
}

/* 1 when path is an exact str under the tree's folder, or cannot be read here. */
static int
under_tree(PyObject *path)
{
    return tree_file(path) != 0;
}

/* 0 only when the walk's function_origin() says None for sure: the __file__ of the function's globals
   (else its code's file name) is not a file of the tree. */
static int
function_may_be_tree(PyObject *function)
{
    PyObject *home = PyFunction_GET_GLOBALS(function), *path;
    if (!PyDict_CheckExact(home))
        return 1;
    path = PyDict_GetItemWithError(home, file_attr);
    if (path == NULL && PyErr_Occurred()) {
        PyErr_Clear();
        return 1;
    }
    if (path == NULL || !PyUnicode_CheckExact(path))
        path = ((PyCodeObject *)PyFunction_GET_CODE(function))->co_filename;
    return under_tree(path);
}

/* 0 only when the walk's origin(value, 1) says None for sure: None, or a function from outside the tree. */
static int
inner_may_be_tree(PyObject *value)
{
    if (value == Py_None)
        return 0;
    return PyFunction_Check(value) ? function_may_be_tree(value) : 1;
}

/* inner_may_be_tree() of what value holds under attr, read as object.__getattribute__ reads it; 1 when
   it cannot be read. */
static int
held_may_be_tree(PyObject *value, PyObject *attr)
{
    PyObject *inner = PyObject_GenericGetAttr(value, attr);
    int may;
    if (inner == NULL) {
        PyErr_Clear();
        return 1;
    }
    may = inner_may_be_tree(inner);
    Py_DECREF(inner);
    return may;
}

/* 0 only when the walk's origin(value, 0) of a property, static or class method or bound method says
   None for sure (what it wraps is None or a function from outside the tree); 1 for anything else. */
static int
wrapper_may_be_tree(PyObject *value)
{
    if (Py_IS_TYPE(value, &PyMethod_Type))
        return inner_may_be_tree(PyMethod_GET_FUNCTION(value));
    if (Py_IS_TYPE(value, &PyStaticMethod_Type) || Py_IS_TYPE(value, &PyClassMethod_Type))
        return held_may_be_tree(value, func_attr);
    if (Py_IS_TYPE(value, &PyProperty_Type))
        return held_may_be_tree(value, fget_attr) || held_may_be_tree(value, fset_attr);
    return 1;
}

/* For a function, a property, a static or class method, and a bound method when bound: 0 when the
   walk would find nothing in it for sure (a function of space's own globals, or code from outside the
   tree), 1 when it must look; -1 for any other kind. */
static int
code_may_be_tree(PyObject *value, PyObject *space, int bound)
{
    if (PyFunction_Check(value))
        return PyFunction_GET_GLOBALS(value) != space && function_may_be_tree(value);
    if (Py_IS_TYPE(value, &PyProperty_Type) || Py_IS_TYPE(value, &PyStaticMethod_Type)
        || Py_IS_TYPE(value, &PyClassMethod_Type) || (bound && Py_IS_TYPE(value, &PyMethod_Type)))
        return wrapper_may_be_tree(value);
    return -1;
}

/* 0 only when the walk's tree_file_of(owner) says None for sure: the module loaded under that name is
   not a plain module whose __file__ is a file of the tree. */
static int
owner_may_be_tree(PyObject *owner)
{
    PyObject *module, *space, *path;
    if (!PyUnicode_CheckExact(owner))
        return 1;
    module = PyDict_GetItemWithError(PyImport_GetModuleDict(), owner);
    if (module == NULL) {
        if (!PyErr_Occurred())
            return 0;
        PyErr_Clear();
        return 1;
    }
    if (!PyModule_CheckExact(module))
        return 0;
    if ((space = PyModule_GetDict(module)) == NULL || !PyDict_CheckExact(space)) {
        PyErr_Clear();
        return 1;
    }
    path = PyDict_GetItemWithError(space, file_attr);
    if (path == NULL) {
        if (!PyErr_Occurred())
            return 0;
        PyErr_Clear();
        return 1;
    }
    return under_tree(path);
}

/* Appends (key, value) or (key, value, members) to out; -1 on an error (out is then dropped). */
static int
pick(PyObject *out, PyObject *key, PyObject *value, PyObject *members)
{
    PyObject *entry = members == NULL ? PyTuple_Pack(2, key, value) : PyTuple_Pack(3, key, value, members);
    int failed = entry == NULL || PyList_Append(out, entry) < 0;
    Py_XDECREF(entry);
    return failed ? -1 : 0;
}

/* The members of a class the planted walk must look at: what its planted_member() could find, a
   function from another module's globals or a property, static or class method, unless what it holds
   is, for sure, from outside the tree. Read from the class's own dict, through a list of its items (what
   the loop reads is taken first, as list(items()) takes it). */
static PyObject *
class_suspects(PyTypeObject *klass, PyObject *space)
{
    PyObject *items, *out, *item, *member;
    Py_ssize_t i;
    if (klass->tp_dict == NULL || !PyDict_CheckExact(klass->tp_dict))
        return NULL;
    items = PyDict_Items(klass->tp_dict);
    if (items == NULL)
        return NULL;
    out = PyList_New(0);
    for (i = 0; out != NULL && i < PyList_GET_SIZE(items); i++) {
        item = PyList_GET_ITEM(items, i);
        member = PyTuple_GET_ITEM(item, 1);
        if (code_may_be_tree(member, space, 0) <= 0)
            continue;  /* planted_member() looks at nothing else */
        if (PyList_Append(out, item) < 0)
            Py_CLEAR(out);
    }
    Py_DECREF(items);
    return out;
}

/* suspects(name, space, classes, plain) -> list, or None: the entries of a module's namespace that the
   record's planted walk must look at, each (key, value), or (key, class, members) for a class of the
   module itself whose members were read here (members: the ones to look at, as above). Left out is
   only what the walk would find nothing in, for sure: a value whose kind is in plain (the kinds it
   learnt hold no code of the tree), a function, property, static or class method or bound method
   whose code comes from outside the tree, a class of another module that is not the tree's, a class of
   the module itself when classes is false or the class is built in (immutable), and a class of the
   module none of whose members is left to look at. Reads by identity and through the C API: no lookup
   that an object could answer but the class's __module__, read as type.__getattribute__ reads it (the
   walk reads it so), and __file__ in a dict (as dict.get reads it). None when space is not a dict or
   the tree's folder is not known: the walk then reads every entry. */
static PyObject *
suspects(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
    PyObject *name, *space, *plain, *items, *out, *item, *key, *value, *owner, *members;
    Py_ssize_t i;
    int classes, known, own, may;
    (void)self;
    if (argc != 4 || tree_c == NULL || !PyUnicode_CheckExact(argv[0]) || !PyDict_CheckExact(argv[1])
        || !PyAnySet_CheckExact(argv[3]))
        Py_RETURN_NONE;
    if (!names_made())
        return NULL;
    name = argv[0];
    space = argv[1];
    plain = argv[3];
    classes = PyObject_IsTrue(argv[2]);
    if (classes < 0)
        return NULL;
    items = PyDict_Items(space);
    if (items == NULL)
        return NULL;
    out = PyList_New(0);
    for (i = 0; out != NULL && i < PyList_GET_SIZE(items); i++) {
        item = PyList_GET_ITEM(items, i);
        key = PyTuple_GET_ITEM(item, 0);
        value = PyTuple_GET_ITEM(item, 1);
        known = PySet_Contains(plain, (PyObject *)Py_TYPE(value));
        if (known < 0) {
            Py_CLEAR(out);
            break;
        }
        if (known)
            continue;
        may = code_may_be_tree(value, space, 1);
        if (may == 0)
            continue;
        if (may < 0 && PyType_Check(value)) {
            owner = PyType_Type.tp_getattro(value, module_attr);
            if (owner == NULL) {
                PyErr_Clear();  /* the walk reads it again, and its error is the walk's */
            } else {
                own = PyUnicode_CheckExact(owner) && PyUnicode_Compare(owner, name) == 0;
                may = own || owner_may_be_tree(owner);
                Py_DECREF(owner);
                if (!may)
                    continue;
                if (own) {
                    if (!classes || (((PyTypeObject *)value)->tp_flags & Py_TPFLAGS_IMMUTABLETYPE))
                        continue;
                    members = class_suspects((PyTypeObject *)value, space);
                    if (members == NULL) {
                        if (PyErr_Occurred())
                            Py_CLEAR(out);
                        else if (pick(out, key, value, NULL) < 0)
                            Py_CLEAR(out);
                        continue;
                    }
                    if (PyList_GET_SIZE(members) > 0 && pick(out, key, value, members) < 0)
                        Py_CLEAR(out);
                    Py_DECREF(members);
                    continue;
                }
            }
        }
        if (pick(out, key, value, NULL) < 0)
            Py_CLEAR(out);
    }
    Py_DECREF(items);
    return out;
}

/* Appends to out the group (namespace, keys, values, places, prefix) of the entries of dict that
   the watched functions keep: a function, and on a class (members) a static or class method too. The
   places are the entries' indexes, as where() gives them. Nothing when no entry is kept. */
static int
watch_group(PyObject *out, PyObject *namespace, PyObject *dict, PyObject *prefix, int members)
{
    PyObject *keys = PyList_New(0), *values = PyList_New(0), *places = PyList_New(0), *key, *value, *at, *group;
    Py_ssize_t pos = 0;
    int failed = keys == NULL || values == NULL || places == NULL;
    while (!failed && PyDict_Next(dict, &pos, &key, &value)) {
        if (!PyFunction_Check(value)
            && !(members && (Py_IS_TYPE(value, &PyStaticMethod_Type) || Py_IS_TYPE(value, &PyClassMethod_Type))))
            continue;
        at = PyLong_FromSsize_t(pos - 1);
        failed = at == NULL || PyList_Append(keys, key) < 0 || PyList_Append(values, value) < 0 || PyList_Append(places, at) < 0;
        Py_XDECREF(at);
    }
    if (!failed && PyList_GET_SIZE(keys) > 0) {
        group = Py_BuildValue("(ONNNO)", namespace, PyList_AsTuple(keys), PyList_AsTuple(values), PyList_AsTuple(places), prefix);
        failed = group == NULL || PyList_Append(out, group) < 0;
        Py_XDECREF(group);
    }
    Py_XDECREF(keys);
    Py_XDECREF(values);
    Py_XDECREF(places);
    return failed ? -1 : 0;
}

/* watch(name, space) -> list of (namespace, keys, values, places, prefix): what the record's snapshot()
   keeps of a watched module, its functions and those of the classes it defines (whose __module__,
   read as type.__getattribute__ reads it, is the module's name: their static and class methods too),
   each namespace's with the places of its entries, for moved(). The prefix names a slot in a finding
   (module name, and the class's __qualname__, then a dot). Python read each entry in a loop of its
   own (about 4 M instructions on python-calc's run, for about 2,000 slots). None when space is not a dict. */
static PyObject *
watch(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
    PyObject *name, *space, *items, *out, *value, *owner, *qual, *text, *prefix, *proxy;
    PyTypeObject *klass;
    Py_ssize_t i;
    int own;
    (void)self;
    if (argc != 2 || !PyUnicode_CheckExact(argv[0]) || !PyDict_CheckExact(argv[1]))
        Py_RETURN_NONE;
    if (!names_made())
        return NULL;
    name = argv[0];
    space = argv[1];
    out = PyList_New(0);
    if (out == NULL)
        return NULL;
    prefix = PyUnicode_FromFormat("%U.", name);
    if (prefix == NULL || watch_group(out, space, space, prefix, 0) < 0)
        Py_CLEAR(out);
    Py_XDECREF(prefix);
    /* The classes: reading a class's __module__ may run code, so from a list of the items. */
    items = out == NULL ? NULL : PyDict_Values(space);
    if (items == NULL)
        Py_CLEAR(out);
    for (i = 0; out != NULL && i < PyList_GET_SIZE(items); i++) {
        value = PyList_GET_ITEM(items, i);
        if (!PyType_Check(value))
            continue;
        klass = (PyTypeObject *)value;
        owner = PyType_Type.tp_getattro(value, module_attr);
        if (owner == NULL) {
            Py_CLEAR(out);
            break;
        }
        own = PyUnicode_CheckExact(owner) && PyUnicode_Compare(owner, name) == 0;
        Py_DECREF(owner);
        if (!own || klass->tp_dict == NULL || !PyDict_CheckExact(klass->tp_dict))
            continue;
        qual = PyType_Type.tp_getattro(value, qualname_attr);
        text = qual == NULL ? NULL : PyObject_Str(qual);
        prefix = text == NULL ? NULL : PyUnicode_FromFormat("%U.%U.", name, text);
        proxy = prefix == NULL ? NULL : PyDictProxy_New(klass->tp_dict);
        if (proxy == NULL || watch_group(out, proxy, klass->tp_dict, prefix, 1) < 0)
            Py_CLEAR(out);
        Py_XDECREF(qual);
        Py_XDECREF(text);
        Py_XDECREF(prefix);
        Py_XDECREF(proxy);
    }
    Py_XDECREF(items);
    return out;
}

/* keep(modules, imported, kept_names, not_kept, kept) -> list of names, or None: the swapped-slot
   check's keep() for every entry of modules (sys.modules when the tree's first code file is opened):
   each name joins imported; a plain module under a str name that is not in kept_names nor not_kept,
   and whose __file__ is not a file of the tree, joins kept_names and kept gets (name, module, its
   namespace, a copy of it). The names it could not decide (a namespace that is not a dict, a __file__
   it cannot read) are returned for the Python keep(). About 1.3 M instructions on python-calc's run
   in Python, for about 300 modules. None when an argument is not what it should be. */
static PyObject *
keep(PyObject *self, PyObject *const *argv, Py_ssize_t argc)
{
    PyObject *imported, *kept_names, *not_kept, *kept, *items, *left, *name, *module, *space, *path, *copy, *entry;
    Py_ssize_t i;
    int known, inside;
    (void)self;
    if (argc != 5 || tree_c == NULL || !PyDict_CheckExact(argv[0]) || !PySet_CheckExact(argv[1])
        || !PySet_CheckExact(argv[2]) || !PyAnySet_CheckExact(argv[3]) || !PyList_CheckExact(argv[4]))
        Py_RETURN_NONE;
    if (!names_made())
        return NULL;
    imported = argv[1];
    kept_names = argv[2];
    not_kept = argv[3];
    kept = argv[4];
    items = PyDict_Items(argv[0]);
    if (items == NULL)
        return NULL;
    left = PyList_New(0);
    for (i = 0; left != NULL && i < PyList_GET_SIZE(items); i++) {
        name = PyTuple_GET_ITEM(PyList_GET_ITEM(items, i), 0);
        module = PyTuple_GET_ITEM(PyList_GET_ITEM(items, i), 1);
        if (PySet_Add(imported, name) < 0) {
            Py_CLEAR(left);
            break;
        }
        if (!PyModule_CheckExact(module) || !PyUnicode_CheckExact(name))
            continue;
        known = PySet_Contains(kept_names, name);
        if (known == 0)
            known = PySet_Contains(not_kept, name);
        if (known < 0) {
            Py_CLEAR(left);
            break;
        }
        if (known)
            continue;
        space = PyModule_GetDict(module);
        path = space != NULL && PyDict_CheckExact(space) ? PyDict_GetItemWithError(space, file_attr) : NULL;
        if (space == NULL || !PyDict_CheckExact(space) || (path == NULL && PyErr_Occurred()))
            inside = -1;
        else
            inside = path == NULL ? 0 : tree_file(path);
        if (inside < 0) {
            PyErr_Clear();
            if (PyList_Append(left, name) < 0)
                Py_CLEAR(left);
            continue;
        }
        if (inside)
            continue;
        copy = PyDict_Copy(space);
        entry = copy == NULL ? NULL : Py_BuildValue("(OOON)", name, module, space, copy);
        if (entry == NULL || PyList_Append(kept, entry) < 0 || PySet_Add(kept_names, name) < 0)
            Py_CLEAR(left);
        Py_XDECREF(entry);
    }
    Py_DECREF(items);
    return left;
}
`;
