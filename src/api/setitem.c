/*
 * Assignment into DeviceArrays: see setitem.h.
 *
 * A basic key selects a view of self (indexing_subscript); the value
 * becomes either one scalar in the view's dtype or a DeviceArray on the
 * view's backend, and one elementwise COPY (a cast where the dtypes differ)
 * fills the view.  A key with array indices (array_index.c) fills a new
 * array of the selection's shape the same way, then scatters it into self
 * after every index has been checked; a Python scalar into a bool mask of
 * self's shape is one where() pass in place instead (select.c).  Every
 * check and conversion happens before the first write, so a refused
 * assignment leaves self as it was.
 *
 * Ownership: the view, a converted value and a copy of an overlapping
 * source are new references released before setitem_assign returns; they
 * keep self's memory alive only for the duration of the copy.
 */
#include "api/setitem.h"

#include "core/array.h"
#include "ops/array_index.h"
#include "ops/select.h"
#include "interop/buffer_in.h"
#include "interop/cai.h"
#include "core/copy.h"
#include "runtime/device.h"
#include "core/elementwise.h"
#include "core/indexing.h"
#include "interop/scalar.h"
#include "interop/sequence_in.h"

/* The element at p (host memory) of dtype typenum as a value of its own
   compute class, as elementwise_run takes scalars. */
static void
setitem_scalar_of(const char *p, int typenum, da_scalar *value)
{
    switch (da_class_of(typenum)) {
        case DA_CLASS_BOOL:
            value->b = da_load_bool(p, typenum);
            break;
        case DA_CLASS_SINT:
            value->s = da_load_sint(p, typenum);
            break;
        case DA_CLASS_UINT:
            value->u = da_load_uint(p, typenum);
            break;
        case DA_CLASS_F32:
            value->f32 = da_load_f32(p, typenum);
            break;
        case DA_CLASS_F64:
            value->f64 = da_load_f64(p, typenum);
            break;
        case DA_CLASS_C64:
            value->c64 = da_load_c64(p, typenum);
            break;
        default:
            value->c128 = da_load_c128(p, typenum);
            break;
    }
}

/* target[...] = a Python scalar, converted as NumPy 2 fills an array of
   target's dtype (OverflowError for an int out of range, ValueError for NaN
   into an integer dtype, TypeError for complex into a real one). */
static int
setitem_fill_scalar(DeviceArrayObject *target, PyObject *obj)
{
    union {
        da_c128 widest;
        char bytes[sizeof(da_c128)];
    } element;
    da_scalar value;
    DeviceArrayObject *no_array = NULL;

    if (scalar_store_python(obj, target->typenum, element.bytes) < 0) {
        return -1;
    }
    setitem_scalar_of(element.bytes, target->typenum, &value);
    return elementwise_run(DA_OP_COPY, da_class_of(target->typenum), target, 1,
                           &no_array, &value);
}

/* Each element read at most once before it is written: the same elements
   in the same order and dtype, where copying in place is harmless. */
static int
setitem_same_elements(const DeviceArrayObject *a, const DeviceArrayObject *b)
{
    return a->data == b->data && a->typenum == b->typenum && a->ndim == b->ndim &&
           memcmp(a->dims, b->dims, sizeof(int64_t) * 2 * (size_t)a->ndim) == 0;
}

/* src as it broadcasts into target's shape (NumPy's setitem rule: leading
   dimensions of src beyond target's must be 1 and are dropped), on
   target's backend and apart from target's memory: a new reference, or
   NULL with ValueError naming both shapes. */
static DeviceArrayObject *
setitem_source(DeviceArrayObject *target, DeviceArrayObject *src)
{
    const int extra = src->ndim - target->ndim;
    DeviceArrayObject *view, *moved;
    int i;

    for (i = 0; i < src->ndim; i++) {
        int64_t extent = DA_SHAPE(src)[i];
        if (i < extra ? extent != 1
                      : extent != 1 && extent != DA_SHAPE(target)[i - extra]) {
            PyObject *from = array_int64_tuple(src->ndim, DA_SHAPE(src));
            PyObject *into = array_int64_tuple(target->ndim, DA_SHAPE(target));
            if (from != NULL && into != NULL) {
                PyErr_Format(PyExc_ValueError,
                             "could not broadcast input array from shape %R "
                             "into shape %R",
                             from, into);
            }
            Py_XDECREF(from);
            Py_XDECREF(into);
            return NULL;
        }
    }
    if (extra > 0) {
        view = array_view_of(src, target->ndim, DA_SHAPE(src) + extra,
                             DA_STRIDES(src) + extra, src->data);
    }
    else {
        view = src;
        Py_INCREF(view);
    }
    if (view == NULL) {
        return NULL;
    }
    if (view->backend != target->backend || view->device != target->device) {
        moved = (DeviceArrayObject *)copy_to_backend(view, -1, target->backend);
    }
    else if (array_memory_overlap(view, target) && !setitem_same_elements(view, target)) {
        /* the copy would read elements it has already overwritten */
        moved = copy_cast(view, view->typenum);
    }
    else {
        return view;
    }
    Py_DECREF(view);
    return moved;
}

/* value as a DeviceArray whose elements are target's new values: a new
   reference, or NULL with an exception.  Lists and scalars nested in them
   convert straight to target's dtype, as NumPy's setitem converts them. */
static DeviceArrayObject *
setitem_value_array(DeviceArrayObject *target, PyObject *value)
{
    DeviceArrayObject *imported = NULL;

    if (DeviceArray_Check(value)) {
        DeviceArrayObject *a = (DeviceArrayObject *)value;
        /* values move between backends, never between CUDA devices */
        if (a->backend == target->backend &&
            array_check_same_place("__setitem__", target, a) < 0) {
            return NULL;
        }
        Py_INCREF(value);
        return (DeviceArrayObject *)value;
    }
    if (device_cuda_available()) {
        int found = cai_import_attribute(value, DA_BACKEND_CUDA, &imported);
        if (found != 0) {
            return imported;
        }
    }
    if (PyObject_CheckBuffer(value)) {
        return buffer_in_array(value, -1, target->backend);
    }
    return sequence_in_array(value, target->typenum, target->backend);
}

/* The key as a bool mask of self's shape on self's backend and device, a
   borrowed reference, or NULL (no exception) for any other key. */
static DeviceArrayObject *
setitem_whole_mask(const DeviceArrayObject *self, PyObject *key)
{
    PyObject *sole = PyTuple_Check(key) && PyTuple_GET_SIZE(key) == 1 ? PyTuple_GET_ITEM(key, 0)
                                                                      : key;
    const DeviceArrayObject *m = (const DeviceArrayObject *)sole;

    if (!DeviceArray_Check(sole) || m->typenum != DA_BOOL || m->ndim != self->ndim ||
        self->ndim == 0 || m->backend != self->backend || m->device != self->device ||
        memcmp(DA_SHAPE(m), DA_SHAPE(self), sizeof(int64_t) * (size_t)self->ndim) != 0) {
        return NULL;
    }
    return (DeviceArrayObject *)sole;
}

int
setitem_assign(DeviceArrayObject *self, PyObject *key, PyObject *value)
{
    DeviceArrayObject *target = NULL, *converted = NULL, *src = NULL;
    array_index_plan plan;
    const int advanced = array_index_is_advanced(key);
    int status = -1;

    if (array_activate(self) < 0) {
        return -1;
    }
    if (value == NULL) {
        PyErr_SetString(PyExc_ValueError, "cannot delete array elements");
        return -1;
    }
    if (self->flags & DA_FLAG_READONLY) {
        PyErr_SetString(PyExc_ValueError, "assignment destination is read-only");
        return -1;
    }
    memset(&plan, 0, sizeof(plan));
    if (advanced && scalar_python_kind(value) != 0) {
        DeviceArrayObject *mask = setitem_whole_mask(self, key);
        if (mask != NULL) {
            return select_masked_fill(self, mask, value);
        }
    }
    if (advanced) {
        /* the new values of the selected elements, in the result's shape */
        if (array_index_plan_key(self, key, &plan) < 0) {
            return -1;
        }
        target = array_new(self->backend, self->typenum, plan.ndim, plan.shape);
    }
    else {
        target = (DeviceArrayObject *)indexing_subscript(self, key);
    }
    if (target == NULL) {
        goto done;
    }
    if (scalar_python_kind(value) != 0) {
        status = setitem_fill_scalar(target, value);
    }
    else if ((converted = setitem_value_array(target, value)) != NULL &&
             (src = setitem_source(target, converted)) != NULL) {
        status = elementwise_copy(target, src);
    }
    if (status == 0 && advanced) {
        status = array_index_scatter(&plan, target);
    }
done:
    Py_XDECREF(src);
    Py_XDECREF(converted);
    Py_XDECREF(target);
    array_index_plan_clear(&plan);
    return status;
}
