/*
 * The orders argmax/argmin and searchsorted compare class values in,
 * shared by kernels/scan.cu, kernels/search.cu and src/host/host_scan.c so the
 * backends cannot disagree.  C11 and CUDA C++; static inline, cannot fail.
 *
 *   da_<class>_order_nan(a)  a is NaN (complex: either part is), as NumPy's
 *                        argmax tests it;
 *   da_<class>_order_less(a, b) a < b for values that are not NaN (complex:
 *                        lexicographic, real part first, as NumPy);
 *   da_<class>_sort_lt(a, b) the total order of sort and searchsorted, NaN
 *                        last.  Complex follows NumPy's sort order:
 *                        R + Rj < R + nanj < nan + Rj < nan + nanj, each
 *                        group ordered by its non-NaN parts;
 *   da_<class>_order_eq(a, b) value equality, the standard's `equal`: NaN
 *                        equals nothing, -0.0 equals +0.0 (isin's test).
 * x != x is the NaN test because it is the same expression in both
 * languages and needs no math library.
 */
#ifndef DEVARRAY_KERNELS_ORDER_H_
#define DEVARRAY_KERNELS_ORDER_H_

#include "dtypes.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DA_ORDER_INTEGER(cls, CT)                                             \
    DA_HD int da_##cls##_order_nan(CT a) { (void)a; return 0; }               \
    DA_HD int da_##cls##_order_less(CT a, CT b) { return a < b; }             \
    DA_HD int da_##cls##_sort_lt(CT a, CT b) { return a < b; }               \
    DA_HD int da_##cls##_order_eq(CT a, CT b) { return a == b; }

DA_ORDER_INTEGER(bool, uint8_t)
DA_ORDER_INTEGER(sint, int64_t)
DA_ORDER_INTEGER(uint, uint64_t)
#undef DA_ORDER_INTEGER

#define DA_ORDER_REAL(cls, CT)                                                \
    DA_HD int da_##cls##_order_nan(CT a) { return a != a; }                   \
    DA_HD int da_##cls##_order_less(CT a, CT b) { return a < b; }             \
    DA_HD int da_##cls##_sort_lt(CT a, CT b)                                  \
    {                                                                         \
        return a < b || (b != b && a == a);                                   \
    }                                                                         \
    DA_HD int da_##cls##_order_eq(CT a, CT b) { return a == b; }

DA_ORDER_REAL(f32, float)
DA_ORDER_REAL(f64, double)
#undef DA_ORDER_REAL

/* sort_lt for complex: first by which parts are NaN (the group), then by
   the parts that are numbers. */
#define DA_ORDER_COMPLEX(cls, CT)                                             \
    DA_HD int da_##cls##_order_nan(CT a) { return a.re != a.re || a.im != a.im; } \
    DA_HD int da_##cls##_order_less(CT a, CT b)                               \
    {                                                                         \
        return a.re < b.re || (a.re == b.re && a.im < b.im);                  \
    }                                                                         \
    DA_HD int da_##cls##_sort_lt(CT a, CT b)                                  \
    {                                                                         \
        const int ga = (a.re != a.re) * 2 + (a.im != a.im);                   \
        const int gb = (b.re != b.re) * 2 + (b.im != b.im);                   \
        if (ga != gb) {                                                       \
            return ga < gb;                                                   \
        }                                                                     \
        if (ga == 0) {                                                        \
            return a.re < b.re || (a.re == b.re && a.im < b.im);              \
        }                                                                     \
        return ga == 1 ? a.re < b.re : (ga == 2 ? a.im < b.im : 0);           \
    }                                                                         \
    DA_HD int da_##cls##_order_eq(CT a, CT b)                                 \
    {                                                                         \
        return a.re == b.re && a.im == b.im;                                  \
    }

DA_ORDER_COMPLEX(c64, da_c64)
DA_ORDER_COMPLEX(c128, da_c128)
#undef DA_ORDER_COMPLEX

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
/* The same functions overloaded on the class's C type, for templates. */
#define DA_ORDER_OVERLOADS(cls, CT)                                           \
    DA_HD int da_order_nan(CT a) { return da_##cls##_order_nan(a); }          \
    DA_HD int da_order_less(CT a, CT b) { return da_##cls##_order_less(a, b); } \
    DA_HD int da_sort_lt(CT a, CT b) { return da_##cls##_sort_lt(a, b); }     \
    DA_HD int da_order_eq(CT a, CT b) { return da_##cls##_order_eq(a, b); }

DA_ORDER_OVERLOADS(bool, uint8_t)
DA_ORDER_OVERLOADS(sint, int64_t)
DA_ORDER_OVERLOADS(uint, uint64_t)
DA_ORDER_OVERLOADS(f32, float)
DA_ORDER_OVERLOADS(f64, double)
DA_ORDER_OVERLOADS(c64, da_c64)
DA_ORDER_OVERLOADS(c128, da_c128)
#undef DA_ORDER_OVERLOADS
#endif

#endif /* DEVARRAY_KERNELS_ORDER_H_ */
