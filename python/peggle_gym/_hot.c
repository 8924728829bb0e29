/* peggle_gym._hot: a single native environment's step, in C (docs/native.md, "The step in C").
 *
 * `PeggleEnv.step` on the native backend is the engine's step plus Python's work around it:
 * reading the action, the call, the info dict, the observation's copy. On a level whose shots
 * take 20 µs that work was a third of the step; here it is one call. It does exactly what the
 * Python code in `PeggleEnv.step` does for the common case (a float or a one-number array, a
 * shot on a level file) and hands everything else back to it, so the two cannot differ in what
 * they return (python/tests/test_native.py plays the same episodes both ways).
 *
 * Built against CPython's limited API (3.10), so one build serves every CPython from 3.10: the
 * wheel is tagged abi3. It needs no numpy headers (arrays are asked through their Python
 * attributes) and links nothing: `peggle_step` comes as an address from the ctypes-loaded library.
 * Nothing here prints, traps or aborts; every failure is a Python exception.
 */
#define Py_LIMITED_API 0x030A0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

/* peggle_env.h's info columns (native.py's INFO_INTS and INFO_REALS, which it checks against
 * `INFO_INTS` and `INFO_REALS` below before using this module). */
enum {
    I_PRESENT, I_TERMINATED, I_TRUNCATED, I_HAS_FINAL, I_LEVEL, I_LEVEL_SEED, I_GENERATOR_SEED, I_SCORE,
    I_BALLS_LEFT, I_ORANGE_LEFT, I_SHOTS, I_STATUS, I_GAME_SEED, I_PEGS_HIT, I_HITS_BLUE, I_HITS_ORANGE,
    I_HITS_GREEN, I_HITS_PURPLE, I_HITS_ZOMBIE, I_HITS_CONFUSEMENT, I_POINTS, I_FREE_BALLS, I_CAUGHT,
    I_TRAJECTORY, N_INTS
};
enum { R_REWARD, R_ANGLE, R_FIRED_ANGLE, N_REALS };
static const char *const INT_NAMES[N_INTS] = {
    "present", "terminated", "truncated", "has_final", "level", "level_seed", "generator_seed", "score",
    "balls_left", "orange_left", "shots", "status", "game_seed", "pegs_hit", "hits_blue", "hits_orange",
    "hits_green", "hits_purple", "hits_zombie", "hits_confusement", "points", "free_balls", "caught",
    "trajectory"};
static const char *const REAL_NAMES[N_REALS] = {"reward", "angle", "fired_angle"};

typedef int32_t (*step_function)(int32_t);

/* One environment's step, as `bind` made it: the library's entry and handle, and the buffers
 * the session writes (kept alive by `keep`). */
typedef struct {
    step_function step;
    int32_t handle;
    double *action;
    const int64_t *ints;  /* N_INTS int64, then N_REALS doubles right after */
    const double *reals;
    PyObject *keep;       /* what owns the buffers */
    PyObject *copy_obs;   /* () -> a new observation array */
    PyObject *names;      /* the environment's level_names list */
    PyObject *slow_info;  /* (values tuple) -> the info, for the uncommon rows (native.info_from) */
    PyObject *ndarray;    /* numpy.ndarray */
    PyObject *float_dtype_seen;  /* the last array dtype found to be of kind f, i or u (compared
                                    by identity, so the kind is asked once per dtype) */
} Hot;

static const char CAPSULE[] = "peggle_gym._hot.Hot";

/* Interned keys and values, made once at import. */
static PyObject *k_level, *k_level_name, *k_score, *k_balls_left, *k_orange_left, *k_shots, *k_status, *k_won,
    *k_angle, *k_fired_angle, *k_pegs_hit, *k_hits, *k_points, *k_free_balls, *k_caught, *k_is_success,
    *k_blue, *k_orange, *k_green, *k_purple, *k_zombie, *k_confusement;
static PyObject *s_ndim, *s_size, *s_dtype, *s_kind, *s_item, *s_empty;
static PyObject *statuses[3];

static void hot_free(PyObject *capsule) {
    Hot *h = PyCapsule_GetPointer(capsule, CAPSULE);
    if (h == NULL) {
        PyErr_Clear();
        return;
    }
    Py_XDECREF(h->keep);
    Py_XDECREF(h->copy_obs);
    Py_XDECREF(h->names);
    Py_XDECREF(h->slow_info);
    Py_XDECREF(h->ndarray);
    Py_XDECREF(h->float_dtype_seen);
    PyMem_Free(h);
}

/* Sets info[key] = PyLong(value); 0 or -1. */
static int put_int(PyObject *dict, PyObject *key, long long value) {
    PyObject *v = PyLong_FromLongLong(value);
    if (v == NULL) return -1;
    int r = PyDict_SetItem(dict, key, v);
    Py_DECREF(v);
    return r;
}

static int put_real(PyObject *dict, PyObject *key, double value) {
    PyObject *v = PyFloat_FromDouble(value);
    if (v == NULL) return -1;
    int r = PyDict_SetItem(dict, key, v);
    Py_DECREF(v);
    return r;
}

/* The action as PeggleEnv.step reads it on its fast path: 1 with *value set, 0 when the
 * action is not one of the shapes read here (the Python code then reads it), -1 on an error. */
static int read_action(Hot *h, PyObject *action, double *value) {
    if (PyFloat_CheckExact(action)) {
        *value = PyFloat_AsDouble(action);
        return 1;
    }
    if ((PyObject *)Py_TYPE(action) != h->ndarray) return 0;
    /* type(action) is np.ndarray and action.size == 1 and action.ndim <= 1 and dtype.kind in "fiu" */
    PyObject *o = PyObject_GetAttr(action, s_size);
    if (o == NULL) return -1;
    long long size = PyLong_AsLongLong(o);
    Py_DECREF(o);
    if (size == -1 && PyErr_Occurred()) return -1;
    if (size != 1) return 0;
    o = PyObject_GetAttr(action, s_ndim);
    if (o == NULL) return -1;
    long ndim = PyLong_AsLong(o);
    Py_DECREF(o);
    if (ndim == -1 && PyErr_Occurred()) return -1;
    if (ndim > 1) return 0;
    PyObject *dtype = PyObject_GetAttr(action, s_dtype);
    if (dtype == NULL) return -1;
    if (dtype != h->float_dtype_seen) {
        PyObject *kind = PyObject_GetAttr(dtype, s_kind);
        if (kind == NULL) {
            Py_DECREF(dtype);
            return -1;
        }
        int ok = PyUnicode_CompareWithASCIIString(kind, "f") == 0 || PyUnicode_CompareWithASCIIString(kind, "i") == 0 ||
                 PyUnicode_CompareWithASCIIString(kind, "u") == 0;
        Py_DECREF(kind);
        if (!ok) {
            Py_DECREF(dtype);
            return 0;
        }
        /* Only compared by identity later; numpy's built-in dtypes live as long as numpy. A
         * dtype that died and whose address was reused would only skip the kind test for an
         * array of that new dtype, so the reference is kept to rule that out. */
        Py_XDECREF(h->float_dtype_seen);
        Py_INCREF(dtype);
        h->float_dtype_seen = dtype;
    }
    Py_DECREF(dtype);
    PyObject *item = PyObject_CallMethodObjArgs(action, s_item, NULL);
    if (item == NULL) return -1;
    /* action.item(), then float() of it: a float, or an int for integer dtypes; anything else
     * (a long double's numpy scalar) is left to the Python code, which calls float() on it. */
    double v;
    if (PyFloat_CheckExact(item)) {
        v = PyFloat_AsDouble(item);
    } else if (PyLong_CheckExact(item)) {
        v = PyLong_AsDouble(item);
    } else {
        Py_DECREF(item);
        return 0;
    }
    Py_DECREF(item);
    if (v == -1.0 && PyErr_Occurred()) return -1;
    *value = v;
    return 1;
}

/* The common info (a shot on a level file), keys in the serve protocol's order: the dict
 * `PeggleEnv.step` builds. */
static PyObject *shot_info(Hot *h, const int64_t *v, const double *r) {
    PyObject *info = PyDict_New();
    if (info == NULL) return NULL;
    int64_t level = v[I_LEVEL], status = v[I_STATUS];
    PyObject *name = s_empty;
    Py_ssize_t count = PyList_Size(h->names);
    if (count < 0) goto fail;
    if (level >= 0 && level < count) {
        name = PyList_GetItem(h->names, (Py_ssize_t)level); /* borrowed */
        if (name == NULL) goto fail;
    }
    if (status < 0 || status > 2) {
        PyErr_Format(PyExc_RuntimeError, "the library reported status %lld, which is not playing, won or lost",
                     (long long)status);
        goto fail;
    }
    if (put_int(info, k_level, level) || PyDict_SetItem(info, k_level_name, name) ||
        put_int(info, k_score, v[I_SCORE]) || put_int(info, k_balls_left, v[I_BALLS_LEFT]) ||
        put_int(info, k_orange_left, v[I_ORANGE_LEFT]) || put_int(info, k_shots, v[I_SHOTS]) ||
        PyDict_SetItem(info, k_status, statuses[status]) ||
        PyDict_SetItem(info, k_won, status == 1 ? Py_True : Py_False) || put_real(info, k_angle, r[R_ANGLE]) ||
        put_real(info, k_fired_angle, r[R_FIRED_ANGLE]) || put_int(info, k_pegs_hit, v[I_PEGS_HIT]))
        goto fail;
    PyObject *hits = PyDict_New();
    if (hits == NULL) goto fail;
    if (put_int(hits, k_blue, v[I_HITS_BLUE]) || put_int(hits, k_orange, v[I_HITS_ORANGE]) ||
        put_int(hits, k_green, v[I_HITS_GREEN]) || put_int(hits, k_purple, v[I_HITS_PURPLE]) ||
        put_int(hits, k_zombie, v[I_HITS_ZOMBIE]) || put_int(hits, k_confusement, v[I_HITS_CONFUSEMENT]) ||
        PyDict_SetItem(info, k_hits, hits)) {
        Py_DECREF(hits);
        goto fail;
    }
    Py_DECREF(hits);
    if (put_int(info, k_points, v[I_POINTS]) || put_int(info, k_free_balls, v[I_FREE_BALLS]) ||
        put_int(info, k_caught, v[I_CAUGHT]))
        goto fail;
    return info;
fail:
    Py_DECREF(info);
    return NULL;
}

/* The row as `native.ROW.unpack_from` reads it: the ints, then the reals. */
static PyObject *row_values(const int64_t *v, const double *r) {
    PyObject *t = PyTuple_New(N_INTS + N_REALS);
    if (t == NULL) return NULL;
    for (int i = 0; i < N_INTS + N_REALS; i++) {
        PyObject *x = i < N_INTS ? PyLong_FromLongLong(v[i]) : PyFloat_FromDouble(r[i - N_INTS]);
        if (x == NULL || PyTuple_SetItem(t, i, x) < 0) {
            Py_DECREF(t);
            return NULL;
        }
    }
    return t;
}

/* hot(action): the 5-tuple PeggleEnv.step returns; None (nothing done) for an action the
 * Python code reads itself; the library's status, an int, when it refused the step (the
 * Python code raises the refusal). */
static PyObject *hot_step(PyObject *capsule, PyObject *const *args, Py_ssize_t nargs) {
    Hot *h = PyCapsule_GetPointer(capsule, CAPSULE);
    if (h == NULL) return NULL;
    if (nargs != 1) {
        PyErr_SetString(PyExc_TypeError, "takes the action");
        return NULL;
    }
    double value = 0;
    int read = read_action(h, args[0], &value);
    if (read < 0) return NULL;
    if (read == 0 || !isfinite(value)) Py_RETURN_NONE;

    h->action[0] = value;
    int32_t status;
    Py_BEGIN_ALLOW_THREADS
    status = h->step(h->handle);
    Py_END_ALLOW_THREADS
    if (status != 0) return PyLong_FromLong(status);

    const int64_t *v = h->ints;
    const double *r = h->reals;
    int terminated = v[I_TERMINATED] == 1, truncated = v[I_TRUNCATED] == 1;
    PyObject *info;
    if (v[I_PRESENT] == 1 && v[I_LEVEL_SEED] < 0 && v[I_TRAJECTORY] == 0) {
        info = shot_info(h, v, r);
    } else {
        PyObject *values = row_values(v, r);
        if (values == NULL) return NULL;
        info = PyObject_CallFunctionObjArgs(h->slow_info, values, NULL);
        Py_DECREF(values);
    }
    if (info == NULL) return NULL;
    if ((terminated || truncated) && PyObject_SetItem(info, k_is_success, v[I_STATUS] == 1 ? Py_True : Py_False) < 0) {
        Py_DECREF(info);
        return NULL;
    }
    PyObject *obs = PyObject_CallNoArgs(h->copy_obs);
    if (obs == NULL) {
        Py_DECREF(info);
        return NULL;
    }
    PyObject *reward = PyFloat_FromDouble(r[R_REWARD]);
    PyObject *result = reward == NULL ? NULL : PyTuple_New(5);
    if (result == NULL) {
        Py_XDECREF(reward);
        Py_DECREF(obs);
        Py_DECREF(info);
        return NULL;
    }
    PyObject *t = terminated ? Py_True : Py_False, *u = truncated ? Py_True : Py_False;
    Py_INCREF(t);
    Py_INCREF(u);
    /* PyTuple_SetItem steals each reference and cannot fail on a new tuple of 5 */
    PyTuple_SetItem(result, 0, obs);
    PyTuple_SetItem(result, 1, reward);
    PyTuple_SetItem(result, 2, t);
    PyTuple_SetItem(result, 3, u);
    PyTuple_SetItem(result, 4, info);
    return result;
}

static PyMethodDef hot_step_def = {"step", (PyCFunction)(void (*)(void))hot_step, METH_FASTCALL,
                                   "step(action): one native step, or None / the library's status "
                                   "for the Python code to take over"};

/* bind(step_address, handle, action_address, row_address, keep, copy_obs, names, slow_info, ndarray)
 * -> the step function for one environment's session. */
static PyObject *bind(PyObject *Py_UNUSED(module), PyObject *args) {
    unsigned long long step_address, action_address, row_address;
    int handle;
    PyObject *keep, *copy_obs, *names, *slow_info, *ndarray;
    if (!PyArg_ParseTuple(args, "KiKKOOOOO:bind", &step_address, &handle, &action_address, &row_address, &keep,
                          &copy_obs, &names, &slow_info, &ndarray))
        return NULL;
    if (step_address == 0 || action_address == 0 || row_address == 0) {
        PyErr_SetString(PyExc_ValueError, "bind needs the addresses of peggle_step, the action and the info row");
        return NULL;
    }
    if (!PyList_Check(names)) {
        PyErr_SetString(PyExc_TypeError, "level names must be a list");
        return NULL;
    }
    if (!PyCallable_Check(copy_obs) || !PyCallable_Check(slow_info) || !PyType_Check(ndarray)) {
        PyErr_SetString(PyExc_TypeError, "copy_obs and slow_info must be callable, ndarray a type");
        return NULL;
    }
    Hot *h = PyMem_Calloc(1, sizeof(Hot));
    if (h == NULL) return PyErr_NoMemory();
    h->step = (step_function)(uintptr_t)step_address;
    h->handle = (int32_t)handle;
    h->action = (double *)(uintptr_t)action_address;
    h->ints = (const int64_t *)(uintptr_t)row_address;
    h->reals = (const double *)(h->ints + N_INTS);
    Py_INCREF(keep);
    h->keep = keep;
    Py_INCREF(copy_obs);
    h->copy_obs = copy_obs;
    Py_INCREF(names);
    h->names = names;
    Py_INCREF(slow_info);
    h->slow_info = slow_info;
    Py_INCREF(ndarray);
    h->ndarray = ndarray;
    PyObject *capsule = PyCapsule_New(h, CAPSULE, hot_free);
    if (capsule == NULL) {
        Py_DECREF(keep);
        Py_DECREF(copy_obs);
        Py_DECREF(names);
        Py_DECREF(slow_info);
        Py_DECREF(ndarray);
        PyMem_Free(h);
        return NULL;
    }
    PyObject *function = PyCFunction_NewEx(&hot_step_def, capsule, NULL);
    Py_DECREF(capsule);
    return function;
}

static PyMethodDef methods[] = {
    {"bind", bind, METH_VARARGS,
     "bind(step_address, handle, action_address, row_address, keep, copy_obs, names, slow_info, ndarray)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_hot",
                                        "A single native environment's step in C (docs/native.md).", -1, methods,
                                        NULL, NULL, NULL, NULL};

static PyObject *names_tuple(const char *const *names, int count) {
    PyObject *t = PyTuple_New(count);
    if (t == NULL) return NULL;
    for (int i = 0; i < count; i++) {
        PyObject *s = PyUnicode_FromString(names[i]);
        if (s == NULL || PyTuple_SetItem(t, i, s) < 0) {
            Py_DECREF(t);
            return NULL;
        }
    }
    return t;
}

PyMODINIT_FUNC PyInit__hot(void) {
    struct {
        PyObject **slot;
        const char *text;
    } strings[] = {{&k_level, "level"}, {&k_level_name, "level_name"}, {&k_score, "score"},
                   {&k_balls_left, "balls_left"}, {&k_orange_left, "orange_left"}, {&k_shots, "shots"},
                   {&k_status, "status"}, {&k_won, "won"}, {&k_angle, "angle"}, {&k_fired_angle, "fired_angle"},
                   {&k_pegs_hit, "pegs_hit"}, {&k_hits, "hits"}, {&k_points, "points"},
                   {&k_free_balls, "free_balls"}, {&k_caught, "caught"}, {&k_is_success, "is_success"},
                   {&k_blue, "blue"}, {&k_orange, "orange"}, {&k_green, "green"}, {&k_purple, "purple"},
                   {&k_zombie, "zombie"}, {&k_confusement, "confusement"}, {&s_ndim, "ndim"}, {&s_size, "size"},
                   {&s_dtype, "dtype"}, {&s_kind, "kind"}, {&s_item, "item"},
                   {&s_empty, ""}, {&statuses[0], "playing"}, {&statuses[1], "won"}, {&statuses[2], "lost"}};
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++) {
        if (*strings[i].slot == NULL && (*strings[i].slot = PyUnicode_InternFromString(strings[i].text)) == NULL)
            return NULL;
    }
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) return NULL;
    PyObject *ints = names_tuple(INT_NAMES, N_INTS), *reals = names_tuple(REAL_NAMES, N_REALS);
    if (ints == NULL || reals == NULL || PyModule_AddObject(m, "INFO_INTS", ints) < 0) {
        Py_XDECREF(ints);
        Py_XDECREF(reals);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddObject(m, "INFO_REALS", reals) < 0) {
        Py_DECREF(reals);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
