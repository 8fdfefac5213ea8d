/*
 * dtypes: the per-dtype table, conversion of dtype-likes and buffer formats
 * to typenums, and NumPy 2's promotion and casting rules as tables.  The
 * Python DType type and its singletons are in dtypeobject.c, above this
 * file; everything here is data and plain C functions that every layer may
 * use.
 */
#include "base/common.h"

#include <limits.h>

#include "base/dtype.h"

#if PY_BIG_ENDIAN
#error "devarray's typestrs and formats assume a little-endian host"
#endif

/* C long is 64 bits on LP64 (Linux, macOS) and 32 on LLP64 (Windows); the
   aliases "long"/"l" and the exported buffer format follow it as NumPy's
   do, so a NumPy array built from our buffers gets numpy.int64 itself
   (format 'q' would give numpy.longlong, equal to int64 but another type). */
#if LONG_MAX == INT64_MAX
#define DTYPE_LONG DA_INT64
#define DTYPE_ULONG DA_UINT64
#define DTYPE_INT64_FORMAT "l"
#define DTYPE_UINT64_FORMAT "L"
#define DTYPE_INT64_CHAR 'l'
#define DTYPE_UINT64_CHAR 'L'
#else
#define DTYPE_LONG DA_INT32
#define DTYPE_ULONG DA_UINT32
#define DTYPE_INT64_FORMAT "q"
#define DTYPE_UINT64_FORMAT "Q"
#define DTYPE_INT64_CHAR 'q'
#define DTYPE_UINT64_CHAR 'Q'
#endif

const dtype_info dtype_table[DA_NTYPES] = {
    [DA_BOOL] = {"bool", 'b', 1, "|b1", "?"},
    [DA_INT8] = {"int8", 'i', 1, "|i1", "b"},
    [DA_UINT8] = {"uint8", 'u', 1, "|u1", "B"},
    [DA_INT16] = {"int16", 'i', 2, "<i2", "h"},
    [DA_UINT16] = {"uint16", 'u', 2, "<u2", "H"},
    [DA_INT32] = {"int32", 'i', 4, "<i4", "i"},
    [DA_UINT32] = {"uint32", 'u', 4, "<u4", "I"},
    [DA_INT64] = {"int64", 'i', 8, "<i8", DTYPE_INT64_FORMAT},
    [DA_UINT64] = {"uint64", 'u', 8, "<u8", DTYPE_UINT64_FORMAT},
    [DA_FLOAT16] = {"float16", 'f', 2, "<f2", "e"},
    [DA_FLOAT32] = {"float32", 'f', 4, "<f4", "f"},
    [DA_FLOAT64] = {"float64", 'f', 8, "<f8", "d"},
    [DA_COMPLEX64] = {"complex64", 'c', 8, "<c8", "Zf"},
    [DA_COMPLEX128] = {"complex128", 'c', 16, "<c16", "Zd"},
};

/* NumPy's dtype.char, the only per-dtype field not in dtype_info. */
const char dtype_chars[DA_NTYPES] = {
    [DA_BOOL] = '?',
    [DA_INT8] = 'b',
    [DA_UINT8] = 'B',
    [DA_INT16] = 'h',
    [DA_UINT16] = 'H',
    [DA_INT32] = 'i',
    [DA_UINT32] = 'I',
    [DA_INT64] = DTYPE_INT64_CHAR,
    [DA_UINT64] = DTYPE_UINT64_CHAR,
    [DA_FLOAT16] = 'e',
    [DA_FLOAT32] = 'f',
    [DA_FLOAT64] = 'd',
    [DA_COMPLEX64] = 'F',
    [DA_COMPLEX128] = 'D',
};

/* ---- promotion and casting tables ------------------------------------- */

/*
 * The three tables below were generated with NumPy 2.4.6 by a throwaway
 * script and pasted here; rows and columns are in da_typenum order, and
 * entries are named by kind and itemsize (I2 = int16, C16 = complex128):
 *
 *   promote[a][b]   = numpy.result_type(a, b)
 *   weak[a][k]      = numpy.result_type(numpy.empty(0, a), s)
 *                     for s in (True, 1, 1.0, 1j)   (NEP 50)
 *   same_kind[a][b] = numpy.can_cast(a, b, "same_kind")
 *
 * tests/test_dtype.py checks every entry against the installed NumPy.
 */

#define B1 DA_BOOL
#define I1 DA_INT8
#define U1 DA_UINT8
#define I2 DA_INT16
#define U2 DA_UINT16
#define I4 DA_INT32
#define U4 DA_UINT32
#define I8 DA_INT64
#define U8 DA_UINT64
#define F2 DA_FLOAT16
#define F4 DA_FLOAT32
#define F8 DA_FLOAT64
#define C8 DA_COMPLEX64
#define C16 DA_COMPLEX128

static const signed char dtype_promote_table[DA_NTYPES][DA_NTYPES] = {
    /* a \ b:  b1 i1 u1 i2 u2 i4 u4 i8 u8 f2 f4 f8 c8 c16 */
    /* b1  */ {B1, I1, U1, I2, U2, I4, U4, I8, U8, F2, F4, F8, C8, C16},
    /* i1  */ {I1, I1, I2, I2, I4, I4, I8, I8, F8, F2, F4, F8, C8, C16},
    /* u1  */ {U1, I2, U1, I2, U2, I4, U4, I8, U8, F2, F4, F8, C8, C16},
    /* i2  */ {I2, I2, I2, I2, I4, I4, I8, I8, F8, F4, F4, F8, C8, C16},
    /* u2  */ {U2, I4, U2, I4, U2, I4, U4, I8, U8, F4, F4, F8, C8, C16},
    /* i4  */ {I4, I4, I4, I4, I4, I4, I8, I8, F8, F8, F8, F8, C16, C16},
    /* u4  */ {U4, I8, U4, I8, U4, I8, U4, I8, U8, F8, F8, F8, C16, C16},
    /* i8  */ {I8, I8, I8, I8, I8, I8, I8, I8, F8, F8, F8, F8, C16, C16},
    /* u8  */ {U8, F8, U8, F8, U8, F8, U8, F8, U8, F8, F8, F8, C16, C16},
    /* f2  */ {F2, F2, F2, F4, F4, F8, F8, F8, F8, F2, F4, F8, C8, C16},
    /* f4  */ {F4, F4, F4, F4, F4, F8, F8, F8, F8, F4, F4, F8, C8, C16},
    /* f8  */ {F8, F8, F8, F8, F8, F8, F8, F8, F8, F8, F8, F8, C16, C16},
    /* c8  */ {C8, C8, C8, C8, C8, C16, C16, C16, C16, C8, C8, C16, C8, C16},
    /* c16 */ {C16, C16, C16, C16, C16, C16, C16, C16, C16, C16, C16, C16, C16,
               C16},
};

/* Columns: the Python scalar's kind, in dtype_weak_kinds order. */
const char dtype_weak_kinds[] = "bifc";

static const signed char dtype_promote_weak_table[DA_NTYPES][4] = {
    /* array \ scalar: bool, int, float, complex */
    /* b1  */ {B1, I8, F8, C16},
    /* i1  */ {I1, I1, F8, C16},
    /* u1  */ {U1, U1, F8, C16},
    /* i2  */ {I2, I2, F8, C16},
    /* u2  */ {U2, U2, F8, C16},
    /* i4  */ {I4, I4, F8, C16},
    /* u4  */ {U4, U4, F8, C16},
    /* i8  */ {I8, I8, F8, C16},
    /* u8  */ {U8, U8, F8, C16},
    /* f2  */ {F2, F2, F2, C8},
    /* f4  */ {F4, F4, F4, C8},
    /* f8  */ {F8, F8, F8, C16},
    /* c8  */ {C8, C8, C8, C8},
    /* c16 */ {C16, C16, C16, C16},
};

#undef B1
#undef I1
#undef U1
#undef I2
#undef U2
#undef I4
#undef U4
#undef I8
#undef U8
#undef F2
#undef F4
#undef F8
#undef C8
#undef C16

static const unsigned char dtype_same_kind_table[DA_NTYPES][DA_NTYPES] = {
    /* from \ to: b1 i1 u1 i2 u2 i4 u4 i8 u8 f2 f4 f8 c8 c16 */
    /* b1  */ {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    /* i1  */ {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1},
    /* u1  */ {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    /* i2  */ {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1},
    /* u2  */ {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    /* i4  */ {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1},
    /* u4  */ {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    /* i8  */ {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1},
    /* u8  */ {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    /* f2  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1},
    /* f4  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1},
    /* f8  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1},
    /* c8  */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1},
    /* c16 */ {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1},
};

int
dtype_promote(int a, int b)
{
    return dtype_promote_table[a][b];
}

int
dtype_promote_weak(int array_typenum, char scalar_kind)
{
    const char *column = NULL;

    if (scalar_kind != '\0') {
        column = strchr(dtype_weak_kinds, scalar_kind);
    }
    if (column == NULL) {
        PyErr_Format(PyExc_SystemError,
                     "dtype_promote_weak: unknown scalar kind '%c'",
                     scalar_kind);
        return -1;
    }
    return dtype_promote_weak_table[array_typenum][column - dtype_weak_kinds];
}

int
dtype_can_cast_same_kind(int from, int to)
{
    return dtype_same_kind_table[from][to];
}

int
dtype_sum_result(int typenum)
{
    switch (dtype_table[typenum].kind) {
        case 'b':
        case 'i':
            return DA_INT64;
        case 'u':
            return DA_UINT64;
        default:
            return typenum;
    }
}

/* ---- dtype names -------------------------------------------------------- */

/* Every spelling NumPy 2 accepts for our dtypes.  `is_code` marks type codes
   that may follow a byte-order character ("<f4", "=d", "|b1"); full names
   may not, as in NumPy. */
typedef struct {
    const char *alias;
    signed char typenum;
    unsigned char is_code;
} dtype_alias;

static const dtype_alias dtype_aliases[] = {
    /* canonical names first: the common case ends the search early */
    {"bool", DA_BOOL, 0},
    {"int8", DA_INT8, 0},
    {"uint8", DA_UINT8, 0},
    {"int16", DA_INT16, 0},
    {"uint16", DA_UINT16, 0},
    {"int32", DA_INT32, 0},
    {"uint32", DA_UINT32, 0},
    {"int64", DA_INT64, 0},
    {"uint64", DA_UINT64, 0},
    {"float16", DA_FLOAT16, 0},
    {"float32", DA_FLOAT32, 0},
    {"float64", DA_FLOAT64, 0},
    {"complex64", DA_COMPLEX64, 0},
    {"complex128", DA_COMPLEX128, 0},
    /* kind and size */
    {"b1", DA_BOOL, 1},
    {"i1", DA_INT8, 1},
    {"u1", DA_UINT8, 1},
    {"i2", DA_INT16, 1},
    {"u2", DA_UINT16, 1},
    {"i4", DA_INT32, 1},
    {"u4", DA_UINT32, 1},
    {"i8", DA_INT64, 1},
    {"u8", DA_UINT64, 1},
    {"f2", DA_FLOAT16, 1},
    {"f4", DA_FLOAT32, 1},
    {"f8", DA_FLOAT64, 1},
    {"c8", DA_COMPLEX64, 1},
    {"c16", DA_COMPLEX128, 1},
    /* single-character type codes */
    {"?", DA_BOOL, 1},
    {"b", DA_INT8, 1},
    {"B", DA_UINT8, 1},
    {"h", DA_INT16, 1},
    {"H", DA_UINT16, 1},
    {"i", DA_INT32, 1},
    {"I", DA_UINT32, 1},
    {"l", DTYPE_LONG, 1},
    {"L", DTYPE_ULONG, 1},
    {"q", DA_INT64, 1},
    {"Q", DA_UINT64, 1},
    {"p", DA_INT64, 1},
    {"P", DA_UINT64, 1},
    {"e", DA_FLOAT16, 1},
    {"f", DA_FLOAT32, 1},
    {"d", DA_FLOAT64, 1},
    {"F", DA_COMPLEX64, 1},
    {"D", DA_COMPLEX128, 1},
    /* C and Python names */
    {"bool_", DA_BOOL, 0},
    {"byte", DA_INT8, 0},
    {"ubyte", DA_UINT8, 0},
    {"short", DA_INT16, 0},
    {"ushort", DA_UINT16, 0},
    {"intc", DA_INT32, 0},
    {"uintc", DA_UINT32, 0},
    {"int", DA_INT64, 0},
    {"int_", DA_INT64, 0},
    {"intp", DA_INT64, 0},
    {"long", DTYPE_LONG, 0},
    {"longlong", DA_INT64, 0},
    {"uint", DA_UINT64, 0},
    {"uintp", DA_UINT64, 0},
    {"ulong", DTYPE_ULONG, 0},
    {"ulonglong", DA_UINT64, 0},
    {"half", DA_FLOAT16, 0},
    {"single", DA_FLOAT32, 0},
    {"double", DA_FLOAT64, 0},
    {"float", DA_FLOAT64, 0},
    {"csingle", DA_COMPLEX64, 0},
    {"cdouble", DA_COMPLEX128, 0},
    {"complex", DA_COMPLEX128, 0},
};

#define DTYPE_NOT_UNDERSTOOD (-1)
#define DTYPE_BIG_ENDIAN (-2)

/* The typenum spelled by s[0..len), or DTYPE_NOT_UNDERSTOOD, or
   DTYPE_BIG_ENDIAN for a '>' code of a multi-byte type ('>' on a one-byte
   type means nothing, and NumPy accepts it). */
static int
dtype_parse_string(const char *s, Py_ssize_t len)
{
    char byteorder = '\0';
    size_t i;

    if (len > 0 && s[0] != '\0' && strchr("<>=|", s[0]) != NULL) {
        byteorder = s[0];
        s++;
        len--;
    }
    for (i = 0; i < sizeof(dtype_aliases) / sizeof(dtype_aliases[0]); i++) {
        const dtype_alias *entry = &dtype_aliases[i];
        if ((byteorder != '\0' && !entry->is_code) ||
            strlen(entry->alias) != (size_t)len ||
            memcmp(entry->alias, s, (size_t)len) != 0) {
            continue;
        }
        if (byteorder == '>' && dtype_table[entry->typenum].itemsize > 1) {
            return DTYPE_BIG_ENDIAN;
        }
        return entry->typenum;
    }
    return DTYPE_NOT_UNDERSTOOD;
}

/* Parse the str `text`, raising about `given` when it names no dtype. */
static int
dtype_from_string(PyObject *text, PyObject *given, int *typenum)
{
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(text, &len);
    int result;

    if (s == NULL) {
        /* lone surrogates: no dtype is spelled that way */
        if (!PyErr_ExceptionMatches(PyExc_UnicodeError)) {
            return -1;
        }
        PyErr_Clear();
        result = DTYPE_NOT_UNDERSTOOD;
    }
    else {
        result = dtype_parse_string(s, len);
    }
    if (result == DTYPE_BIG_ENDIAN) {
        PyErr_Format(PyExc_TypeError,
                     "data type %R is big-endian; devarray supports only "
                     "little-endian (native) data",
                     given);
        return -1;
    }
    if (result == DTYPE_NOT_UNDERSTOOD) {
        PyErr_Format(PyExc_TypeError, "data type %R not understood", given);
        return -1;
    }
    *typenum = result;
    return 0;
}

/* getattr that tells a missing attribute (0, *value NULL) from a failure (-1,
   with the exception); 1 when found.  PyObject_GetOptionalAttr is 3.13+. */
static int
dtype_lookup_attr(PyObject *obj, const char *name, PyObject **value)
{
    *value = PyObject_GetAttrString(obj, name);
    if (*value != NULL) {
        return 1;
    }
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
        return -1;
    }
    PyErr_Clear();
    return 0;
}

/* The typestr of a NumPy scalar type (numpy.float32, numpy.intc, ...), asked
   of the NumPy that defined it.  0 with *typestr set, 0 with *typestr NULL
   when obj is not one, -1 with an exception. */
static int
dtype_numpy_type_typestr(PyObject *type, PyObject **typestr)
{
    PyObject *module_name = NULL, *numpy = NULL, *descr = NULL;
    int found, result = -1;

    *typestr = NULL;
    found = dtype_lookup_attr(type, "__module__", &module_name);
    if (found < 0) {
        goto done;
    }
    if (!found || !PyUnicode_Check(module_name) ||
        PyUnicode_CompareWithASCIIString(module_name, "numpy") != 0) {
        result = 0;
        goto done;
    }
    /* a real NumPy type means NumPy is in sys.modules; never import it */
    numpy = PyImport_GetModule(module_name);
    if (numpy == NULL) {
        if (!PyErr_Occurred()) {
            result = 0;
        }
        goto done;
    }
    descr = PyObject_CallMethod(numpy, "dtype", "O", type);
    if (descr == NULL) {
        /* numpy.generic and friends have no dtype: not understood */
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            result = 0;
        }
        goto done;
    }
    *typestr = PyObject_GetAttrString(descr, "str");
    if (*typestr != NULL) {
        result = 0;
    }

done:
    Py_XDECREF(module_name);
    Py_XDECREF(numpy);
    Py_XDECREF(descr);
    return result;
}

/* The typestr of a numpy.dtype-like instance: one whose `str` and `kind`
   attributes are both str.  Same returns as dtype_numpy_type_typestr. */
static int
dtype_descr_typestr(PyObject *obj, PyObject **typestr)
{
    PyObject *kind = NULL, *str = NULL;
    int result = -1;

    *typestr = NULL;
    if (dtype_lookup_attr(obj, "kind", &kind) < 0 ||
        dtype_lookup_attr(obj, "str", &str) < 0) {
        goto done;
    }
    if (kind != NULL && str != NULL && PyUnicode_Check(kind) &&
        PyUnicode_Check(str)) {
        *typestr = Py_NewRef(str);
    }
    result = 0;

done:
    Py_XDECREF(kind);
    Py_XDECREF(str);
    return result;
}

int
dtype_parse_object(PyObject *obj, int *typenum)
{
    PyObject *typestr = NULL;
    int result = -1;

    if (PyUnicode_Check(obj)) {
        return dtype_from_string(obj, obj, typenum);
    }
    if (PyType_Check(obj)) {
        if (obj == (PyObject *)&PyBool_Type) {
            *typenum = DA_BOOL;
            return 0;
        }
        if (obj == (PyObject *)&PyLong_Type) {
            *typenum = DA_INT64;
            return 0;
        }
        if (obj == (PyObject *)&PyFloat_Type) {
            *typenum = DA_FLOAT64;
            return 0;
        }
        if (obj == (PyObject *)&PyComplex_Type) {
            *typenum = DA_COMPLEX128;
            return 0;
        }
        if (dtype_numpy_type_typestr(obj, &typestr) < 0) {
            goto done;
        }
    }
    else if (dtype_descr_typestr(obj, &typestr) < 0) {
        goto done;
    }
    if (typestr == NULL) {
        PyErr_Format(PyExc_TypeError, "data type %R not understood", obj);
        goto done;
    }
    result = dtype_from_string(typestr, obj, typenum);

done:
    Py_XDECREF(typestr);
    return result;
}

/* ---- buffer formats ----------------------------------------------------- */

/* The struct-module codes we read.  Native ('@' or no prefix) codes have the
   platform's C sizes, standard ('=', '<', '>', '!') codes fixed ones; 'n'
   and 'N' exist only natively (standard_size 0).  The dtype is chosen from
   the kind and the size. */
typedef struct {
    const char *code;
    char kind;
    unsigned char native_size;
    unsigned char standard_size;
} dtype_format_code;

static const dtype_format_code dtype_format_codes[] = {
    {"?", 'b', sizeof(_Bool), 1},
    {"c", 'u', 1, 1},
    {"b", 'i', 1, 1},
    {"B", 'u', 1, 1},
    {"h", 'i', sizeof(short), 2},
    {"H", 'u', sizeof(unsigned short), 2},
    {"i", 'i', sizeof(int), 4},
    {"I", 'u', sizeof(unsigned int), 4},
    {"l", 'i', sizeof(long), 4},
    {"L", 'u', sizeof(unsigned long), 4},
    {"q", 'i', sizeof(long long), 8},
    {"Q", 'u', sizeof(unsigned long long), 8},
    {"n", 'i', sizeof(Py_ssize_t), 0},
    {"N", 'u', sizeof(size_t), 0},
    {"e", 'f', 2, 2},
    {"f", 'f', sizeof(float), 4},
    {"d", 'f', sizeof(double), 8},
    {"Zf", 'c', 2 * sizeof(float), 8},
    {"Zd", 'c', 2 * sizeof(double), 16},
};

int
dtype_from_format(const char *format, Py_ssize_t itemsize, int *typenum)
{
    const char *given = format == NULL ? "B" : format;
    const char *code = given;
    const dtype_format_code *entry = NULL;
    char byteorder = '@';
    size_t i;
    int size, t;

    if (code[0] != '\0' && strchr("@=<>!", code[0]) != NULL) {
        byteorder = code[0];
        code++;
    }
    for (i = 0; i < sizeof(dtype_format_codes) / sizeof(dtype_format_codes[0]);
         i++) {
        if (strcmp(dtype_format_codes[i].code, code) == 0) {
            entry = &dtype_format_codes[i];
            break;
        }
    }
    if (entry == NULL || (byteorder != '@' && entry->standard_size == 0)) {
        goto unsupported;
    }
    size = byteorder == '@' ? entry->native_size : entry->standard_size;
    if (itemsize != size) {
        PyErr_Format(PyExc_TypeError,
                     "buffer format '%.200s' has itemsize %zd, expected %d",
                     given, itemsize, size);
        return -1;
    }
    /* one-byte items have no byte order, whatever the prefix says */
    if ((byteorder == '>' || byteorder == '!') && size > 1) {
        PyErr_Format(PyExc_TypeError,
                     "unsupported buffer format '%.200s': big-endian data "
                     "is not supported",
                     given);
        return -1;
    }
    for (t = 0; t < DA_NTYPES; t++) {
        if (dtype_table[t].kind == entry->kind &&
            dtype_table[t].itemsize == size) {
            *typenum = t;
            return 0;
        }
    }

unsupported:
    PyErr_Format(PyExc_TypeError, "unsupported buffer format '%.200s'",
                 given);
    return -1;
}
