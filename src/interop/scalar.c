/*
 * Python scalars in and out (see scalar.h): bool, int, float and complex to
 * a compute-class value or a stored element, with NumPy 2's range checks,
 * and an element back to a Python scalar.  Holds no memory.
 */
#include "interop/scalar.h"

#include "base/dtype.h"

/* ---- Python scalars in ------------------------------------------------- */

char
scalar_python_kind(PyObject *obj)
{
    if (PyBool_Check(obj)) {
        return 'b';
    }
    if (PyLong_Check(obj)) {
        return 'i';
    }
    if (PyFloat_Check(obj)) {
        return 'f';
    }
    return PyComplex_Check(obj) ? 'c' : 0;
}

int
scalar_is_weak(PyObject *obj)
{
    return PyBool_Check(obj) || PyLong_CheckExact(obj) || PyFloat_CheckExact(obj) ||
           PyComplex_CheckExact(obj);
}

int
scalar_promote(int typenum, PyObject *obj, char kind)
{
    return scalar_is_weak(obj) ? dtype_promote_weak(typenum, kind)
                               : dtype_promote(typenum, scalar_default_typenum(kind));
}

int
scalar_default_typenum(char kind)
{
    switch (kind) {
        case 'b':
            return DA_BOOL;
        case 'i':
            return DA_INT64;
        case 'f':
            return DA_FLOAT64;
        default:
            return DA_COMPLEX128;
    }
}

/* The range of each integer dtype, for NumPy 2's out-of-bounds errors. */
static void
scalar_int_range(int typenum, int64_t *min, uint64_t *max)
{
    switch (typenum) {
        case DA_INT8:
            *min = INT8_MIN;
            *max = INT8_MAX;
            break;
        case DA_UINT8:
            *min = 0;
            *max = UINT8_MAX;
            break;
        case DA_INT16:
            *min = INT16_MIN;
            *max = INT16_MAX;
            break;
        case DA_UINT16:
            *min = 0;
            *max = UINT16_MAX;
            break;
        case DA_INT32:
            *min = INT32_MIN;
            *max = INT32_MAX;
            break;
        case DA_UINT32:
            *min = 0;
            *max = UINT32_MAX;
            break;
        case DA_UINT64:
            *min = 0;
            *max = UINT64_MAX;
            break;
        default:
            *min = INT64_MIN;
            *max = INT64_MAX;
            break;
    }
}

/* A Python int that must fit the integer dtype `typenum`: its value as an
   int64 (*is_unsigned = 0) or, above INT64_MAX, a uint64 (*is_unsigned = 1).
   OverflowError in NumPy 2's words otherwise. */
static int
scalar_pylong_in_range(PyObject *obj, int typenum, int64_t *s, uint64_t *u,
                       int *is_unsigned)
{
    int64_t min;
    uint64_t max;
    long long v;
    int overflow;

    scalar_int_range(typenum, &min, &max);
    *is_unsigned = 0;
    v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow == 0) {
        if (v >= min && (v < 0 || (uint64_t)v <= max)) {
            *s = v;
            return 0;
        }
    }
    else if (overflow > 0 && max == UINT64_MAX) {
        unsigned long long w = PyLong_AsUnsignedLongLong(obj);
        if (!(w == (unsigned long long)-1 && PyErr_Occurred())) {
            *u = w;
            *is_unsigned = 1;
            return 0;
        }
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
            return -1;
        }
        PyErr_Clear();
    }
    PyErr_Format(PyExc_OverflowError, "Python integer %R out of bounds for %s", obj,
                 dtype_table[typenum].name);
    return -1;
}

/* Set a da_scalar of class `cls` from a value of the class `src` (bool,
   sint, uint, f64, c128), with ops.h's conversions. */
#define SCALAR_DEFINE_FROM(src, T)                            \
    static void scalar_from_##src(T v, int cls, da_scalar *r) \
    {                                                         \
        switch (cls) {                                        \
            case DA_CLASS_BOOL:                               \
                r->b = da_##src##_to_bool(v);                 \
                break;                                        \
            case DA_CLASS_SINT:                               \
                r->s = da_##src##_to_sint(v);                 \
                break;                                        \
            case DA_CLASS_UINT:                               \
                r->u = da_##src##_to_uint(v);                 \
                break;                                        \
            case DA_CLASS_F32:                                \
                r->f32 = da_##src##_to_f32(v);                \
                break;                                        \
            case DA_CLASS_F64:                                \
                r->f64 = da_##src##_to_f64(v);                \
                break;                                        \
            case DA_CLASS_C64:                                \
                r->c64 = da_##src##_to_c64(v);                \
                break;                                        \
            default:                                          \
                r->c128 = da_##src##_to_c128(v);              \
                break;                                        \
        }                                                     \
    }

SCALAR_DEFINE_FROM(bool, uint8_t)
SCALAR_DEFINE_FROM(sint, int64_t)
SCALAR_DEFINE_FROM(uint, uint64_t)
SCALAR_DEFINE_FROM(f64, double)
SCALAR_DEFINE_FROM(c128, da_c128)
#undef SCALAR_DEFINE_FROM

static int
scalar_is_integer_dtype(int typenum)
{
    da_class cls = da_class_of(typenum);
    return cls == DA_CLASS_SINT || cls == DA_CLASS_UINT;
}

int
scalar_from_python(PyObject *obj, int range_typenum, int cls, da_scalar *value)
{
    if (PyBool_Check(obj)) {
        scalar_from_bool(obj == Py_True, cls, value);
        return 0;
    }
    if (PyLong_Check(obj)) {
        if (range_typenum == DA_BOOL || scalar_is_integer_dtype(range_typenum)) {
            /* NEP 50 never promotes a Python int to bool: the range is then
               int64's */
            int range = range_typenum == DA_BOOL ? DA_INT64 : range_typenum;
            int64_t s = 0;
            uint64_t u = 0;
            int is_unsigned;
            if (scalar_pylong_in_range(obj, range, &s, &u, &is_unsigned) < 0) {
                return -1;
            }
            if (is_unsigned) {
                scalar_from_uint(u, cls, value);
            }
            else {
                scalar_from_sint(s, cls, value);
            }
        }
        else {
            double d = PyLong_AsDouble(obj);
            if (d == -1.0 && PyErr_Occurred()) {
                return -1;
            }
            scalar_from_f64(d, cls, value);
        }
        return 0;
    }
    if (PyFloat_Check(obj)) {
        scalar_from_f64(PyFloat_AS_DOUBLE(obj), cls, value);
        return 0;
    }
    if (PyComplex_Check(obj)) {
        Py_complex z = PyComplex_AsCComplex(obj);
        if (z.real == -1.0 && PyErr_Occurred()) {
            return -1;
        }
        scalar_from_c128(da_make_c128(z.real, z.imag), cls, value);
        return 0;
    }
    PyErr_Format(PyExc_TypeError,
                 "expected a Python bool, int, float or complex, got '%.200s'",
                 Py_TYPE(obj)->tp_name);
    return -1;
}

int
scalar_store_python(PyObject *obj, int typenum, char *p)
{
    da_class cls = da_class_of(typenum);

    if (PyBool_Check(obj)) {
        da_store_bool(p, typenum, obj == Py_True);
        return 0;
    }
    if (PyLong_Check(obj)) {
        if (cls == DA_CLASS_SINT || cls == DA_CLASS_UINT) {
            int64_t s = 0;
            uint64_t u = 0;
            int is_unsigned;
            if (scalar_pylong_in_range(obj, typenum, &s, &u, &is_unsigned) < 0) {
                return -1;
            }
            if (is_unsigned) {
                da_store_uint(p, typenum, u);
            }
            else {
                da_store_sint(p, typenum, s);
            }
        }
        else if (cls == DA_CLASS_BOOL) {
            int overflow;
            long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
            if (v == -1 && PyErr_Occurred()) {
                return -1;
            }
            da_store_bool(p, typenum, v != 0 || overflow != 0);
        }
        else {
            double d = PyLong_AsDouble(obj);
            if (d == -1.0 && PyErr_Occurred()) {
                return -1;
            }
            da_store_f64(p, typenum, d);
        }
        return 0;
    }
    if (PyFloat_Check(obj)) {
        double d = PyFloat_AS_DOUBLE(obj);
        if (cls == DA_CLASS_SINT || cls == DA_CLASS_UINT) {
            /* NumPy 2 goes through a Python int: NaN -> ValueError, inf and
               out-of-range values -> OverflowError */
            PyObject *integral = PyLong_FromDouble(d);
            int status;
            if (integral == NULL) {
                return -1;
            }
            status = scalar_store_python(integral, typenum, p);
            Py_DECREF(integral);
            return status;
        }
        da_store_f64(p, typenum, d);
        return 0;
    }
    if (PyComplex_Check(obj)) {
        Py_complex z = PyComplex_AsCComplex(obj);
        if (z.real == -1.0 && PyErr_Occurred()) {
            return -1;
        }
        if (cls != DA_CLASS_C64 && cls != DA_CLASS_C128 && cls != DA_CLASS_BOOL) {
            PyErr_Format(PyExc_TypeError, "cannot convert a complex number to %s",
                         dtype_table[typenum].name);
            return -1;
        }
        da_store_c128(p, typenum, da_make_c128(z.real, z.imag));
        return 0;
    }
    PyErr_Format(PyExc_TypeError,
                 "cannot convert '%.200s' to %s: elements must be bool, int, "
                 "float or complex",
                 Py_TYPE(obj)->tp_name, dtype_table[typenum].name);
    return -1;
}

/* ---- Python scalars out ------------------------------------------------ */

PyObject *
scalar_to_python(const void *p, int typenum)
{
    switch (da_class_of(typenum)) {
        case DA_CLASS_BOOL:
            return PyBool_FromLong(da_load_bool(p, typenum));
        case DA_CLASS_SINT:
            return PyLong_FromLongLong(da_load_sint(p, typenum));
        case DA_CLASS_UINT:
            return PyLong_FromUnsignedLongLong(da_load_uint(p, typenum));
        case DA_CLASS_F32:
        case DA_CLASS_F64:
            /* float16 and float32 widen to double exactly */
            return PyFloat_FromDouble(da_load_f64(p, typenum));
        default: {
            da_c128 z = da_load_c128(p, typenum);
            return PyComplex_FromDoubles(z.re, z.im);
        }
    }
}
