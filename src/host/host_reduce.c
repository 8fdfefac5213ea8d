/*
 * The host backend's reductions: da_host_reduce (kernels/launch.h), the
 * reference for kernels/reduce*.cu, and da_host_nonzero_reduce, for
 * kernels/nonzero_reduce.cu.
 *
 * NumPy's order is reproduced so host results match NumPy bit for bit:
 *   - float and complex sums of contiguous segments (inner == 1) are zero
 *     plus NumPy's pairwise sum (8 partial sums in blocks of up to 128,
 *     halving above; complex as 2n interleaved scalars);
 *   - everything else is NumPy's plain loop: the identity (sum, prod) or
 *     the first element (max, min), then each element along `len` in
 *     order.  For inner > 1 that is what NumPy's reduction iterator does
 *     when the reduced axis is not the innermost: the outputs are the
 *     inner loop and the reduced axis the outer one, so each output adds
 *     its elements in order.
 * float16 accumulates in float32 and is rounded once, by the caller's cast
 * (as the CUDA kernels do; NumPy's half loops round every step along a
 * leading axis in some versions, so no version's float16 order is copied).
 * Integers wrap in 64 bits; max and min propagate NaN (optable.h's
 * maximum/minimum element functions).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../kernels/launch.h"

/* ---- pairwise sums ------------------------------------------------------- */

/* NumPy's block of partial sums for pairwise summation. */
#define HOST_REDUCE_PAIRWISE_BLOCK 128

/* Pairwise sum of n real elements of dtype TYPENUM (stride `size`) in class
   CNAME: NumPy's @TYPE@_pairwise_sum, step for step. */
#define HOST_REDUCE_PAIRWISE_REAL(FNAME, CNAME, TYPENUM)                      \
    static DA_CTYPE_##CNAME                                                 \
    FNAME(const char *p, int64_t n)                                           \
    {                                                                         \
        typedef DA_CTYPE_##CNAME ct;                                        \
        const int64_t size = da_itemsize(TYPENUM);                            \
        int64_t i, k;                                                         \
        if (n < 8) {                                                          \
            /* NumPy's start, kept so that results match bit for bit */      \
            ct res = (ct)-0.0;                                                \
            for (i = 0; i < n; i++) {                                         \
                res = da_##CNAME##_add(res, da_load_##CNAME(p + i * size, TYPENUM)); \
            }                                                                 \
            return res;                                                       \
        }                                                                     \
        if (n <= HOST_REDUCE_PAIRWISE_BLOCK) {                                       \
            ct r[8], res;                                                     \
            for (k = 0; k < 8; k++) {                                         \
                r[k] = da_load_##CNAME(p + k * size, TYPENUM);                \
            }                                                                 \
            for (i = 8; i < n - (n % 8); i += 8) {                            \
                for (k = 0; k < 8; k++) {                                     \
                    r[k] = da_##CNAME##_add(                                  \
                        r[k], da_load_##CNAME(p + (i + k) * size, TYPENUM));  \
                }                                                             \
            }                                                                 \
            res = da_##CNAME##_add(                                           \
                da_##CNAME##_add(da_##CNAME##_add(r[0], r[1]),                \
                                 da_##CNAME##_add(r[2], r[3])),               \
                da_##CNAME##_add(da_##CNAME##_add(r[4], r[5]),                \
                                 da_##CNAME##_add(r[6], r[7])));              \
            for (; i < n; i++) {                                              \
                res = da_##CNAME##_add(res, da_load_##CNAME(p + i * size, TYPENUM)); \
            }                                                                 \
            return res;                                                       \
        }                                                                     \
        {                                                                     \
            int64_t half = n / 2;                                             \
            half -= half % 8;                                                 \
            return da_##CNAME##_add(FNAME(p, half),                           \
                                    FNAME(p + half * size, n - half));        \
        }                                                                     \
    }

/* The complex version: NumPy sums the interleaved real and imaginary parts
   as 2n scalars, which is 4 complex partial sums in blocks of 64. */
#define HOST_REDUCE_PAIRWISE_COMPLEX(FNAME, CNAME, TYPENUM)                   \
    static DA_CTYPE_##CNAME                                                 \
    FNAME(const char *p, int64_t n)                                           \
    {                                                                         \
        typedef DA_CTYPE_##CNAME ct;                                        \
        const int64_t size = da_itemsize(TYPENUM);                            \
        int64_t i, k;                                                         \
        if (n < 4) {                                                          \
            ct res;                                                           \
            res.re = -0.0;                                                    \
            res.im = -0.0;                                                    \
            for (i = 0; i < n; i++) {                                         \
                res = da_##CNAME##_add(res, da_load_##CNAME(p + i * size, TYPENUM)); \
            }                                                                 \
            return res;                                                       \
        }                                                                     \
        if (n <= HOST_REDUCE_PAIRWISE_BLOCK / 2) {                                   \
            ct r[4], res;                                                     \
            for (k = 0; k < 4; k++) {                                         \
                r[k] = da_load_##CNAME(p + k * size, TYPENUM);                \
            }                                                                 \
            for (i = 4; i < n - (n % 4); i += 4) {                            \
                for (k = 0; k < 4; k++) {                                     \
                    r[k] = da_##CNAME##_add(                                  \
                        r[k], da_load_##CNAME(p + (i + k) * size, TYPENUM));  \
                }                                                             \
            }                                                                 \
            res = da_##CNAME##_add(da_##CNAME##_add(r[0], r[1]),              \
                                   da_##CNAME##_add(r[2], r[3]));             \
            for (; i < n; i++) {                                              \
                res = da_##CNAME##_add(res, da_load_##CNAME(p + i * size, TYPENUM)); \
            }                                                                 \
            return res;                                                       \
        }                                                                     \
        {                                                                     \
            /* NumPy halves the scalar count and rounds down to 8 scalars */  \
            const int64_t half = (n - n % 8) / 2;                             \
            return da_##CNAME##_add(FNAME(p, half),                           \
                                    FNAME(p + half * size, n - half));        \
        }                                                                     \
    }

HOST_REDUCE_PAIRWISE_REAL(host_reduce_pairwise_float16, f32, DA_FLOAT16)
HOST_REDUCE_PAIRWISE_REAL(host_reduce_pairwise_float32, f32, DA_FLOAT32)
HOST_REDUCE_PAIRWISE_REAL(host_reduce_pairwise_float64, f64, DA_FLOAT64)
HOST_REDUCE_PAIRWISE_COMPLEX(host_reduce_pairwise_complex64, c64, DA_COMPLEX64)
HOST_REDUCE_PAIRWISE_COMPLEX(host_reduce_pairwise_complex128, c128, DA_COMPLEX128)

/* Each segment of a float or complex sum: add's identity plus the pairwise
   sum, as NumPy's add.reduce does (so a sum of -0.0 is 0.0 there too). */
#define HOST_REDUCE_SUM_PAIRWISE(FNAME, CNAME, TYPENUM)                        \
    do {                                                                      \
        const int64_t size = da_itemsize(TYPENUM);                            \
        DA_CTYPE_##CNAME *dst = (DA_CTYPE_##CNAME *)r->out;                   \
        int64_t s;                                                            \
        for (s = 0; s < r->outer; s++) {                                      \
            dst[s] = da_##CNAME##_add(da_bool_to_##CNAME(0),                  \
                                      FNAME(src + s * r->len * size, r->len)); \
        }                                                                     \
    } while (0)

/* Segments of a float or complex sum, in NumPy's pairwise order. */
static int
host_reduce_pairwise_sum(const da_reduce *r)
{
    const char *src = (const char *)r->in;

    switch (r->in_typenum) {
        case DA_FLOAT16:
            HOST_REDUCE_SUM_PAIRWISE(host_reduce_pairwise_float16, f32, DA_FLOAT16);
            return 0;
        case DA_FLOAT32:
            HOST_REDUCE_SUM_PAIRWISE(host_reduce_pairwise_float32, f32, DA_FLOAT32);
            return 0;
        case DA_FLOAT64:
            HOST_REDUCE_SUM_PAIRWISE(host_reduce_pairwise_float64, f64, DA_FLOAT64);
            return 0;
        case DA_COMPLEX64:
            HOST_REDUCE_SUM_PAIRWISE(host_reduce_pairwise_complex64, c64, DA_COMPLEX64);
            return 0;
        default:
            HOST_REDUCE_SUM_PAIRWISE(host_reduce_pairwise_complex128, c128, DA_COMPLEX128);
            return 0;
    }
}

/* ---- in-order loops ------------------------------------------------------ */

/* Each output of class CNAME: START (the identity, or the first element
   when FIRST), then COMBINE with each further element along len.  The
   outputs of one outer index are updated row by row, so the input is read
   in memory order. */
#define HOST_REDUCE_IN_ORDER(CNAME, COMBINE, START, FIRST)                    \
    do {                                                                      \
        typedef DA_CTYPE_##CNAME ct;                                          \
        const int64_t size = da_itemsize(r->in_typenum);                      \
        const char *src = (const char *)r->in;                                \
        ct *dst = (ct *)r->out;                                               \
        int64_t o, k, i;                                                      \
        for (o = 0; o < r->outer; o++) {                                      \
            const char *block = src + o * r->len * r->inner * size;           \
            ct *row = dst + o * r->inner;                                     \
            for (i = 0; i < r->inner; i++) {                                  \
                row[i] = FIRST ? da_load_##CNAME(block + i * size, r->in_typenum) \
                               : (START);                                     \
            }                                                                 \
            for (k = FIRST ? 1 : 0; k < r->len; k++) {                        \
                const char *line = block + k * r->inner * size;               \
                for (i = 0; i < r->inner; i++) {                              \
                    row[i] = COMBINE(row[i],                                  \
                                     da_load_##CNAME(line + i * size, r->in_typenum)); \
                }                                                             \
            }                                                                 \
        }                                                                     \
    } while (0)

/* The four ops for class CNAME with its max and min element functions. */
#define HOST_REDUCE_CLASS_CASE(CLS, CNAME, MAXFN, MINFN)                      \
    case CLS:                                                                 \
        switch (r->op) {                                                      \
            case DA_REDUCE_SUM:                                               \
                HOST_REDUCE_IN_ORDER(CNAME, da_##CNAME##_add,                 \
                                     da_bool_to_##CNAME(0), 0);               \
                return 0;                                                     \
            case DA_REDUCE_PROD:                                              \
                HOST_REDUCE_IN_ORDER(CNAME, da_##CNAME##_mul,                 \
                                     da_bool_to_##CNAME(1), 0);               \
                return 0;                                                     \
            case DA_REDUCE_MAX:                                               \
                HOST_REDUCE_IN_ORDER(CNAME, MAXFN, da_bool_to_##CNAME(0), 1); \
                return 0;                                                     \
            default:                                                          \
                HOST_REDUCE_IN_ORDER(CNAME, MINFN, da_bool_to_##CNAME(0), 1); \
                return 0;                                                     \
        }

int
da_host_reduce(const da_reduce *r)
{
    int cls;

    if (!da_reduce_supported(r->op, r->in_typenum, r->acc_typenum) || r->outer < 1 ||
        r->len < 1 || r->inner < 1) {
        return -1;
    }
    cls = da_class_of(r->acc_typenum);
    if (r->op == DA_REDUCE_SUM && r->inner == 1 && cls >= DA_CLASS_F32) {
        return host_reduce_pairwise_sum(r);
    }
    switch (cls) {
        HOST_REDUCE_CLASS_CASE(DA_CLASS_SINT, sint, da_sint_max, da_sint_min)
        HOST_REDUCE_CLASS_CASE(DA_CLASS_UINT, uint, da_uint_max, da_uint_min)
        HOST_REDUCE_CLASS_CASE(DA_CLASS_F32, f32, da_f32_max, da_f32_min)
        HOST_REDUCE_CLASS_CASE(DA_CLASS_F64, f64, da_f64_max, da_f64_min)
        HOST_REDUCE_CLASS_CASE(DA_CLASS_C64, c64, da_c64_maximum, da_c64_minimum)
        HOST_REDUCE_CLASS_CASE(DA_CLASS_C128, c128, da_c128_maximum, da_c128_minimum)
        default:
            return -1;
    }
}

/* ---- count_nonzero, any() and all() ------------------------------------- */

/* For the element type T (an unsigned integer of the element's width; the
   elements are read with memcpy, as host buffers may be unaligned), loops
   the compiler vectorises (restrict: an output never overlaps the input,
   and char pointers would otherwise stop that):
     NAME_count: the nonzero elements under mask among the n at p;
     NAME_add, NAME_fold: fold the n elements at p into counts[i]
       (+= nonzero), or into flags[i] (|= for any(), &= for all()). */
#define HOST_NONZERO_LOOPS(T, NAME)                                           \
    static int64_t                                                            \
    NAME##_count(const unsigned char *restrict p, int64_t n, T mask)          \
    {                                                                         \
        int64_t k, count = 0;                                                 \
        for (k = 0; k < n; k++) {                                             \
            T v;                                                              \
            memcpy(&v, p + k * (int64_t)sizeof(T), sizeof(T));                \
            count += (v & mask) != 0;                                         \
        }                                                                     \
        return count;                                                         \
    }                                                                         \
    static void                                                               \
    NAME##_add(int64_t *restrict counts, const unsigned char *restrict p,     \
               int64_t n, T mask)                                             \
    {                                                                         \
        int64_t k;                                                            \
        for (k = 0; k < n; k++) {                                             \
            T v;                                                              \
            memcpy(&v, p + k * (int64_t)sizeof(T), sizeof(T));                \
            counts[k] += (v & mask) != 0;                                     \
        }                                                                     \
    }                                                                         \
    static void                                                               \
    NAME##_fold(uint8_t *restrict flags, const unsigned char *restrict p,     \
                int64_t n, T mask, int all)                                   \
    {                                                                         \
        int64_t k;                                                            \
        for (k = 0; k < n; k++) {                                             \
            T v;                                                              \
            memcpy(&v, p + k * (int64_t)sizeof(T), sizeof(T));                \
            flags[k] = all ? flags[k] & ((v & mask) != 0) : flags[k] | ((v & mask) != 0); \
        }                                                                     \
    }

HOST_NONZERO_LOOPS(uint8_t, host_nonzero8)
HOST_NONZERO_LOOPS(uint16_t, host_nonzero16)
HOST_NONZERO_LOOPS(uint32_t, host_nonzero32)
HOST_NONZERO_LOOPS(uint64_t, host_nonzero64)

/* The reduction with NAME's loops: rows (inner == 1) count each row; for
   columns a row's outputs are the inner loop and each output's elements
   come in order along len, as NumPy's reduction iterator reads them. */
#define HOST_NONZERO_REDUCE(T, NAME)                                          \
    for (o = 0; o < r->outer; o++) {                                          \
        const unsigned char *block = in + o * r->len * r->inner * (int64_t)sizeof(T); \
        int64_t *counts = (int64_t *)r->out + o * r->inner;                   \
        uint8_t *flags = (uint8_t *)r->out + o * r->inner;                    \
        if (r->inner == 1) {                                                  \
            const int64_t count = NAME##_count(block, r->len, (T)r->mask);    \
            if (r->op == DA_NONZERO_COUNT) {                                  \
                *counts = count;                                              \
            }                                                                 \
            else {                                                            \
                *flags = r->op == DA_NONZERO_ANY ? count != 0 : count == r->len; \
            }                                                                 \
            continue;                                                         \
        }                                                                     \
        if (r->op == DA_NONZERO_COUNT) {                                      \
            memset(counts, 0, (size_t)r->inner * sizeof(int64_t));            \
        }                                                                     \
        else {                                                                \
            memset(flags, r->op == DA_NONZERO_ALL, (size_t)r->inner);         \
        }                                                                     \
        for (k = 0; k < r->len; k++) {                                        \
            const unsigned char *line = block + k * r->inner * (int64_t)sizeof(T); \
            if (r->op == DA_NONZERO_COUNT) {                                  \
                NAME##_add(counts, line, r->inner, (T)r->mask);               \
            }                                                                 \
            else {                                                            \
                NAME##_fold(flags, line, r->inner, (T)r->mask,                \
                            r->op == DA_NONZERO_ALL);                         \
            }                                                                 \
        }                                                                     \
    }                                                                         \
    return 0;

int
da_host_nonzero_reduce(const da_nonzero_reduce *r)
{
    const unsigned char *in = (const unsigned char *)r->in;
    int64_t o, k;

    if (r->op < DA_NONZERO_COUNT || r->op > DA_NONZERO_ALL || r->outer < 1 || r->len < 1 ||
        r->inner < 1) {
        return -1;
    }
    switch (r->width) {
        case 1:
            HOST_NONZERO_REDUCE(uint8_t, host_nonzero8)
        case 2:
            HOST_NONZERO_REDUCE(uint16_t, host_nonzero16)
        case 4:
            HOST_NONZERO_REDUCE(uint32_t, host_nonzero32)
        case 8:
            HOST_NONZERO_REDUCE(uint64_t, host_nonzero64)
        default:
            return -1;
    }
}
