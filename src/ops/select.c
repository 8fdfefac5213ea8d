/*
 * devarray.where (see select.h).
 *
 * One call: check the operands (condition a DeviceArray; x1 and x2
 * DeviceArrays or Python scalars, at least one an array; every array on
 * one backend and device), promote x1 with x2 (NEP 50: exact Python
 * scalars weak), broadcast the three shapes, bring each input to the
 * result dtype (a cast copy only where the dtype differs; the condition
 * to bool, nonzero as true, as NumPy; a scalar converted once to the
 * result dtype's bytes), then one launch of the select kernel
 * (kernels/select.cu, src/host/host_select.c), which moves bits.
 *
 * Ownership: the cast copies are new references held for the call and
 * released at its one exit; the result is new.  Nothing goes through the
 * host.
 */
#include "ops/select.h"

#include "core/array.h"
#include "runtime/backend.h"
#include "core/copy.h"
#include "base/dtype.h"
#include "core/elementwise.h"
#include "interop/scalar.h"
#include "ops/ufunc.h"

/* The broadcast shape of the arrays (NULL entries skipped) into shape;
   its ndim, or -1 with NumPy's ValueError naming every shape. */
static int
select_broadcast(DeviceArrayObject *const *arrays, int64_t *shape)
{
    PyObject *shapes[3] = {NULL, NULL, NULL};
    int ndim = 0, i, k;

    for (k = 0; k < 3; k++) {
        if (arrays[k] != NULL && arrays[k]->ndim > ndim) {
            ndim = arrays[k]->ndim;
        }
    }
    for (i = 0; i < ndim; i++) {
        shape[i] = 1;
        for (k = 0; k < 3; k++) {
            const DeviceArrayObject *a = arrays[k];
            int j = a != NULL ? i - (ndim - a->ndim) : -1;
            int64_t extent = j >= 0 ? DA_SHAPE(a)[j] : 1;
            if (extent == shape[i] || extent == 1) {
                continue;
            }
            if (shape[i] != 1) {
                goto mismatch;
            }
            shape[i] = extent;
        }
    }
    return ndim;

mismatch:
    for (k = 0; k < 3; k++) {
        shapes[k] = arrays[k] != NULL
                        ? array_int64_tuple(arrays[k]->ndim, DA_SHAPE(arrays[k]))
                        : PyTuple_New(0);
        if (shapes[k] == NULL) {
            goto error;
        }
    }
    PyErr_Format(PyExc_ValueError,
                 "where() operands could not be broadcast together with shapes "
                 "%R (condition), %R (x1) and %R (x2)",
                 shapes[0], shapes[1], shapes[2]);
error:
    for (k = 0; k < 3; k++) {
        Py_XDECREF(shapes[k]);
    }
    return -1;
}

/* The Python scalar `obj` as one element of dtype `typenum`, in its bytes:
   NumPy's conversion of a weak scalar (integers range-checked, float16
   rounded once from the double). */
static int
select_scalar_bytes(PyObject *obj, int typenum, da_where_value *value)
{
    const int cls = typenum == DA_FLOAT16 ? DA_CLASS_F64 : (int)da_class_of(typenum);
    da_scalar v;

    memset(value, 0, sizeof(*value));
    if (scalar_from_python(obj, typenum, cls, &v) < 0) {
        return -1;
    }
    switch (cls) {
        case DA_CLASS_BOOL:
            da_store_bool(value->bytes, typenum, v.b);
            break;
        case DA_CLASS_SINT:
            da_store_sint(value->bytes, typenum, v.s);
            break;
        case DA_CLASS_UINT:
            da_store_uint(value->bytes, typenum, v.u);
            break;
        case DA_CLASS_F32:
            da_store_f32(value->bytes, typenum, v.f32);
            break;
        case DA_CLASS_F64:
            da_store_f64(value->bytes, typenum, v.f64);
            break;
        case DA_CLASS_C64:
            da_store_c64(value->bytes, typenum, v.c64);
            break;
        default:
            da_store_c128(value->bytes, typenum, v.c128);
            break;
    }
    return 0;
}

/* elementwise_collapse over the four operands; ndim >= 1 after. */
static void
select_collapse(da_where *w)
{
    int64_t *strides[4] = {w->strides[0], w->strides[1], w->strides[2], w->strides[3]};
    int dst, k;

    /* in out's memory order: a layout all operands share merges */
    elementwise_order_dims(w->ndim, w->shape, 4, strides);
    dst = elementwise_collapse(w->ndim, w->shape, 4, strides);

    if (dst == 0) {
        /* one element: give it contiguous strides, the kernels' fast path */
        w->shape[0] = 1;
        w->strides[0][0] = w->itemsize;
        w->strides[1][0] = 1;
        for (k = 0; k < 2; k++) {
            w->strides[2 + k][0] = w->x[k] != NULL ? w->itemsize : 0;
        }
        dst = 1;
    }
    w->ndim = dst;
}

/* out[...] = cond ? x1 : x2, the inputs (arrays[1..2] NULL for the
   scalars in values) of out's dtype and cond bool, broadcast to out. */
static int
select_run(DeviceArrayObject *out, DeviceArrayObject *const *arrays,
           const da_where_value *values)
{
    da_where w;
    int i, k;

    if (out->size == 0) {
        return 0;
    }
    w.ndim = out->ndim;
    w.itemsize = DA_ITEMSIZE(out);
    w.size = out->size;
    memcpy(w.shape, DA_SHAPE(out), sizeof(int64_t) * (size_t)out->ndim);
    w.out = out->data;
    w.cond = arrays[0]->data;
    memcpy(w.strides[0], DA_STRIDES(out), sizeof(int64_t) * (size_t)out->ndim);
    for (k = 0; k < 3; k++) {
        const DeviceArrayObject *in = arrays[k];
        if (k > 0) {
            w.x[k - 1] = in != NULL ? in->data : NULL;
            w.value[k - 1] = values[k - 1];
        }
        for (i = 0; i < out->ndim; i++) {
            int j = in != NULL ? i - (out->ndim - in->ndim) : -1;
            w.strides[1 + k][i] =
                (j >= 0 && DA_SHAPE(in)[j] != 1) ? DA_STRIDES(in)[j] : 0;
        }
    }
    select_collapse(&w);
    return backend_where(out->backend, &w);
}

int
select_masked_fill(DeviceArrayObject *self, DeviceArrayObject *mask, PyObject *value)
{
    DeviceArrayObject *const arrays[3] = {mask, NULL, self};
    da_where_value values[2];

    memset(values, 0, sizeof(values));
    if (scalar_store_python(value, self->typenum, (char *)values[0].bytes) < 0) {
        return -1;
    }
    return select_run(self, arrays, values);
}

static PyObject *
select_where(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    /* arrays[0] is the condition, arrays[1..2] x1 and x2 (NULL: a scalar);
       owned[] the cast copies made of them */
    DeviceArrayObject *arrays[3] = {NULL, NULL, NULL}, *owned[3] = {NULL, NULL, NULL};
    DeviceArrayObject *out = NULL;
    da_where_value values[2];
    char kinds[2] = {0, 0};
    int64_t shape[DA_MAXDIMS];
    int order[DA_MAXDIMS];
    int k, ndim, result = -1;
    PyObject *traced = NULL;

    if (ufunc_trace_hook != NULL && ufunc_trace_hook(DA_NOPS, args, nargs, &traced)) {
        return traced;
    }
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError,
                     "where() takes exactly 3 arguments (%zd given)", nargs);
        return NULL;
    }
    if (!DeviceArray_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "where() condition must be a DeviceArray, not %.200s",
                     Py_TYPE(args[0])->tp_name);
        return NULL;
    }
    arrays[0] = (DeviceArrayObject *)args[0];
    memset(values, 0, sizeof(values));
    for (k = 1; k < 3; k++) {
        if (DeviceArray_Check(args[k])) {
            arrays[k] = (DeviceArrayObject *)args[k];
            if (array_check_same_place("where", arrays[0], arrays[k]) < 0) {
                return NULL;
            }
            result = result < 0 ? arrays[k]->typenum
                                : dtype_promote(result, arrays[k]->typenum);
        }
        else if ((kinds[k - 1] = scalar_python_kind(args[k])) == 0) {
            PyErr_Format(PyExc_TypeError,
                         "where() x%d must be a DeviceArray or a Python bool, int, "
                         "float or complex, not %.200s",
                         k, Py_TYPE(args[k])->tp_name);
            return NULL;
        }
    }
    if (arrays[1] == NULL && arrays[2] == NULL) {
        PyErr_SetString(PyExc_TypeError,
                        "where() needs at least one of x1 and x2 to be a DeviceArray");
        return NULL;
    }
    /* strong scalars take part as their default dtype, weak ones after */
    for (k = 1; k < 3; k++) {
        if (arrays[k] == NULL && !scalar_is_weak(args[k])) {
            result = dtype_promote(result, scalar_default_typenum(kinds[k - 1]));
        }
    }
    for (k = 1; k < 3; k++) {
        if (arrays[k] == NULL && scalar_is_weak(args[k])) {
            result = dtype_promote_weak(result, kinds[k - 1]);
            if (result < 0) {
                return NULL;
            }
        }
    }
    ndim = select_broadcast(arrays, shape);
    if (ndim < 0) {
        return NULL;
    }
    /* the result's layout follows the operands as given, before any cast */
    {
        DeviceArrayObject *const voters[3] = {arrays[0], arrays[1], arrays[2]};
        elementwise_iter_order(ndim, 3, voters, order);
    }
    for (k = 1; k < 3; k++) {
        if (arrays[k] == NULL &&
            select_scalar_bytes(args[k], result, &values[k - 1]) < 0) {
            return NULL;
        }
    }
    for (k = 0; k < 3; k++) {
        const int want = k == 0 ? DA_BOOL : result;
        if (arrays[k] == NULL || arrays[k]->typenum == want) {
            continue;
        }
        owned[k] = copy_cast(arrays[k], want);
        if (owned[k] == NULL) {
            goto error;
        }
        arrays[k] = owned[k];
    }
    /* the condition's backend: every array is on it */
    out = array_new_ordered(((DeviceArrayObject *)args[0])->backend, result, ndim, shape,
                            order);
    if (out == NULL || select_run(out, arrays, values) < 0) {
        Py_CLEAR(out);
    }
error:
    for (k = 0; k < 3; k++) {
        Py_XDECREF(owned[k]);
    }
    return (PyObject *)out;
}

static PyMethodDef select_functions[] = {
    {"where", (PyCFunction)(void (*)(void))select_where, METH_FASTCALL,
     "where(condition, x1, x2, /)\n--\n\nElements of x1 where condition is "
     "true, of x2 elsewhere, in the promoted dtype of x1 and x2 and the "
     "broadcast shape of all three.  x1 and x2 are DeviceArrays or Python "
     "scalars (at least one an array); a condition that is not bool counts "
     "nonzero as true."},
    {NULL, NULL, 0, NULL},
};

int
select_module_init(PyObject *module)
{
    return PyModule_AddFunctions(module, select_functions);
}
