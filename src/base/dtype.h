/*
 * dtypes: the table of the 14 element types, parsing of dtype-likes and of
 * buffer-protocol format strings, and NumPy 2 promotion (array with array,
 * and array with a weak Python scalar, NEP 50), as data.  The DType objects
 * exposed as devarray.float32 etc. are dtypeobject.h's.
 */
#ifndef DEVARRAY_SRC_DTYPE_H_
#define DEVARRAY_SRC_DTYPE_H_

#include "base/common.h"

typedef struct {
    const char *name;     /* "float32" */
    char kind;            /* NumPy kind: 'b', 'i', 'u', 'f', 'c' */
    int itemsize;
    const char *typestr;  /* array-interface typestr: "|b1", "<f4", ... */
    const char *format;   /* struct-module format for exported buffers: "?", "f", "Zf", ... */
} dtype_info;

extern const dtype_info dtype_table[DA_NTYPES];

/* NumPy's dtype.char for each typenum ('?', 'b', ..., 'F', 'D'). */
extern const char dtype_chars[DA_NTYPES];

/* Convert a dtype-like object other than a DType to a typenum: a name
   ("float32", also NumPy's aliases "f4", "float", "int", "bool", "complex",
   "double", ...), a typestr ("<f4"), numpy.dtype or a NumPy scalar type
   (anything with a `.str` typestr attribute, read without importing NumPy),
   or a Python type (bool, int -> int64, float -> float64, complex ->
   complex128).  Returns 0, or -1 with TypeError saying what was given.  None
   is not accepted here; callers handle their own default.  A DType is
   understood too, through its `kind` and `str` attributes, but slowly:
   code that takes dtypes from Python calls dtypeobject_from_object, which
   tells a DType by its type first. */
int dtype_parse_object(PyObject *obj, int *typenum);

/* Map a buffer's format string and itemsize to a typenum.  Accepts native,
   '=' and '<' byte order ('@' sizes as the platform's C types), '?', bBhHiIlLqQnN,
   'e', 'f', 'd', 'Zf', 'Zd' and 'c' (a char, as uint8).  Returns 0, or -1
   with a TypeError that names the unsupported format. */
int dtype_from_format(const char *format, Py_ssize_t itemsize, int *typenum);

/* NumPy's result_type for two arrays. */
int dtype_promote(int a, int b);

/* The scalar kinds dtype_promote_weak takes, as a string: "bifc". */
extern const char dtype_weak_kinds[];

/* NEP 50 weak promotion of an array dtype with a Python scalar of kind
   'b' (bool), 'i' (int), 'f' (float) or 'c' (complex). */
int dtype_promote_weak(int array_typenum, char scalar_kind);

/* numpy.can_cast(from, to, casting="same_kind"). */
int dtype_can_cast_same_kind(int from, int to);

/* The dtype of sum() for an input dtype, as NumPy: bool and signed ints ->
   int64, unsigned -> uint64, others unchanged. */
int dtype_sum_result(int typenum);

#endif /* DEVARRAY_SRC_DTYPE_H_ */
