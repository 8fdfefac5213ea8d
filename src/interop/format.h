/*
 * Number formatting as NumPy prints arrays: the layout every element of an
 * array shares (widths, positional or scientific floats with the shortest
 * round-tripping digits), each element written in it, and a scalar's str.
 */
#ifndef DEVARRAY_SRC_FORMAT_H_
#define DEVARRAY_SRC_FORMAT_H_

#include "base/common.h"
#include "interop/strbuf.h"

/* Room for one formatted element. */
#define FORMAT_WORD_MAX 192

/* NumPy's FloatingFormat: one layout for all values of an array (or all
   real or all imaginary parts of a complex one). */
typedef struct {
    int part_typenum; /* float16, float32 or float64: digits to round-trip */
    int scientific;
    int sign_plus; /* '+' before non-negative values (imaginary parts) */
    int pad_left;  /* width up to the point, sign included */
    int pad_right; /* width after the point */
    int precision; /* scientific: digits after the point, all values */
    int exp_len;   /* scientific: exponent digits */
} format_float;

/* The layout of every element an array shows. */
typedef struct {
    int typenum;
    da_class cls;
    int width;       /* bool and integer elements, right-aligned */
    format_float re; /* float values, real parts of complex */
    format_float im; /* imaginary parts */
} format_elem;

/* The layout for the n C-ordered elements of dtype typenum at `data` (host
   memory) of an array with `ndim` dimensions.  0, or -1 with an exception. */
int format_elem_fill(format_elem *f, const char *data, int64_t n, int typenum,
                     int ndim);

/* Write the element at p into w (FORMAT_WORD_MAX bytes); its length, or -1
   with an exception. */
int format_elem_write(const format_elem *f, const char *p, char *w);

/* str() of a 0-d array: the element at p as NumPy's scalar str writes it,
   which is Python's repr with the element's own precision.  0, or -1 with
   an exception. */
int format_scalar_str(strbuf *sb, const char *p, int typenum);

#endif /* DEVARRAY_SRC_FORMAT_H_ */
