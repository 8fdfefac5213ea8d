/*
 * devarray.unique_all, unique_counts, unique_inverse, unique_values and
 * isin.
 *
 * x is flattened (C order) and sorted ascending with its argsort
 * (sort_along_axis); the groups step counts the runs of equal values
 * that start in each chunk of them (one element a chunk on the host) and
 * sums the counts in order (kernels/launch.h: da_unique); the count of
 * unique values m is read back (one synchronisation: the outputs' shapes
 * depend on it); the scatter step writes each run's first element, its
 * first position in x (the sort is stable, so the smallest), its run
 * length and every element's run number.  Equality is the standard's: NaNs
 * are all distinct (each a run of its own, counted once), -0.0 and +0.0
 * one value, represented by whichever comes first in x.  Values come out
 * sorted, as NumPy's; complex input is sorted lexicographically for this,
 * as NumPy.  inverse_indices has x's shape.
 *
 * The results are namedtuples (UniqueAllResult, UniqueCountsResult,
 * UniqueInverseResult, made once by collections.namedtuple, module
 * devarray), as NumPy 2 returns.
 *
 * isin(x1, x2) brings both to their promoted dtype (a Python scalar weak,
 * as in `equal`), sorts the flattened x2 (sort_along_axis) and makes one
 * pass over x1: the left binary search of each element, then the equality
 * test of the element found (backend_searchsorted in isin's mode), so
 * O((n + m) log m) and one byte written per element of x1.  The sort's
 * order puts equal values together (-0.0 with +0.0, NaNs last), so the
 * left index finds an equal value when there is one; NaN equals nothing,
 * as NumPy 2's isin.  A Python int outside x's integer dtype equals no
 * element of it (NumPy 2's comparisons say the same), rather than raising
 * OverflowError as arithmetic does.
 *
 * Ownership: the flat copy, the sorted temporaries and the groups buffer
 * are held for the call; the result tuple holds new arrays; the three
 * namedtuple types are module-lifetime references kept here.
 */
#include "ops/sets.h"

#include "runtime/backend.h"
#include "core/copy.h"
#include "base/dtype.h"
#include "runtime/pool.h"
#include "interop/scalar.h"
#include "ops/sort.h"
#include "runtime/transfer.h"

static PyObject *sets_all_type = NULL;
static PyObject *sets_counts_type = NULL;
static PyObject *sets_inverse_type = NULL;

enum { SETS_VALUES = 1, SETS_INDICES = 2, SETS_INVERSE = 4, SETS_COUNTS = 8 };

/* out[0..3]: values, indices, inverse_indices, counts, each a new array
   when `want` asks for it. */
static int
sets_unique(PyObject *x, const char *name, int want, DeviceArrayObject **out)
{
    DeviceArrayObject *a, *flat = NULL, *sorted = NULL, *perm = NULL, *groups = NULL;
    int64_t n, m = 0, ends_bytes = 0;
    int64_t *ends = NULL;
    da_unique u;
    int k, status = -1;

    memset(&u, 0, sizeof(u));
    for (k = 0; k < 4; k++) {
        out[k] = NULL;
    }
    if (!DeviceArray_Check(x)) {
        PyErr_Format(PyExc_TypeError, "%s() expects a DeviceArray, not %.200s", name,
                     Py_TYPE(x)->tp_name);
        return -1;
    }
    a = (DeviceArrayObject *)x;
    n = a->size;
    if (array_activate(a) < 0) {
        return -1;
    }
    /* the flat view of a C-contiguous copy (a itself when it is one) */
    flat = copy_contiguous_as(a, a->typenum);
    if (flat == NULL) {
        goto error;
    }
    Py_SETREF(flat, array_new_view(flat->backend, flat->device, flat->typenum, 1, &n,
                                   NULL, flat->data, (PyObject *)flat, 0));
    if (flat == NULL) {
        goto error;
    }
    if (n > 0) {
        const int64_t chunk = backend_unique_chunk(a->backend);
        const int64_t ngroups = (n + chunk - 1) / chunk;
        /* the positions only where an output needs them: a sort of values
           alone takes the faster routes (kernels/sort.cu) */
        if (sort_along_axis(flat, 0, 0, &sorted,
                            want & (SETS_INDICES | SETS_INVERSE) ? &perm : NULL) < 0 ||
            (groups = array_new(a->backend, DA_INT64, 1, &ngroups)) == NULL) {
            goto error;
        }
        u.sorted = sorted->data;
        u.perm = perm != NULL ? (const int64_t *)(const void *)perm->data : NULL;
        u.groups = (int64_t *)(void *)groups->data;
        u.n = n;
        u.chunk = chunk;
        u.typenum = a->typenum;
        if (backend_unique_groups(a->backend, &u) < 0 ||
            transfer_copy(a->backend, &m, u.groups + (ngroups - 1), sizeof(m),
                          DA_COPY_D2H) < 0) {
            goto error;
        }
    }
    u.m = m;
    if (((want & SETS_VALUES) &&
         (out[0] = array_new(a->backend, a->typenum, 1, &m)) == NULL) ||
        ((want & SETS_INDICES) && (out[1] = array_new(a->backend, DA_INT64, 1, &m)) == NULL) ||
        ((want & SETS_INVERSE) &&
         (out[2] = array_new(a->backend, DA_INT64, a->ndim, DA_SHAPE(a))) == NULL) ||
        ((want & SETS_COUNTS) && (out[3] = array_new(a->backend, DA_INT64, 1, &m)) == NULL)) {
        goto error;
    }
    if (n > 0) {
        ends_bytes = m * (int64_t)sizeof(int64_t);
        if ((want & SETS_COUNTS) &&
            (ends = pool_malloc(a->backend, (size_t)ends_bytes)) == NULL) {
            goto error;
        }
        u.values = out[0] != NULL ? out[0]->data : NULL;
        u.indices = out[1] != NULL ? (int64_t *)(void *)out[1]->data : NULL;
        u.inverse = out[2] != NULL ? (int64_t *)(void *)out[2]->data : NULL;
        u.ends = ends;
        u.counts = out[3] != NULL ? (int64_t *)(void *)out[3]->data : NULL;
        if (backend_unique_scatter(a->backend, &u) < 0) {
            goto error;
        }
    }
    status = 0;
    goto done;

error:
    for (k = 0; k < 4; k++) {
        Py_CLEAR(out[k]);
    }
done:
    if (ends != NULL) {
        /* stream-ordered: the scatter has been queued before */
        pool_free(a->backend, ends, (size_t)ends_bytes);
    }
    Py_XDECREF(groups);
    Py_XDECREF(perm);
    Py_XDECREF(sorted);
    Py_XDECREF(flat);
    return status;
}

/* type(*fields) for the arrays `out` holds, in order; the references
   move into the result (out[] cleared) or are left for the caller. */
static PyObject *
sets_result(PyObject *type, DeviceArrayObject **out)
{
    PyObject *args, *result;
    int k, n = 0;

    for (k = 0; k < 4; k++) {
        n += out[k] != NULL;
    }
    args = PyTuple_New(n);
    if (args == NULL) {
        return NULL;
    }
    for (k = 0, n = 0; k < 4; k++) {
        if (out[k] != NULL) {
            PyTuple_SET_ITEM(args, n++, (PyObject *)out[k]);
            out[k] = NULL;
        }
    }
    result = PyObject_Call(type, args, NULL);
    Py_DECREF(args);
    return result;
}

static PyObject *
sets_run(PyObject *x, const char *name, int want, PyObject *type)
{
    DeviceArrayObject *out[4];
    PyObject *result;
    int k;

    if (sets_unique(x, name, want, out) < 0) {
        return NULL;
    }
    if (type == NULL) {
        return (PyObject *)out[0];
    }
    result = sets_result(type, out);
    for (k = 0; k < 4; k++) {
        Py_XDECREF(out[k]);
    }
    return result;
}

static PyObject *
sets_unique_all(PyObject *Py_UNUSED(module), PyObject *x)
{
    return sets_run(x, "unique_all", SETS_VALUES | SETS_INDICES | SETS_INVERSE | SETS_COUNTS,
                    sets_all_type);
}

static PyObject *
sets_unique_counts(PyObject *Py_UNUSED(module), PyObject *x)
{
    return sets_run(x, "unique_counts", SETS_VALUES | SETS_COUNTS, sets_counts_type);
}

static PyObject *
sets_unique_inverse(PyObject *Py_UNUSED(module), PyObject *x)
{
    return sets_run(x, "unique_inverse", SETS_VALUES | SETS_INVERSE, sets_inverse_type);
}

static PyObject *
sets_unique_values(PyObject *Py_UNUSED(module), PyObject *x)
{
    return sets_run(x, "unique_values", SETS_VALUES, NULL);
}

/* isin's Python scalar operand as a 0-d array of dtype typenum on the
   active device of `backend`.  *matches_nothing is 1 (the element zeroed)
   when it is an int outside the integer dtype typenum: no element of that
   dtype equals it. */
static DeviceArrayObject *
sets_scalar_array(PyObject *obj, int typenum, int backend, int *matches_nothing)
{
    char bytes[16];

    memset(bytes, 0, sizeof(bytes));
    *matches_nothing = 0;
    if (scalar_store_python(obj, typenum, bytes) < 0) {
        const char kind = dtype_table[typenum].kind;
        if (!PyLong_Check(obj) || (kind != 'i' && kind != 'u') ||
            !PyErr_ExceptionMatches(PyExc_OverflowError)) {
            return NULL;
        }
        PyErr_Clear();
        memset(bytes, 0, sizeof(bytes));
        *matches_nothing = 1;
    }
    return copy_new_0d(backend, typenum, bytes);
}

/* x flattened, cast to typenum and sorted ascending (NULL when x is
   empty, without an exception); 0 or -1. */
static int
sets_sorted_flat(DeviceArrayObject *x, int typenum, DeviceArrayObject **sorted)
{
    DeviceArrayObject *flat;
    int64_t n = x->size;
    int status;

    *sorted = NULL;
    if (n == 0) {
        return 0;
    }
    flat = copy_contiguous_as(x, typenum);
    if (flat == NULL) {
        return -1;
    }
    Py_SETREF(flat, array_new_view(flat->backend, flat->device, flat->typenum, 1, &n, NULL,
                                   flat->data, (PyObject *)flat, 0));
    if (flat == NULL) {
        return -1;
    }
    status = sort_along_axis(flat, 0, 0, sorted, NULL);
    Py_DECREF(flat);
    return status;
}

/* The dtype isin compares in: NumPy 2's promotion of the two operands,
   `scalar` (x1 or x2, or NULL) a Python scalar of kind `kind` beside the
   array `a` (weak when it is an exact bool, int, float or complex). */
static int
sets_isin_dtype(DeviceArrayObject *a, DeviceArrayObject *b, PyObject *scalar, char kind)
{
    return scalar == NULL ? dtype_promote(a->typenum, b->typenum)
                          : scalar_promote(a->typenum, scalar, kind);
}

static PyObject *
sets_isin(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "", "invert", NULL};
    PyObject *operands[2], *invert = Py_False, *scalar = NULL;
    DeviceArrayObject *arrays[2] = {NULL, NULL}, *home;
    DeviceArrayObject *values = NULL, *sorted = NULL, *result = NULL;
    char kind = 0;
    int k, typenum, matches_nothing = 0;
    da_searchsorted s;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|$O:isin", kwlist, &operands[0],
                                     &operands[1], &invert)) {
        return NULL;
    }
    if (!PyBool_Check(invert)) {
        PyErr_Format(PyExc_TypeError, "isin() invert must be a bool, not %.200s",
                     Py_TYPE(invert)->tp_name);
        return NULL;
    }
    for (k = 0; k < 2; k++) {
        if (DeviceArray_Check(operands[k])) {
            arrays[k] = (DeviceArrayObject *)operands[k];
        }
        else if ((kind = scalar_python_kind(operands[k])) != 0) {
            scalar = operands[k];
        }
        else {
            PyErr_Format(PyExc_TypeError,
                         "isin() x%d must be a DeviceArray or a Python bool, int, float "
                         "or complex, not %.200s",
                         k + 1, Py_TYPE(operands[k])->tp_name);
            return NULL;
        }
    }
    if (arrays[0] == NULL && arrays[1] == NULL) {
        PyErr_SetString(PyExc_TypeError,
                        "isin() needs at least one of x1 and x2 to be a DeviceArray");
        return NULL;
    }
    home = arrays[0] != NULL ? arrays[0] : arrays[1];
    if (arrays[0] != NULL && arrays[1] != NULL &&
        array_check_same_place("isin", arrays[0], arrays[1]) < 0) {
        return NULL;
    }
    typenum = sets_isin_dtype(home, arrays[1], scalar, kind);
    if (typenum < 0 || array_activate(home) < 0) {
        return NULL;
    }
    result = arrays[0] != NULL
                 ? array_new(home->backend, DA_BOOL, arrays[0]->ndim, DA_SHAPE(arrays[0]))
                 : array_new(home->backend, DA_BOOL, 0, NULL);
    if (result == NULL || result->size == 0) {
        return (PyObject *)result;
    }
    values = arrays[0] != NULL
                 ? copy_contiguous_as(arrays[0], typenum)
                 : sets_scalar_array(scalar, typenum, home->backend, &matches_nothing);
    if (values == NULL) {
        goto error;
    }
    if (arrays[1] != NULL) {
        if (sets_sorted_flat(arrays[1], typenum, &sorted) < 0) {
            goto error;
        }
    }
    else if ((sorted = sets_scalar_array(scalar, typenum, home->backend,
                                         &matches_nothing)) == NULL) {
        goto error;
    }
    memset(&s, 0, sizeof(s));
    /* an empty x2, or a scalar that equals nothing, is searched as an empty
       sequence: nothing found */
    s.n = sorted == NULL || matches_nothing ? 0 : sorted->size;
    s.sorted = sorted != NULL ? sorted->data : NULL;
    s.values = values->data;
    s.found = (uint8_t *)result->data;
    s.invert = invert == Py_True;
    s.nvalues = result->size;
    s.typenum = typenum;
    /* without a sorter the search has no index to find out of range */
    if (backend_searchsorted(home->backend, &s) < 0) {
        goto error;
    }
    goto done;

error:
    Py_CLEAR(result);
done:
    Py_XDECREF(sorted);
    Py_XDECREF(values);
    return (PyObject *)result;
}

static PyMethodDef sets_functions[] = {
    {"unique_all", sets_unique_all, METH_O,
     "unique_all(x, /)\n--\n\nThe unique values of x (flattened, sorted), the "
     "index of each one's first occurrence, the indices into the values that "
     "rebuild x (shaped like x) and each one's count: "
     "UniqueAllResult(values, indices, inverse_indices, counts).  Each NaN is "
     "distinct; -0.0 and +0.0 are one value."},
    {"unique_counts", sets_unique_counts, METH_O,
     "unique_counts(x, /)\n--\n\nUniqueCountsResult(values, counts): the unique "
     "values of x and their counts."},
    {"unique_inverse", sets_unique_inverse, METH_O,
     "unique_inverse(x, /)\n--\n\nUniqueInverseResult(values, inverse_indices): "
     "the unique values of x and the indices into them that rebuild x."},
    {"unique_values", sets_unique_values, METH_O,
     "unique_values(x, /)\n--\n\nThe unique values of x, flattened and sorted."},
    {"isin", (PyCFunction)(void (*)(void))sets_isin, METH_VARARGS | METH_KEYWORDS,
     "isin(x1, x2, /, *, invert=False)\n--\n\nA bool array of x1's shape: "
     "whether each element of x1 equals some element of x2 (flattened), or "
     "is in none when invert is True.  Compared after type promotion (a "
     "Python scalar is weak); NaN is in nothing, -0.0 equals +0.0."},
    {NULL, NULL, 0, NULL},
};

/* collections.namedtuple(name, fields, module="devarray"), added to the
   module under its name. */
static PyObject *
sets_make_type(PyObject *module, PyObject *factory, const char *name, const char *fields)
{
    PyObject *type = NULL, *kwargs = NULL, *args = NULL;

    kwargs = Py_BuildValue("{ss}", "module", "devarray");
    args = Py_BuildValue("(ss)", name, fields);
    if (kwargs != NULL && args != NULL) {
        type = PyObject_Call(factory, args, kwargs);
    }
    Py_XDECREF(kwargs);
    Py_XDECREF(args);
    if (type != NULL && PyModule_AddObjectRef(module, name, type) < 0) {
        Py_CLEAR(type);
    }
    return type;
}

int
sets_module_init(PyObject *module)
{
    PyObject *collections, *factory = NULL;
    int status = -1;

    collections = PyImport_ImportModule("collections");
    if (collections == NULL) {
        return -1;
    }
    factory = PyObject_GetAttrString(collections, "namedtuple");
    if (factory == NULL ||
        (sets_all_type = sets_make_type(module, factory, "UniqueAllResult",
                                        "values indices inverse_indices counts")) == NULL ||
        (sets_counts_type = sets_make_type(module, factory, "UniqueCountsResult",
                                           "values counts")) == NULL ||
        (sets_inverse_type = sets_make_type(module, factory, "UniqueInverseResult",
                                            "values inverse_indices")) == NULL) {
        goto error;
    }
    status = PyModule_AddFunctions(module, sets_functions);
error:
    Py_XDECREF(factory);
    Py_DECREF(collections);
    return status;
}
