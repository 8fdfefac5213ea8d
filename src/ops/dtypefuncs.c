/*
 * The array API's data type functions (see dtypefuncs.h): astype, can_cast,
 * finfo, iinfo, isdtype and result_type.  The promotion they apply is
 * dtype.c's (NumPy 2's tables); this file adds NumPy's rule for promoting
 * several dtypes at once, and the limits of each dtype.
 *
 * finfo and iinfo are types, as NumPy's are: finfo(float32) returns one of
 * the statically allocated, immutable instances below (one per dtype, never
 * deallocated, as the DType singletons), so finfo(x) is finfo(x.dtype).
 */
#include "ops/dtypefuncs.h"

#include <float.h>

#include "core/array.h"
#include "core/copy.h"
#include "interop/deviceobject.h"
#include "base/dtype.h"
#include "interop/dtypeobject.h"
#include "interop/scalar.h"

/* ---- arguments ----------------------------------------------------------- */

static int
dtypefuncs_is_dtype(PyObject *obj)
{
    /* DType is private to dtypeobject.c; any singleton has its type */
    return Py_IS_TYPE(obj, Py_TYPE(dtypeobject_singleton(DA_BOOL)));
}

/* The dtype of an array or dtype-like argument of `func`; Python scalars
   are refused (their dtype is not theirs: NEP 50).  0, or -1 with
   TypeError. */
static int
dtypefuncs_typenum_of(PyObject *obj, const char *func, int *typenum)
{
    if (DeviceArray_Check(obj)) {
        *typenum = ((DeviceArrayObject *)obj)->typenum;
        return 0;
    }
    if (scalar_python_kind(obj) != 0) {
        PyErr_Format(PyExc_TypeError,
                     "%s() takes an array or a dtype, not the Python %.200s "
                     "%R (a Python scalar has no dtype of its own)",
                     func, Py_TYPE(obj)->tp_name, obj);
        return -1;
    }
    return dtypeobject_from_object(obj, typenum);
}

static PyObject *
dtypefuncs_dtype(int typenum)
{
    return Py_NewRef(dtypeobject_singleton(typenum));
}

/* ---- kinds --------------------------------------------------------------- */

#define DTYPEFUNCS_BIT(t) ((uint32_t)1 << (t))
#define DTYPEFUNCS_SIGNED                                                   \
    (DTYPEFUNCS_BIT(DA_INT8) | DTYPEFUNCS_BIT(DA_INT16) |                   \
     DTYPEFUNCS_BIT(DA_INT32) | DTYPEFUNCS_BIT(DA_INT64))
#define DTYPEFUNCS_UNSIGNED                                                 \
    (DTYPEFUNCS_BIT(DA_UINT8) | DTYPEFUNCS_BIT(DA_UINT16) |                 \
     DTYPEFUNCS_BIT(DA_UINT32) | DTYPEFUNCS_BIT(DA_UINT64))
/* float16 is not an array API dtype, but a real floating one all the same
   (the standard lets implementations extend the kinds) */
#define DTYPEFUNCS_REAL                                                     \
    (DTYPEFUNCS_BIT(DA_FLOAT16) | DTYPEFUNCS_BIT(DA_FLOAT32) |              \
     DTYPEFUNCS_BIT(DA_FLOAT64))
#define DTYPEFUNCS_COMPLEX \
    (DTYPEFUNCS_BIT(DA_COMPLEX64) | DTYPEFUNCS_BIT(DA_COMPLEX128))

static const struct {
    const char *name;
    uint32_t mask;
} dtypefuncs_kinds[] = {
    {"bool", DTYPEFUNCS_BIT(DA_BOOL)},
    {"signed integer", DTYPEFUNCS_SIGNED},
    {"unsigned integer", DTYPEFUNCS_UNSIGNED},
    {"integral", DTYPEFUNCS_SIGNED | DTYPEFUNCS_UNSIGNED},
    {"real floating", DTYPEFUNCS_REAL},
    {"complex floating", DTYPEFUNCS_COMPLEX},
    {"numeric", DTYPEFUNCS_SIGNED | DTYPEFUNCS_UNSIGNED | DTYPEFUNCS_REAL |
                    DTYPEFUNCS_COMPLEX},
};

#define DTYPEFUNCS_KIND_NAMES                                               \
    "'bool', 'signed integer', 'unsigned integer', 'integral', "            \
    "'real floating', 'complex floating' or 'numeric'"

/* One element of a kind: a name, or a DType when allowed. */
static int
dtypefuncs_kind_item(PyObject *kind, int dtypes_allowed, const char *what,
                     uint32_t *mask)
{
    size_t i;

    if (PyUnicode_Check(kind)) {
        for (i = 0; i < sizeof dtypefuncs_kinds / sizeof dtypefuncs_kinds[0]; i++) {
            if (PyUnicode_CompareWithASCIIString(kind, dtypefuncs_kinds[i].name) == 0) {
                *mask |= dtypefuncs_kinds[i].mask;
                return 0;
            }
        }
        PyErr_Format(PyExc_ValueError,
                     "%s: unknown kind %R; the kinds are " DTYPEFUNCS_KIND_NAMES,
                     what, kind);
        return -1;
    }
    if (dtypes_allowed && dtypefuncs_is_dtype(kind)) {
        int typenum;
        if (dtypeobject_from_object(kind, &typenum) < 0) {
            return -1;
        }
        *mask |= DTYPEFUNCS_BIT(typenum);
        return 0;
    }
    if (dtypes_allowed) {
        PyErr_Format(PyExc_TypeError,
                     "%s must be a kind name, a devarray dtype or a tuple of "
                     "them, not %.200s",
                     what, Py_TYPE(kind)->tp_name);
    }
    else {
        PyErr_Format(PyExc_TypeError,
                     "%s must be a kind name or a tuple of them, not %.200s",
                     what, Py_TYPE(kind)->tp_name);
    }
    return -1;
}

int
dtypefuncs_kind_mask(PyObject *kind, int dtypes_allowed, const char *what,
                     uint32_t *mask)
{
    Py_ssize_t i;

    *mask = 0;
    if (!PyTuple_Check(kind)) {
        return dtypefuncs_kind_item(kind, dtypes_allowed, what, mask);
    }
    for (i = 0; i < PyTuple_GET_SIZE(kind); i++) {
        if (dtypefuncs_kind_item(PyTuple_GET_ITEM(kind, i), dtypes_allowed, what,
                                 mask) < 0) {
            return -1;
        }
    }
    return 0;
}

static PyObject *
dtypefuncs_isdtype(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"dtype", "kind", NULL};
    PyObject *dtype, *kind;
    uint32_t mask;
    int typenum;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO:isdtype", kwlist, &dtype,
                                     &kind)) {
        return NULL;
    }
    /* only a DType: a string here could be a dtype name or a kind name */
    if (!dtypefuncs_is_dtype(dtype)) {
        PyErr_Format(PyExc_TypeError,
                     "isdtype() needs a devarray dtype (devarray.float32, "
                     "x.dtype, ...), not %.200s",
                     Py_TYPE(dtype)->tp_name);
        return NULL;
    }
    if (dtypeobject_from_object(dtype, &typenum) < 0 ||
        dtypefuncs_kind_mask(kind, 1, "isdtype() kind", &mask) < 0) {
        return NULL;
    }
    return PyBool_FromLong((mask & DTYPEFUNCS_BIT(typenum)) != 0);
}

/* ---- promotion ----------------------------------------------------------- */

/* NumPy promotes several dtypes at once through the one that "knows" the
   most (PyArray_PromoteDTypeSequence): by NumPy's type number, which puts
   float16 above all the others.  Promoting each dtype with that one first,
   then the results with each other, makes the result independent of the
   order: int8, uint8, float16 gives float16, where promoting left to right
   gives float32. */
static const unsigned char dtypefuncs_knowledge[DA_NTYPES] = {
    [DA_BOOL] = 0,     [DA_INT8] = 1,     [DA_UINT8] = 2,
    [DA_INT16] = 3,    [DA_UINT16] = 4,   [DA_INT32] = 5,
    [DA_UINT32] = 6,   [DA_INT64] = 7,    [DA_UINT64] = 8,
    [DA_FLOAT32] = 9,  [DA_FLOAT64] = 10, [DA_COMPLEX64] = 11,
    [DA_COMPLEX128] = 12, [DA_FLOAT16] = 13,
};

/* The promoted dtype of the dtypes in `strong` (a set of typenums, not
   empty), then with Python scalars whose highest kind is `weak_kind` (0:
   none). */
static int
dtypefuncs_promote_set(uint32_t strong, char weak_kind)
{
    int main = -1, result, t;

    for (t = 0; t < DA_NTYPES; t++) {
        if ((strong & DTYPEFUNCS_BIT(t)) &&
            (main < 0 || dtypefuncs_knowledge[t] > dtypefuncs_knowledge[main])) {
            main = t;
        }
    }
    result = main;
    for (t = 0; t < DA_NTYPES; t++) {
        if (strong & DTYPEFUNCS_BIT(t)) {
            result = dtype_promote(result, dtype_promote(main, t));
        }
    }
    return weak_kind != 0 ? dtype_promote_weak(result, weak_kind) : result;
}

/* The dtype a non-weak argument of result_type stands for. */
static int
dtypefuncs_strong_typenum(PyObject *obj, int *typenum)
{
    char kind;

    if (DeviceArray_Check(obj)) {
        *typenum = ((DeviceArrayObject *)obj)->typenum;
        return 0;
    }
    kind = scalar_python_kind(obj);
    if (kind != 0) {
        *typenum = scalar_default_typenum(kind);
        return 0;
    }
    if (dtypeobject_from_object(obj, typenum) < 0) {
        /* a string's own message says what is wrong with the name */
        if (!PyUnicode_Check(obj) && PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "result_type() takes arrays, dtypes and Python "
                         "scalars, not %.200s %R",
                         Py_TYPE(obj)->tp_name, obj);
        }
        return -1;
    }
    return 0;
}

static PyObject *
dtypefuncs_result_type(PyObject *Py_UNUSED(module), PyObject *const *args,
                       Py_ssize_t nargs)
{
    /* dtype_weak_kinds lists the kinds from lowest to highest */
    const char *highest = NULL;
    uint32_t strong = 0;
    Py_ssize_t i;

    for (i = 0; i < nargs; i++) {
        /* NEP 50: only the exact Python types are weak */
        char kind = scalar_is_weak(args[i]) ? scalar_python_kind(args[i]) : 0;
        int typenum;
        if (kind != 0) {
            const char *at = strchr(dtype_weak_kinds, kind);
            if (highest == NULL || at > highest) {
                highest = at;
            }
            continue;
        }
        if (dtypefuncs_strong_typenum(args[i], &typenum) < 0) {
            return NULL;
        }
        strong |= DTYPEFUNCS_BIT(typenum);
    }
    if (strong == 0) {
        PyErr_SetString(PyExc_ValueError,
                        nargs == 0
                            ? "at least one array or dtype is required"
                            : "at least one array or dtype is required: "
                              "Python scalars have no dtype of their own "
                              "(they promote weakly, NEP 50)");
        return NULL;
    }
    return dtypefuncs_dtype(
        dtypefuncs_promote_set(strong, highest != NULL ? *highest : 0));
}

/* numpy.can_cast(from, to, casting="safe"): every value of `from` fits in
   `to`, which for NumPy's tables is exactly promote(from, to) == to. */
static PyObject *
dtypefuncs_can_cast(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "", NULL};
    PyObject *from_obj, *to_obj;
    int from, to;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO:can_cast", kwlist,
                                     &from_obj, &to_obj) ||
        dtypefuncs_typenum_of(from_obj, "can_cast", &from) < 0) {
        return NULL;
    }
    if (DeviceArray_Check(to_obj)) {
        PyErr_SetString(PyExc_TypeError,
                        "can_cast() casts to a dtype, not to an array; pass "
                        "x.dtype");
        return NULL;
    }
    if (dtypefuncs_typenum_of(to_obj, "can_cast", &to) < 0) {
        return NULL;
    }
    return PyBool_FromLong(dtype_promote(from, to) == to);
}

/* ---- astype -------------------------------------------------------------- */

static PyObject *
dtypefuncs_astype(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "", "copy", "device", NULL};
    DeviceArrayObject *x;
    int typenum = -1, copy = 1;
    da_place place = {-1, 0};

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O&|$pO&:astype", kwlist,
                                     &DeviceArray_Type, &x,
                                     dtypeobject_converter_optional, &typenum,
                                     &copy, deviceobject_converter_optional,
                                     &place)) {
        return NULL;
    }
    if (typenum < 0) {
        PyErr_SetString(PyExc_TypeError, "astype() needs a dtype, not None");
        return NULL;
    }
    if (dtype_table[x->typenum].kind == 'c' && dtype_table[typenum].kind != 'c' &&
        typenum != DA_BOOL) {
        PyErr_Format(PyExc_TypeError,
                     "astype() does not cast %s to %s: the array API does not "
                     "drop imaginary parts silently; cast real(x) or imag(x)",
                     dtype_table[x->typenum].name, dtype_table[typenum].name);
        return NULL;
    }
    if (place.backend < 0) {
        place.backend = x->backend;
        place.device = x->device;
    }
    if (place.backend == x->backend && place.device == x->device) {
        if (!copy && typenum == x->typenum) {
            return Py_NewRef((PyObject *)x);
        }
        return (PyObject *)copy_cast_order(x, typenum, 'K');
    }
    return copy_to_place(x, typenum, place.backend, place.device);
}

/* ---- finfo and iinfo ----------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    int typenum; /* the real dtype described */
    int bits;
    double eps, max, smallest_normal;
} FInfoObject;

typedef struct {
    PyObject_HEAD
    int typenum;
} IInfoObject;

static PyTypeObject FInfo_Type;
static PyTypeObject IInfo_Type;

/* float16's limits: 10 stored mantissa bits, exponents -14 .. 15 */
#define DTYPEFUNCS_HALF_EPS 0.0009765625
#define DTYPEFUNCS_HALF_MAX 65504.0
#define DTYPEFUNCS_HALF_MIN_NORMAL 6.103515625e-05

static FInfoObject dtypefuncs_finfos[] = {
    {PyObject_HEAD_INIT(&FInfo_Type) DA_FLOAT16, 16, DTYPEFUNCS_HALF_EPS,
     DTYPEFUNCS_HALF_MAX, DTYPEFUNCS_HALF_MIN_NORMAL},
    {PyObject_HEAD_INIT(&FInfo_Type) DA_FLOAT32, 32, FLT_EPSILON, FLT_MAX,
     FLT_MIN},
    {PyObject_HEAD_INIT(&FInfo_Type) DA_FLOAT64, 64, DBL_EPSILON, DBL_MAX,
     DBL_MIN},
};

#define DTYPEFUNCS_IINFO(typenum) {PyObject_HEAD_INIT(&IInfo_Type) typenum}

static IInfoObject dtypefuncs_iinfos[] = {
    DTYPEFUNCS_IINFO(DA_INT8),   DTYPEFUNCS_IINFO(DA_UINT8),
    DTYPEFUNCS_IINFO(DA_INT16),  DTYPEFUNCS_IINFO(DA_UINT16),
    DTYPEFUNCS_IINFO(DA_INT32),  DTYPEFUNCS_IINFO(DA_UINT32),
    DTYPEFUNCS_IINFO(DA_INT64),  DTYPEFUNCS_IINFO(DA_UINT64),
};

#undef DTYPEFUNCS_IINFO

#define DTYPEFUNCS_COUNT(table) (sizeof(table) / sizeof((table)[0]))

/* The one-argument constructor both types share: the dtype of `type` (an
   array or a dtype-like), which must be of the kinds `kinds`. */
static int
dtypefuncs_info_argument(PyObject *args, PyObject *kwds, const char *func,
                         const char *kinds, const char *wanted, int *typenum)
{
    PyObject *type;

    if ((kwds != NULL && PyDict_GET_SIZE(kwds) != 0) ||
        PyTuple_GET_SIZE(args) != 1) {
        PyErr_Format(PyExc_TypeError,
                     "%s() takes exactly one positional argument, an array "
                     "or a dtype",
                     func);
        return -1;
    }
    type = PyTuple_GET_ITEM(args, 0);
    if (dtypefuncs_typenum_of(type, func, typenum) < 0) {
        return -1;
    }
    if (strchr(kinds, dtype_table[*typenum].kind) == NULL) {
        PyErr_Format(PyExc_ValueError, "%s() needs %s dtype, not %s", func,
                     wanted, dtype_table[*typenum].name);
        return -1;
    }
    return 0;
}

static PyObject *
dtypefuncs_finfo_new(PyTypeObject *Py_UNUSED(type), PyObject *args,
                     PyObject *kwds)
{
    size_t i;
    int typenum;

    if (dtypefuncs_info_argument(args, kwds, "finfo", "fc",
                                 "a real or complex floating-point",
                                 &typenum) < 0) {
        return NULL;
    }
    /* a complex dtype's limits are its components' */
    typenum = typenum == DA_COMPLEX64    ? DA_FLOAT32
              : typenum == DA_COMPLEX128 ? DA_FLOAT64
                                         : typenum;
    for (i = 0; i < DTYPEFUNCS_COUNT(dtypefuncs_finfos); i++) {
        if (dtypefuncs_finfos[i].typenum == typenum) {
            return Py_NewRef((PyObject *)&dtypefuncs_finfos[i]);
        }
    }
    PyErr_Format(PyExc_SystemError, "finfo(): no limits for %s",
                 dtype_table[typenum].name);
    return NULL;
}

static PyObject *
dtypefuncs_iinfo_new(PyTypeObject *Py_UNUSED(type), PyObject *args,
                     PyObject *kwds)
{
    size_t i;
    int typenum;

    if (dtypefuncs_info_argument(args, kwds, "iinfo", "iu", "an integer",
                                 &typenum) < 0) {
        return NULL;
    }
    for (i = 0; i < DTYPEFUNCS_COUNT(dtypefuncs_iinfos); i++) {
        if (dtypefuncs_iinfos[i].typenum == typenum) {
            return Py_NewRef((PyObject *)&dtypefuncs_iinfos[i]);
        }
    }
    PyErr_Format(PyExc_SystemError, "iinfo(): no limits for %s",
                 dtype_table[typenum].name);
    return NULL;
}

#define FINFO(self) ((FInfoObject *)(self))
#define IINFO_BITS(self) (8 * dtype_table[((IInfoObject *)(self))->typenum].itemsize)
#define IINFO_SIGNED(self) (dtype_table[((IInfoObject *)(self))->typenum].kind == 'i')

static PyObject *
dtypefuncs_finfo_bits(PyObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromLong(FINFO(self)->bits);
}

static PyObject *
dtypefuncs_finfo_eps(PyObject *self, void *Py_UNUSED(closure))
{
    return PyFloat_FromDouble(FINFO(self)->eps);
}

static PyObject *
dtypefuncs_finfo_max(PyObject *self, void *Py_UNUSED(closure))
{
    return PyFloat_FromDouble(FINFO(self)->max);
}

static PyObject *
dtypefuncs_finfo_min(PyObject *self, void *Py_UNUSED(closure))
{
    return PyFloat_FromDouble(-FINFO(self)->max);
}

static PyObject *
dtypefuncs_finfo_smallest_normal(PyObject *self, void *Py_UNUSED(closure))
{
    return PyFloat_FromDouble(FINFO(self)->smallest_normal);
}

static PyObject *
dtypefuncs_finfo_dtype(PyObject *self, void *Py_UNUSED(closure))
{
    return dtypefuncs_dtype(FINFO(self)->typenum);
}

static PyObject *
dtypefuncs_finfo_repr(PyObject *self)
{
    PyObject *eps = dtypefuncs_finfo_eps(self, NULL), *result = NULL;
    PyObject *max = dtypefuncs_finfo_max(self, NULL);
    PyObject *tiny = dtypefuncs_finfo_smallest_normal(self, NULL);

    if (eps != NULL && max != NULL && tiny != NULL) {
        result = PyUnicode_FromFormat(
            "finfo(bits=%d, eps=%R, max=%R, min=-%R, smallest_normal=%R, "
            "dtype=%s)",
            FINFO(self)->bits, eps, max, max, tiny,
            dtype_table[FINFO(self)->typenum].name);
    }
    Py_XDECREF(eps);
    Py_XDECREF(max);
    Py_XDECREF(tiny);
    return result;
}

static PyObject *
dtypefuncs_iinfo_bits(PyObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromLong(IINFO_BITS(self));
}

static PyObject *
dtypefuncs_iinfo_max(PyObject *self, void *Py_UNUSED(closure))
{
    int bits = IINFO_BITS(self);
    return IINFO_SIGNED(self)
               ? PyLong_FromLongLong((long long)(UINT64_MAX >> (65 - bits)))
               : PyLong_FromUnsignedLongLong(UINT64_MAX >> (64 - bits));
}

static PyObject *
dtypefuncs_iinfo_min(PyObject *self, void *Py_UNUSED(closure))
{
    int bits = IINFO_BITS(self);
    return PyLong_FromLongLong(
        IINFO_SIGNED(self) ? -(long long)(UINT64_MAX >> (65 - bits)) - 1 : 0);
}

static PyObject *
dtypefuncs_iinfo_dtype(PyObject *self, void *Py_UNUSED(closure))
{
    return dtypefuncs_dtype(((IInfoObject *)self)->typenum);
}

static PyObject *
dtypefuncs_iinfo_repr(PyObject *self)
{
    PyObject *min = dtypefuncs_iinfo_min(self, NULL), *result = NULL;
    PyObject *max = dtypefuncs_iinfo_max(self, NULL);

    if (min != NULL && max != NULL) {
        result = PyUnicode_FromFormat("iinfo(bits=%d, max=%R, min=%R, dtype=%s)",
                                      IINFO_BITS(self), max, min,
                                      dtype_table[((IInfoObject *)self)->typenum].name);
    }
    Py_XDECREF(min);
    Py_XDECREF(max);
    return result;
}

static PyGetSetDef dtypefuncs_finfo_getset[] = {
    {"bits", dtypefuncs_finfo_bits, NULL, "Bits of the real dtype.", NULL},
    {"eps", dtypefuncs_finfo_eps, NULL,
     "The gap between 1.0 and the next larger representable number.", NULL},
    {"max", dtypefuncs_finfo_max, NULL, "The largest finite value.", NULL},
    {"min", dtypefuncs_finfo_min, NULL, "The smallest (most negative) finite "
                                        "value.", NULL},
    {"smallest_normal", dtypefuncs_finfo_smallest_normal, NULL,
     "The smallest positive normal number.", NULL},
    {"dtype", dtypefuncs_finfo_dtype, NULL,
     "The real floating-point dtype described.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyGetSetDef dtypefuncs_iinfo_getset[] = {
    {"bits", dtypefuncs_iinfo_bits, NULL, "Bits of the dtype.", NULL},
    {"max", dtypefuncs_iinfo_max, NULL, "The largest value.", NULL},
    {"min", dtypefuncs_iinfo_min, NULL, "The smallest value.", NULL},
    {"dtype", dtypefuncs_iinfo_dtype, NULL, "The integer dtype described.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(dtypefuncs_finfo_doc,
"finfo(type, /)\n"
"--\n"
"\n"
"Limits of a floating-point dtype (or of an array's dtype): bits, eps,\n"
"max, min, smallest_normal and dtype.  A complex dtype gives its\n"
"components' limits (finfo(complex64).dtype is float32).");

PyDoc_STRVAR(dtypefuncs_iinfo_doc,
"iinfo(type, /)\n"
"--\n"
"\n"
"Limits of an integer dtype (or of an array's dtype): bits, max, min and\n"
"dtype.");

static PyTypeObject FInfo_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "devarray._core.finfo",
    .tp_basicsize = sizeof(FInfoObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = dtypefuncs_finfo_doc,
    .tp_new = dtypefuncs_finfo_new,
    .tp_repr = dtypefuncs_finfo_repr,
    .tp_getset = dtypefuncs_finfo_getset,
};

static PyTypeObject IInfo_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "devarray._core.iinfo",
    .tp_basicsize = sizeof(IInfoObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = dtypefuncs_iinfo_doc,
    .tp_new = dtypefuncs_iinfo_new,
    .tp_repr = dtypefuncs_iinfo_repr,
    .tp_getset = dtypefuncs_iinfo_getset,
};

/* ---- the module functions ------------------------------------------------ */

#define DTYPEFUNCS_KW(name, func, doc) \
    {name, (PyCFunction)(void (*)(void))func, METH_VARARGS | METH_KEYWORDS, doc}

static PyMethodDef dtypefuncs_methods[] = {
    DTYPEFUNCS_KW("astype", dtypefuncs_astype,
                  "astype(x, dtype, /, *, copy=True, device=None)\n--\n\n"
                  "x's values as `dtype` (no promotion rules), on `device` "
                  "(default: x's).  With copy=False, x itself when nothing "
                  "changes.  Complex to real or integer is refused "
                  "(TypeError): cast real(x) or imag(x)."),
    DTYPEFUNCS_KW("can_cast", dtypefuncs_can_cast,
                  "can_cast(from_, to, /)\n--\n\nWhether the dtype from_ (or "
                  "an array's dtype) casts to `to` by the promotion rules: "
                  "NumPy's 'safe' casting."),
    DTYPEFUNCS_KW("isdtype", dtypefuncs_isdtype,
                  "isdtype(dtype, kind)\n--\n\nWhether `dtype` is of `kind`: "
                  "'bool', 'signed integer', 'unsigned integer', 'integral', "
                  "'real floating' (float16 too), 'complex floating', "
                  "'numeric', a dtype, or a tuple of these."),
    {"result_type", (PyCFunction)(void (*)(void))dtypefuncs_result_type,
     METH_FASTCALL,
     "result_type(*arrays_and_dtypes)\n--\n\nThe dtype of NumPy 2's "
     "promotion of the arguments, in any order: arrays and dtypes, with "
     "Python bool/int/float/complex scalars weak (NEP 50).  At least one "
     "array or dtype is required."},
    {NULL, NULL, 0, NULL},
};

int
dtypefuncs_module_init(PyObject *module)
{
    if (PyType_Ready(&FInfo_Type) < 0 || PyType_Ready(&IInfo_Type) < 0 ||
        PyModule_AddObjectRef(module, "finfo", (PyObject *)&FInfo_Type) < 0 ||
        PyModule_AddObjectRef(module, "iinfo", (PyObject *)&IInfo_Type) < 0) {
        return -1;
    }
    return PyModule_AddFunctions(module, dtypefuncs_methods);
}
