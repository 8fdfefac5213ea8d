/*
 * dtypes: the table of the 14 element types, the DType objects exposed as
 * devarray.float32 etc., parsing of buffer-protocol format strings, and
 * NumPy 2 promotion (array with array, and array with a weak Python scalar,
 * NEP 50), as data.
 */
#ifndef DEVARRAY_SRC_DTYPE_H_
#define DEVARRAY_SRC_DTYPE_H_

#include "common.h"

typedef struct {
    const char *name;     /* "float32" */
    char kind;            /* NumPy kind: 'b', 'i', 'u', 'f', 'c' */
    int itemsize;
    const char *typestr;  /* array-interface typestr: "|b1", "<f4", ... */
    const char *format;   /* struct-module format for exported buffers: "?", "f", "Zf", ... */
} dtype_info;

extern const dtype_info dtype_table[DA_NTYPES];

typedef struct {
    PyObject_HEAD
    int typenum;
} DTypeObject;

extern PyTypeObject DType_Type;

#define DType_Check(op) PyObject_TypeCheck(op, &DType_Type)

/* Create the 14 DType singletons and add them (bool, int8, ..., complex128)
   and the type DType to `module`.  0 on success, -1 with an exception. */
int dtype_module_init(PyObject *module);

/* Borrowed reference to the singleton for typenum (valid after init). */
PyObject *dtype_object(int typenum);

/* Convert a dtype-like object to a typenum: a DType, a name ("float32",
   also NumPy's aliases "f4", "float", "int", "bool", "complex", "double",
   ...), a typestr ("<f4"), numpy.dtype or a NumPy scalar type (anything with
   a `.str` typestr attribute, read without importing NumPy), or a Python type
   (bool, int -> int64, float -> float64, complex -> complex128).  Returns 0,
   or -1 with TypeError saying what was given.  None is not accepted here;
   callers handle their own default. */
int dtype_from_object(PyObject *obj, int *typenum);

/* PyArg "O&" converter over dtype_from_object; None gives -1 ("no dtype"). */
int dtype_converter_optional(PyObject *obj, void *typenum_ptr);

/* Map a buffer's format string and itemsize to a typenum.  Accepts native,
   '=' and '<' byte order ('@' sizes as the platform's C types), '?', bBhHiIlLqQnN,
   'e', 'f', 'd', 'Zf', 'Zd' and 'c' (a char, as uint8).  Returns 0, or -1
   with a TypeError that names the unsupported format. */
int dtype_from_format(const char *format, Py_ssize_t itemsize, int *typenum);

/* NumPy's result_type for two arrays. */
int dtype_promote(int a, int b);

/* NEP 50 weak promotion of an array dtype with a Python scalar of kind
   'b' (bool), 'i' (int), 'f' (float) or 'c' (complex). */
int dtype_promote_weak(int array_typenum, char scalar_kind);

/* numpy.can_cast(from, to, casting="same_kind"). */
int dtype_can_cast_same_kind(int from, int to);

/* The dtype of sum() for an input dtype, as NumPy: bool and signed ints ->
   int64, unsigned -> uint64, others unchanged. */
int dtype_sum_result(int typenum);

#endif /* DEVARRAY_SRC_DTYPE_H_ */
