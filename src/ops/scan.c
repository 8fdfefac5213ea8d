/*
 * devarray.cumulative_sum, cumulative_prod and diff (see scan.h).
 *
 * A cumulative op moves the axis last and makes the input a contiguous
 * array of the result dtype (NumPy casts the input to the result dtype
 * before it accumulates, so the kernels see one dtype; bool and narrow
 * integers are then widened to 64 bits, scan_work_dtype), then the backend
 * scans its rows (kernels/scan.cu, src/host/host_scan.c).  The scan runs in
 * place when that copy is ours; the rows go back to the result through a
 * permuted view.  include_initial writes the identity at index 0 of the
 * axis and the scan into the view [1:] of it.
 *
 * diff builds [prepend, x, append] along the axis when asked (cast to
 * their promoted dtype), then takes n differences of neighbouring views
 * with the elementwise subtract (not_equal for bool, as NumPy).
 *
 * Ownership: every intermediate is a new reference released at the one
 * exit; the result is new (diff with n == 0 returns x itself, as NumPy).
 */
#include "ops/scan.h"

#include "runtime/backend.h"
#include "core/copy.h"
#include "base/dtype.h"
#include "interop/dtypeobject.h"
#include "core/elementwise.h"
#include "ops/ufunc.h"

DeviceArrayObject *
scan_axis_last(DeviceArrayObject *a, int axis, int typenum)
{
    int perm[DA_MAXDIMS], k, n = 0;
    DeviceArrayObject *permuted, *result;

    if (axis == a->ndim - 1 || a->ndim == 0) {
        return copy_contiguous_as(a, typenum);
    }
    for (k = 0; k < a->ndim; k++) {
        if (k != axis) {
            perm[n++] = k;
        }
    }
    perm[n] = axis;
    permuted = array_transposed(a, perm);
    if (permuted == NULL) {
        return NULL;
    }
    result = copy_contiguous_as(permuted, typenum);
    Py_DECREF(permuted);
    return result;
}

/* A view of a restricted to [start, start + len) along axis. */
static DeviceArrayObject *
scan_slice(DeviceArrayObject *a, int axis, int64_t start, int64_t len)
{
    int64_t shape[DA_MAXDIMS];

    memcpy(shape, DA_SHAPE(a), sizeof(int64_t) * (size_t)a->ndim);
    shape[axis] = len;
    return array_view_of(a, a->ndim, shape, DA_STRIDES(a),
                         a->data + (len > 0 ? start * DA_STRIDES(a)[axis] : 0));
}

/* Fill `out` with 0 (op SUM) or 1 (PROD) of its dtype. */
static int
scan_fill_identity(DeviceArrayObject *out, int op)
{
    const int cls = da_class_of(out->typenum);
    const int one = op == DA_SCAN_PROD;
    da_scalar value;

    memset(&value, 0, sizeof(value));
    switch (cls) {
        case DA_CLASS_BOOL:
            value.b = (uint8_t)one;
            break;
        case DA_CLASS_SINT:
            value.s = one;
            break;
        case DA_CLASS_UINT:
            value.u = (uint64_t)one;
            break;
        case DA_CLASS_F32:
            value.f32 = (float)one;
            break;
        case DA_CLASS_F64:
            value.f64 = one;
            break;
        case DA_CLASS_C64:
            value.c64.re = (float)one;
            break;
        default:
            value.c128.re = one;
            break;
    }
    {
        DeviceArrayObject *none[1] = {NULL};
        return elementwise_run(DA_OP_COPY, cls, out, 1, none, &value);
    }
}

/* The dtype the kernels scan a result dtype in (launch.h: da_scan_supported):
   bool and narrow integers in 64 bits, whose sums and products agree with
   the narrow ones modulo their width (and as bool: nonzero when any/all
   are), so the result is the cast back; the others in themselves. */
static int
scan_work_dtype(int typenum)
{
    switch (typenum) {
        case DA_BOOL:
        case DA_INT8:
        case DA_INT16:
        case DA_INT32:
            return DA_INT64;
        case DA_UINT8:
        case DA_UINT16:
        case DA_UINT32:
            return DA_UINT64;
        default:
            return typenum;
    }
}

/* cumulative_sum / cumulative_prod (op DA_SCAN_*). */
static PyObject *
scan_cumulative(int op, const char *name, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "axis", "dtype", "include_initial", NULL};
    PyObject *axis_obj = Py_None;
    DeviceArrayObject *x, *source = NULL, *result = NULL, *target = NULL,
                      *initial = NULL, *rows = NULL, *permuted = NULL, *cast = NULL;
    int64_t shape[DA_MAXDIMS], one = 1, step, seglen, nsegments;
    int typenum = -1, work, include_initial = 0, axis = 0, perm[DA_MAXDIMS], k, n = 0;
    char format[64];

    PyOS_snprintf(format, sizeof(format), "O!|$OO&p:%s", name);
    if (!PyArg_ParseTupleAndKeywords(args, kwds, format, kwlist, &DeviceArray_Type,
                                     &x, &axis_obj, dtypeobject_converter_optional,
                                     &typenum, &include_initial) ||
        array_activate(x) < 0) {
        return NULL;
    }
    if (x->ndim == 0) {
        /* NumPy treats a 0-d input as one element of a 1-d one */
        step = DA_ITEMSIZE(x);
        x = array_view_of(x, 1, &one, &step, x->data);
    }
    else {
        Py_INCREF(x);
    }
    if (x == NULL) {
        return NULL;
    }
    if (axis_obj == Py_None && x->ndim > 1) {
        PyErr_Format(PyExc_ValueError,
                     "%s() needs an axis for an array of %d dimensions", name, x->ndim);
        goto error;
    }
    if (axis_obj != Py_None && array_normalize_axis(axis_obj, x->ndim, &axis) < 0) {
        goto error;
    }
    if (typenum < 0) {
        typenum = dtype_sum_result(x->typenum);
    }
    memcpy(shape, DA_SHAPE(x), sizeof(int64_t) * (size_t)x->ndim);
    seglen = shape[axis];
    nsegments = seglen > 0 ? x->size / seglen : 0;
    shape[axis] += include_initial;
    result = array_new(x->backend, typenum, x->ndim, shape);
    if (result == NULL) {
        goto error;
    }
    if (include_initial) {
        initial = scan_slice(result, axis, 0, 1);
        if (initial == NULL || (initial->size > 0 && scan_fill_identity(initial, op) < 0)) {
            goto error;
        }
    }
    if (nsegments == 0) {
        goto done;
    }
    work = scan_work_dtype(typenum);
    if (work != typenum && x->typenum != typenum) {
        /* NumPy casts to the result dtype first (2 + -2 as bool is True) */
        cast = copy_cast(x, typenum);
        if (cast == NULL) {
            goto error;
        }
    }
    source = scan_axis_last(cast != NULL ? cast : x, axis, work);
    if (source == NULL) {
        goto error;
    }
    if (!include_initial && axis == x->ndim - 1 && work == typenum) {
        /* the result's rows are the segments */
        if (backend_scan(x->backend, op, work, source->data, result->data, nsegments,
                         seglen) < 0) {
            goto error;
        }
        goto done;
    }
    if (array_memory_overlap(source, x)) {
        /* source is x or a view of it (x with the axis moved last may be
           C-contiguous): the scan must not write there */
        rows = array_new(x->backend, work, source->ndim, DA_SHAPE(source));
    }
    else {
        rows = source;
        Py_INCREF(rows);
    }
    if (rows == NULL || backend_scan(x->backend, op, work, source->data, rows->data,
                                     nsegments, seglen) < 0) {
        goto error;
    }
    target = include_initial ? scan_slice(result, axis, 1, seglen) : result;
    if (!include_initial) {
        Py_INCREF(target);
    }
    if (target == NULL) {
        goto error;
    }
    for (k = 0; k < x->ndim; k++) {
        if (k != axis) {
            perm[n++] = k;
        }
    }
    perm[n] = axis;
    permuted = array_transposed(target, perm);
    if (permuted == NULL || elementwise_copy(permuted, rows) < 0) {
        goto error;
    }

done:
    Py_XDECREF(permuted);
    Py_XDECREF(target);
    Py_XDECREF(rows);
    Py_XDECREF(initial);
    Py_XDECREF(source);
    Py_XDECREF(cast);
    Py_DECREF(x);
    return (PyObject *)result;

error:
    Py_CLEAR(result);
    goto done;
}

static PyObject *
scan_cumulative_sum(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    return scan_cumulative(DA_SCAN_SUM, "cumulative_sum", args, kwds);
}

static PyObject *
scan_cumulative_prod(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    return scan_cumulative(DA_SCAN_PROD, "cumulative_prod", args, kwds);
}

/* prepend/append of diff: None, or an array with x's shape except along
   axis (a 0-d one stands for a length-1 slice).  Its length along axis
   into *len; 0 or -1 with an exception. */
static int
scan_diff_part(PyObject *part, const char *what, DeviceArrayObject *x, int axis,
               int64_t *len)
{
    DeviceArrayObject *p = (DeviceArrayObject *)part;
    int k;

    *len = 0;
    if (part == Py_None) {
        return 0;
    }
    if (!DeviceArray_Check(part)) {
        PyErr_Format(PyExc_TypeError, "diff() %s must be a DeviceArray or None, not %.200s",
                     what, Py_TYPE(part)->tp_name);
        return -1;
    }
    if (array_check_same_place("diff", x, p) < 0) {
        return -1;
    }
    if (p->ndim == 0) {
        *len = 1;
        return 0;
    }
    if (p->ndim != x->ndim) {
        goto mismatch;
    }
    for (k = 0; k < x->ndim; k++) {
        if (k != axis && DA_SHAPE(p)[k] != DA_SHAPE(x)[k]) {
            goto mismatch;
        }
    }
    *len = DA_SHAPE(p)[axis];
    return 0;

mismatch:
    PyErr_Format(PyExc_ValueError,
                 "diff() %s must have the shape of x except along axis %d", what, axis);
    return -1;
}

/* [prepend, x, append] along axis, in their promoted dtype. */
static DeviceArrayObject *
scan_diff_joined(DeviceArrayObject *x, int axis, PyObject *const *parts,
                 const int64_t *lens)
{
    PyObject *pieces[3] = {parts[0], (PyObject *)x, parts[1]};
    int64_t shape[DA_MAXDIMS], sizes[3] = {lens[0], DA_SHAPE(x)[axis], lens[1]}, at = 0;
    int typenum = x->typenum, k;
    DeviceArrayObject *joined = NULL, *slice;

    for (k = 0; k < 3; k += 2) {
        if (pieces[k] != Py_None) {
            typenum = dtype_promote(typenum, ((DeviceArrayObject *)pieces[k])->typenum);
        }
    }
    memcpy(shape, DA_SHAPE(x), sizeof(int64_t) * (size_t)x->ndim);
    shape[axis] = sizes[0] + sizes[1] + sizes[2];
    joined = array_new(x->backend, typenum, x->ndim, shape);
    for (k = 0; k < 3 && joined != NULL; k++) {
        if (pieces[k] == Py_None) {
            continue;
        }
        slice = scan_slice(joined, axis, at, sizes[k]);
        if (slice == NULL ||
            (slice->size > 0 && elementwise_copy(slice, (DeviceArrayObject *)pieces[k]) < 0)) {
            Py_XDECREF(slice);
            Py_CLEAR(joined);
            break;
        }
        Py_DECREF(slice);
        at += sizes[k];
    }
    return joined;
}

static PyObject *
scan_diff(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "axis", "n", "prepend", "append", NULL};
    PyObject *axis_obj = NULL, *parts[2] = {Py_None, Py_None}, *operands[2] = {NULL, NULL};
    DeviceArrayObject *x, *current = NULL;
    int64_t lens[2], len;
    Py_ssize_t n = 1, k;
    int axis = -1;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|$OnOO:diff", kwlist, &DeviceArray_Type,
                                     &x, &axis_obj, &n, &parts[0], &parts[1]) ||
        array_activate(x) < 0) {
        return NULL;
    }
    if (x->ndim == 0) {
        PyErr_SetString(PyExc_ValueError, "diff() needs an array of at least one dimension");
        return NULL;
    }
    if (n < 0) {
        PyErr_Format(PyExc_ValueError, "diff() order n must be non-negative, not %zd", n);
        return NULL;
    }
    if (axis_obj == NULL) {
        axis = x->ndim - 1;
    }
    else if (array_normalize_axis(axis_obj, x->ndim, &axis) < 0) {
        return NULL;
    }
    if (scan_diff_part(parts[0], "prepend", x, axis, &lens[0]) < 0 ||
        scan_diff_part(parts[1], "append", x, axis, &lens[1]) < 0) {
        return NULL;
    }
    if (parts[0] == Py_None && parts[1] == Py_None) {
        current = x;
        Py_INCREF(current);
    }
    else if ((current = scan_diff_joined(x, axis, parts, lens)) == NULL) {
        return NULL;
    }
    for (k = 0; k < n; k++) {
        PyObject *next;
        len = DA_SHAPE(current)[axis];
        operands[0] = (PyObject *)scan_slice(current, axis, len > 0 ? 1 : 0,
                                             len > 0 ? len - 1 : 0);
        operands[1] = (PyObject *)scan_slice(current, axis, 0, len > 0 ? len - 1 : 0);
        if (operands[0] == NULL || operands[1] == NULL) {
            goto error;
        }
        next = ufunc_apply(current->typenum == DA_BOOL ? DA_OP_NOT_EQUAL : DA_OP_SUB,
                           operands, 0, 0);
        if (next == NULL) {
            goto error;
        }
        Py_CLEAR(operands[0]);
        Py_CLEAR(operands[1]);
        Py_SETREF(current, (DeviceArrayObject *)next);
        if (len <= 1) {
            break;
        }
    }
    return (PyObject *)current;

error:
    Py_XDECREF(operands[0]);
    Py_XDECREF(operands[1]);
    Py_XDECREF(current);
    return NULL;
}

static PyMethodDef scan_functions[] = {
    {"cumulative_sum", (PyCFunction)(void (*)(void))scan_cumulative_sum,
     METH_VARARGS | METH_KEYWORDS,
     "cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False)\n--\n\n"
     "Running sums along axis (needed when x has more than one dimension), in "
     "dtype (NumPy's default: int64/uint64 for bool and integers), starting "
     "with 0 when include_initial."},
    {"cumulative_prod", (PyCFunction)(void (*)(void))scan_cumulative_prod,
     METH_VARARGS | METH_KEYWORDS,
     "cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False)\n--\n\n"
     "Running products along axis (needed when x has more than one dimension), "
     "in dtype (NumPy's default: int64/uint64 for bool and integers), "
     "starting with 1 when include_initial."},
    {"diff", (PyCFunction)(void (*)(void))scan_diff, METH_VARARGS | METH_KEYWORDS,
     "diff(x, /, *, axis=-1, n=1, prepend=None, append=None)\n--\n\n"
     "The n-th differences along axis, x[1:] - x[:-1] repeated (!= for bool), "
     "after prepend and append are joined to x along axis."},
    {NULL, NULL, 0, NULL},
};

int
scan_module_init(PyObject *module)
{
    return PyModule_AddFunctions(module, scan_functions);
}
