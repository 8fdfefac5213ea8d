/*
 * Element functions on class values (see dtypes.h), the building blocks of
 * the element expressions in optable.h.  Shared by the CUDA kernels and the
 * host backend; C11 and CUDA C++; static inline, cannot fail.
 *
 * Where an expression is the same for float32 and float64, it calls the C
 * math library through da_math1/da_math2, which pick the float or double
 * function by the argument's type: C11 _Generic on the host, C++ overloads
 * (CUDA's device math library) on the GPU.
 */
#ifndef DEVARRAY_KERNELS_OPS_H_
#define DEVARRAY_KERNELS_OPS_H_

#include "dtypes.h"

#ifdef __cplusplus
#define da_math1(fn, a) fn(a)
#define da_math2(fn, a, b) fn(a, b)
#else
#define da_math1(fn, a) _Generic((a), float: fn##f, default: fn)(a)
#define da_math2(fn, a, b) _Generic((a), float: fn##f, default: fn)((a), (b))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- arithmetic ---------------------------------------------------------- */

/* bool: + is logical or, * is logical and (NumPy); - and / are not defined
   (optable.h has no such loop: bool - bool is a TypeError, bool / bool
   computes in float64). */
DA_HD uint8_t da_bool_add(uint8_t a, uint8_t b) { return (uint8_t)(a | b); }
DA_HD uint8_t da_bool_mul(uint8_t a, uint8_t b) { return (uint8_t)(a & b); }
DA_HD uint8_t da_bool_copy(uint8_t a) { return a; }
DA_HD uint8_t da_bool_abs(uint8_t a) { return a; }

/* Integers: modular arithmetic in uint64 (signed overflow is undefined in C
   and C++, unsigned wraps), truncated by the store. */
DA_HD int64_t da_sint_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
DA_HD int64_t da_sint_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
DA_HD int64_t da_sint_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
DA_HD int64_t da_sint_neg(int64_t a) { return (int64_t)(UINT64_C(0) - (uint64_t)a); }
DA_HD int64_t da_sint_abs(int64_t a) { return a < 0 ? da_sint_neg(a) : a; }
DA_HD int64_t da_sint_copy(int64_t a) { return a; }

DA_HD uint64_t da_uint_add(uint64_t a, uint64_t b) { return a + b; }
DA_HD uint64_t da_uint_sub(uint64_t a, uint64_t b) { return a - b; }
DA_HD uint64_t da_uint_mul(uint64_t a, uint64_t b) { return a * b; }
DA_HD uint64_t da_uint_neg(uint64_t a) { return UINT64_C(0) - a; }
DA_HD uint64_t da_uint_abs(uint64_t a) { return a; }
DA_HD uint64_t da_uint_copy(uint64_t a) { return a; }

DA_HD float da_f32_add(float a, float b) { return a + b; }
DA_HD float da_f32_sub(float a, float b) { return a - b; }
DA_HD float da_f32_mul(float a, float b) { return a * b; }
DA_HD float da_f32_div(float a, float b) { return a / b; }
DA_HD float da_f32_neg(float a) { return -a; }
DA_HD float da_f32_abs(float a) { return fabsf(a); }
DA_HD float da_f32_copy(float a) { return a; }

DA_HD double da_f64_add(double a, double b) { return a + b; }
DA_HD double da_f64_sub(double a, double b) { return a - b; }
DA_HD double da_f64_mul(double a, double b) { return a * b; }
DA_HD double da_f64_div(double a, double b) { return a / b; }
DA_HD double da_f64_neg(double a) { return -a; }
DA_HD double da_f64_abs(double a) { return fabs(a); }
DA_HD double da_f64_copy(double a) { return a; }

/* Complex: the textbook product, and Smith's division with NumPy's handling
   of a zero divisor (component-wise division, giving inf/nan like NumPy).
   abs returns the real magnitude (class f32 / f64). */
#define DA_DEFINE_COMPLEX(cls, CT, RT, FABS, HYPOT)                           \
    DA_HD CT da_##cls##_add(CT a, CT b)                                       \
    {                                                                         \
        CT r;                                                                 \
        r.re = a.re + b.re;                                                   \
        r.im = a.im + b.im;                                                   \
        return r;                                                             \
    }                                                                         \
    DA_HD CT da_##cls##_sub(CT a, CT b)                                       \
    {                                                                         \
        CT r;                                                                 \
        r.re = a.re - b.re;                                                   \
        r.im = a.im - b.im;                                                   \
        return r;                                                             \
    }                                                                         \
    DA_HD CT da_##cls##_mul(CT a, CT b)                                       \
    {                                                                         \
        CT r;                                                                 \
        r.re = a.re * b.re - a.im * b.im;                                     \
        r.im = a.re * b.im + a.im * b.re;                                     \
        return r;                                                             \
    }                                                                         \
    DA_HD CT da_##cls##_div(CT a, CT b)                                       \
    {                                                                         \
        CT r;                                                                 \
        RT abs_re = FABS(b.re), abs_im = FABS(b.im);                          \
        if (abs_re >= abs_im) {                                               \
            if (abs_re == 0 && abs_im == 0) {                                 \
                r.re = a.re / abs_re;                                         \
                r.im = a.im / abs_re;                                         \
            }                                                                 \
            else {                                                            \
                RT ratio = b.im / b.re;                                       \
                RT scale = (RT)1 / (b.re + b.im * ratio);                     \
                r.re = (a.re + a.im * ratio) * scale;                         \
                r.im = (a.im - a.re * ratio) * scale;                         \
            }                                                                 \
        }                                                                     \
        else {                                                                \
            RT ratio = b.re / b.im;                                           \
            RT scale = (RT)1 / (b.im + b.re * ratio);                         \
            r.re = (a.re * ratio + a.im) * scale;                             \
            r.im = (a.im * ratio - a.re) * scale;                             \
        }                                                                     \
        return r;                                                             \
    }                                                                         \
    DA_HD CT da_##cls##_neg(CT a)                                             \
    {                                                                         \
        CT r;                                                                 \
        r.re = -a.re;                                                         \
        r.im = -a.im;                                                         \
        return r;                                                             \
    }                                                                         \
    DA_HD RT da_##cls##_abs(CT a) { return HYPOT(a.re, a.im); }               \
    DA_HD CT da_##cls##_copy(CT a) { return a; }

DA_DEFINE_COMPLEX(c64, da_c64, float, fabsf, hypotf)
DA_DEFINE_COMPLEX(c128, da_c128, double, fabs, hypot)
#undef DA_DEFINE_COMPLEX

#ifdef __cplusplus
}
#endif

#endif /* DEVARRAY_KERNELS_OPS_H_ */
