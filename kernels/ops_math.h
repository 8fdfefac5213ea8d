/*
 * Element functions of float32 and float64 class values (see dtypes.h) for
 * the rows of optable.h that are more than one call of the C math library
 * (those rows call da_math1/da_math2 directly).  float16 computes in the
 * float32 class and is rounded once when stored, as NumPy's half loops
 * compute in float; the one function that must know it is float16 is
 * nextafter, whose float16 step is da_f32_nextafter_half.  Shared by the
 * CUDA kernels and the host backend; C11 and CUDA C++; static inline,
 * cannot fail.
 */
#ifndef DEVARRAY_KERNELS_OPS_MATH_H_
#define DEVARRAY_KERNELS_OPS_MATH_H_

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Per float class T (f32: float, f64: double):
 *   max, min     NaN-propagating (NumPy's maximum/minimum);
 *   sign         -1, 0 or 1, NaN for NaN (the standard);
 *   divmod       NumPy's npy_divmod: the floor of a / b computed from
 *                fmod, so that q * b + r == a holds as closely as the
 *                rounding allows, r taking b's sign; a zero divisor gives
 *                a / b and fmod's NaN (the standard's special cases);
 *   logaddexp    log(exp(a) + exp(b)) without overflow (NumPy's form:
 *                equal arguments, infinities included, give a + log 2).
 */
#define DA_DEFINE_FLOAT_MATH(cls, T, SFX)                                     \
    DA_HD T da_##cls##_max(T a, T b) { return (a >= b || a != a) ? a : b; }   \
    DA_HD T da_##cls##_min(T a, T b) { return (a <= b || a != a) ? a : b; }   \
    DA_HD T da_##cls##_sign(T a)                                              \
    {                                                                         \
        return a > 0 ? (T)1 : (a < 0 ? (T)-1 : (a == 0 ? (T)0 : a));          \
    }                                                                         \
    DA_HD T da_##cls##_divmod(T a, T b, T *remainder)                         \
    {                                                                         \
        T mod = fmod##SFX(a, b), div, floordiv;                               \
        if (b == 0) {                                                         \
            *remainder = mod;                                                 \
            return a / b;                                                     \
        }                                                                     \
        div = (a - mod) / b;                                                  \
        if (mod != 0) {                                                       \
            if ((b < 0) != (mod < 0)) {                                       \
                mod += b;                                                     \
                div -= (T)1;                                                  \
            }                                                                 \
        }                                                                     \
        else {                                                                \
            mod = copysign##SFX((T)0, b);                                     \
        }                                                                     \
        if (div != 0) {                                                       \
            floordiv = floor##SFX(div);                                       \
            if (div - floordiv > (T)0.5) {                                    \
                floordiv += (T)1;                                             \
            }                                                                 \
        }                                                                     \
        else {                                                                \
            floordiv = copysign##SFX((T)0, a / b);                            \
        }                                                                     \
        *remainder = mod;                                                     \
        return floordiv;                                                      \
    }                                                                         \
    DA_HD T da_##cls##_floor_divide(T a, T b)                                 \
    {                                                                         \
        T mod;                                                                \
        return da_##cls##_divmod(a, b, &mod);                                 \
    }                                                                         \
    DA_HD T da_##cls##_remainder(T a, T b)                                    \
    {                                                                         \
        T mod;                                                                \
        if (b == 0) {                                                         \
            return fmod##SFX(a, b);                                           \
        }                                                                     \
        (void)da_##cls##_divmod(a, b, &mod);                                  \
        return mod;                                                           \
    }                                                                         \
    DA_HD T da_##cls##_logaddexp(T a, T b)                                    \
    {                                                                         \
        T d;                                                                  \
        if (a == b) {                                                         \
            return a + (T)0.693147180559945309417232121458176568;             \
        }                                                                     \
        d = a - b;                                                            \
        if (d > 0) {                                                          \
            return a + log1p##SFX(exp##SFX(-d));                              \
        }                                                                     \
        if (d <= 0) {                                                         \
            return b + log1p##SFX(exp##SFX(d));                               \
        }                                                                     \
        return d; /* NaN */                                                   \
    }

DA_DEFINE_FLOAT_MATH(f32, float, f)
DA_DEFINE_FLOAT_MATH(f64, double, )
#undef DA_DEFINE_FLOAT_MATH

/* The sign bit, read from the bits (gcc 12 fails to compile a vectorised
   loop of signbit()). */
DA_HD uint8_t
da_f32_signbit(float a)
{
    uint32_t bits;
    memcpy(&bits, &a, sizeof(bits));
    return (uint8_t)(bits >> 31);
}

DA_HD uint8_t
da_f64_signbit(double a)
{
    uint64_t bits;
    memcpy(&bits, &a, sizeof(bits));
    return (uint8_t)(bits >> 63);
}

/* nextafter on the float16 grid for float16 values held as float32: a step
   of one unit of the half's bit pattern, as NumPy's npy_half_nextafter. */
DA_HD float
da_f32_nextafter_half(float a, float b)
{
    uint16_t h = da_float_to_half(a), t = da_float_to_half(b);
    if (a != a || b != b) {
        return a + b;
    }
    if (a == b) {
        return b;
    }
    if (a == 0) {
        h = (uint16_t)((t & 0x8000u) | 1u); /* the smallest subnormal toward b */
    }
    else if ((a < b) == !(h & 0x8000u)) {
        h = (uint16_t)(h + 1u); /* away from zero */
    }
    else {
        h = (uint16_t)(h - 1u);
    }
    return da_half_to_float(h);
}

#ifdef __cplusplus
}
#endif

#endif /* DEVARRAY_KERNELS_OPS_MATH_H_ */
