/*
 * Element functions of the complex classes (c64, c128; dtypes.h) beyond
 * ops.h's arithmetic: the functions of the array API 2024.12 defined for
 * complex input, and NumPy 2's lexicographic comparisons.  The building
 * blocks of optable.h's complex loop rows; static inline, cannot fail.
 *
 * The transcendental functions come from a library: C99's <complex.h> on
 * the host (glibc follows the special values of C99 Annex G, which the
 * array API adopts), thrust::complex of the toolkit's CCCL on the GPU: its
 * functions are FreeBSD msun's (Annex G, and accurate: catrig's inverse
 * functions, Montgomery-Smith's clog), where cuda::std::complex has
 * libc++'s textbook formulas (asinh(z) = log(z + sqrt(z*z + 1)) loses all
 * digits for small |z| and overflows for large).  da_<cls>_cx and
 * da_<cls>_of convert between our structs and the library's type;
 * DA_CX_CALL names the library function.  The two libraries agree within
 * 3 ulp (tests/test_ufunc_complex.py says how it was measured), and on the
 * special values the spec fixes: where thrust differs (log, tanh, tan,
 * acosh), the functions below fix them on both backends.
 * Written here instead, so that both backends give the same values:
 *   - log1p and expm1, which neither library has, accurate for small |z|
 *     (NumPy's log1p is not: log(hypot(1 + x, y)) loses 1 + x);
 *   - log2, log10: the natural log scaled part by part, as NumPy does;
 *   - pow: NumPy's algorithm (z**0 = 1, 0**w, integral exponents below 100
 *     by repeated multiplication), else exp(w log z) as glibc's cpow;
 *   - reciprocal: NumPy's formula (1/0 is nan + nanj, as NumPy);
 *   - sign: z/|z| scaled against overflow; nan in either part gives
 *     nan + nanj (the spec; NumPy gives 1 + 0j for inf + nanj);
 *   - round: each part to nearest, ties to even (rint).
 * Real-valued helpers use the suffixed C names (expf, hypotf, ...), which
 * CUDA's device math library provides too.
 */
#ifndef DEVARRAY_KERNELS_OPS_COMPLEX_H_
#define DEVARRAY_KERNELS_OPS_COMPLEX_H_

#include "ops.h"

/* The transcendental functions are large (thrust's catrig is hundreds of
   lines): on the GPU each is compiled once, as a called function, rather
   than inlined into every kernel that uses it (the contiguous and strided
   kernels, each with 32- and 64-bit indices and unrolled loops), which
   keeps the fatbinary small for a call's cost. */
#ifdef __CUDACC__
#define DA_HD_CALLED static __host__ __device__ __noinline__
#else
#define DA_HD_CALLED static inline
#endif

#ifdef __CUDACC__
#include <thrust/complex.h>
typedef thrust::complex<float> da_c64_cx_t;
typedef thrust::complex<double> da_c128_cx_t;
#define DA_CX_CALL(fn, SUF, z) thrust::fn(z)
#define DA_DEFINE_COMPLEX_CONVERT_(cls, CT, CXT)                              \
    DA_HD CXT da_##cls##_cx(CT a) { return CXT(a.re, a.im); }                 \
    DA_HD CT da_##cls##_of(CXT z)                                             \
    {                                                                         \
        CT r;                                                                 \
        r.re = z.real();                                                      \
        r.im = z.imag();                                                      \
        return r;                                                             \
    }
#else
#include <complex.h>
typedef float _Complex da_c64_cx_t;
typedef double _Complex da_c128_cx_t;
#define DA_CX_CALL(fn, SUF, z) c##fn##SUF(z)
/* C11 lays a complex out as an array of its two parts (6.2.5), as our
   structs are; memcpy rather than CMPLX, which glibc defines for GCC only. */
#define DA_DEFINE_COMPLEX_CONVERT_(cls, CT, CXT)                              \
    DA_HD CXT da_##cls##_cx(CT a)                                             \
    {                                                                         \
        CXT z;                                                                \
        memcpy(&z, &a, sizeof z);                                             \
        return z;                                                             \
    }                                                                         \
    DA_HD CT da_##cls##_of(CXT z)                                             \
    {                                                                         \
        CT r;                                                                 \
        memcpy(&r, &z, sizeof r);                                             \
        return r;                                                             \
    }
#endif

/* The functions of one class: cls (c64, c128), CT its struct, RT its real
   type, CXT the library's complex type, SUF the suffix of the C library's
   float functions (f or nothing). */
#define DA_DEFINE_COMPLEX_MATH(cls, CT, RT, CXT, SUF)                         \
    DA_DEFINE_COMPLEX_CONVERT_(cls, CT, CXT)                                  \
    DA_HD CT da_##cls##_pack(RT re, RT im)                                    \
    {                                                                         \
        CT r;                                                                 \
        r.re = re;                                                            \
        r.im = im;                                                            \
        return r;                                                             \
    }                                                                         \
    DA_DEFINE_COMPLEX_LIB_(cls, CT, SUF, exp, exp)                            \
    DA_DEFINE_COMPLEX_LIB_(cls, CT, SUF, log, lib_log)                        \
    DA_DEFINE_COMPLEX_LIB_(cls, CT, SUF, sqrt, sqrt)                          \
    DA_DEFINE_COMPLEX_LIB_(cls, CT, SUF, sin, sin)                            \
    DA_DEFINE_COMPLEX_LIB_(cls, CT, SUF, cos, cos)                            \
    DA_DEFINE_COMPLEX_LIB_(cls, CT, SUF, sinh, sinh)                          \
    DA_DEFINE_COMPLEX_LIB_(cls, CT, SUF, cosh, cosh)                          \
    DA_DEFINE_COMPLEX_LIB_(cls, CT, SUF, tanh, lib_tanh)                      \
    DA_DEFINE_COMPLEX_LIB_(cls, CT, SUF, asin, asin)                          \
    DA_DEFINE_COMPLEX_LIB_(cls, CT, SUF, acos, acos)                          \
    DA_DEFINE_COMPLEX_LIB_(cls, CT, SUF, atan, atan)                          \
    DA_DEFINE_COMPLEX_LIB_(cls, CT, SUF, asinh, asinh)                        \
    DA_DEFINE_COMPLEX_LIB_(cls, CT, SUF, acosh, lib_acosh)                    \
    DA_DEFINE_COMPLEX_LIB_(cls, CT, SUF, atanh, atanh)                        \
    /* The spec's special values where thrust's differ from glibc's: log      \
       of an infinity with a nan is +inf + nan j; tanh(+-0 + i inf or nan)    \
       is +-0 + nan j (tan(z) = -i tanh(iz), so tan(inf or nan +- 0j) too);   \
       tanh(+-inf + y j) for finite y is +-1 + 0j with y's sign (the spec's   \
       +0 for every y > 0, where C99 takes the sign of sin(2y));              \
       acosh(+-0 + nan j) is nan + pi/2 j. */                                 \
    DA_HD_CALLED CT da_##cls##_log(CT a)                                      \
    {                                                                         \
        if ((isinf(a.re) && isnan(a.im)) || (isnan(a.re) && isinf(a.im))) {   \
            return da_##cls##_pack((RT)INFINITY, (RT)NAN);                    \
        }                                                                     \
        return da_##cls##_lib_log(a);                                         \
    }                                                                         \
    DA_HD_CALLED CT da_##cls##_tanh(CT a)                                     \
    {                                                                         \
        if (a.re == 0 && !isfinite(a.im)) {                                   \
            return da_##cls##_pack(a.re, (RT)NAN);                            \
        }                                                                     \
        if (isinf(a.re) && isfinite(a.im)) {                                  \
            return da_##cls##_pack(a.re > 0 ? (RT)1 : (RT)-1,                 \
                                   (RT)copysign(0.0, (double)a.im));          \
        }                                                                     \
        return da_##cls##_lib_tanh(a);                                        \
    }                                                                         \
    DA_HD_CALLED CT da_##cls##_tan(CT a)                                      \
    {                                                                         \
        CT t = da_##cls##_tanh(da_##cls##_pack(-a.im, a.re));                 \
        return da_##cls##_pack(t.im, -t.re);                                  \
    }                                                                         \
    DA_HD_CALLED CT da_##cls##_acosh(CT a)                                    \
    {                                                                         \
        if (a.re == 0 && isnan(a.im)) {                                       \
            return da_##cls##_pack((RT)NAN, (RT)1.5707963267948966192313216916); \
        }                                                                     \
        return da_##cls##_lib_acosh(a);                                       \
    }                                                                         \
    /* log scaled by a real factor part by part, not by a complex product     \
       (which would turn inf * 0 into nan). */                                \
    DA_HD_CALLED CT da_##cls##_log2(CT a)                                     \
    {                                                                         \
        CT r = da_##cls##_log(a);                                             \
        r.re *= (RT)1.442695040888963407359924681001892137;                   \
        r.im *= (RT)1.442695040888963407359924681001892137;                   \
        return r;                                                             \
    }                                                                         \
    DA_HD_CALLED CT da_##cls##_log10(CT a)                                    \
    {                                                                         \
        CT r = da_##cls##_log(a);                                             \
        r.re *= (RT)0.434294481903251827651128918916605082;                   \
        r.im *= (RT)0.434294481903251827651128918916605082;                   \
        return r;                                                             \
    }                                                                         \
    /* Near 0, Re log(1 + z) = log1p(x(2 + x) + y^2) / 2 keeps what 1 + x     \
       would round away; elsewhere, and for inf and nan (whose special        \
       values are log's at 1 + z), the library's log. */                      \
    DA_HD_CALLED CT da_##cls##_log1p(CT a)                                    \
    {                                                                         \
        if (fabs##SUF(a.re) < (RT)0.5 && fabs##SUF(a.im) < (RT)0.5) {         \
            RT t = a.re * ((RT)2 + a.re) + a.im * a.im;                       \
            return da_##cls##_pack((RT)0.5 * log1p##SUF(t),                   \
                                   atan2##SUF(a.im, (RT)1 + a.re));           \
        }                                                                     \
        return da_##cls##_log(da_##cls##_pack((RT)1 + a.re, a.im));           \
    }                                                                         \
    /* exp(z) - 1 = (expm1(x) cos y - 2 sin^2(y/2)) + i e^x sin y, which      \
       keeps small |z| accurate; for |x| >= 1 and non-finite parts, the       \
       library's exp (and its special values) less 1.  A real z is            \
       expm1(x) exactly, with +0 for either zero (the spec). */               \
    DA_HD_CALLED CT da_##cls##_expm1(CT a)                                    \
    {                                                                         \
        CT r;                                                                 \
        if (a.im == 0 && !isnan(a.re)) {                                      \
            return da_##cls##_pack(a.re == 0 ? (RT)0 : expm1##SUF(a.re), a.im); \
        }                                                                     \
        if (fabs##SUF(a.re) < (RT)1 && isfinite(a.im)) {                      \
            RT h = sin##SUF(a.im * (RT)0.5);                                  \
            return da_##cls##_pack(                                           \
                expm1##SUF(a.re) * cos##SUF(a.im) - (RT)2 * h * h,            \
                exp##SUF(a.re) * sin##SUF(a.im));                             \
        }                                                                     \
        r = da_##cls##_exp(a);                                                \
        r.re -= (RT)1;                                                        \
        return r;                                                             \
    }                                                                         \
    /* NumPy's nc_pow: integral real exponents below 100 in magnitude by      \
       binary powering (then 1/p for negative ones), 0**w is 0 for Re w > 0   \
       and nan otherwise (NumPy 2.4); else                                    \
       exp(w log z), which is what glibc's cpow computes, here with the       \
       fixed log above on both backends. */                                   \
    DA_HD_CALLED CT da_##cls##_pow(CT a, CT b)                                \
    {                                                                         \
        if (b.re == 0 && b.im == 0) {                                         \
            return da_##cls##_pack((RT)1, (RT)0);                             \
        }                                                                     \
        if (a.re == 0 && a.im == 0) {                                         \
            if (b.re > 0) {                                                   \
                return da_##cls##_pack((RT)0, (RT)0);                         \
            }                                                                 \
            return da_##cls##_pack((RT)NAN, (RT)NAN);                         \
        }                                                                     \
        if (b.im == 0 && b.re > (RT)-100 && b.re < (RT)100 &&                 \
            b.re == (RT)(int)b.re) {                                          \
            int n = (int)b.re, m = n < 0 ? -n : n;                            \
            CT p = a, acc = da_##cls##_pack((RT)1, (RT)0);                    \
            if (n == 1) {                                                     \
                return a;                                                     \
            }                                                                 \
            if (n == 2) {                                                     \
                return da_##cls##_mul(a, a);                                  \
            }                                                                 \
            if (n == 3) {                                                     \
                return da_##cls##_mul(a, da_##cls##_mul(a, a));               \
            }                                                                 \
            for (;;) {                                                        \
                if (m & 1) {                                                  \
                    acc = da_##cls##_mul(acc, p);                             \
                }                                                             \
                m >>= 1;                                                      \
                if (m == 0) {                                                 \
                    break;                                                    \
                }                                                             \
                p = da_##cls##_mul(p, p);                                     \
            }                                                                 \
            return n < 0 ? da_##cls##_div(da_##cls##_pack((RT)1, (RT)0), acc) \
                         : acc;                                               \
        }                                                                     \
        return da_##cls##_exp(da_##cls##_mul(b, da_##cls##_log(a)));          \
    }                                                                         \
    DA_HD CT da_##cls##_reciprocal(CT a)                                      \
    {                                                                         \
        if (fabs##SUF(a.im) <= fabs##SUF(a.re)) {                             \
            RT q = a.im / a.re, d = a.re + a.im * q;                          \
            return da_##cls##_pack((RT)1 / d, -q / d);                        \
        }                                                                     \
        else {                                                                \
            RT q = a.re / a.im, d = a.re * q + a.im;                          \
            return da_##cls##_pack(q / d, (RT)-1 / d);                        \
        }                                                                     \
    }                                                                         \
    DA_HD CT da_##cls##_square(CT a) { return da_##cls##_mul(a, a); }         \
    DA_HD CT da_##cls##_conj(CT a) { return da_##cls##_pack(a.re, -a.im); }   \
    DA_HD RT da_##cls##_real(CT a) { return a.re; }                           \
    DA_HD RT da_##cls##_imag(CT a) { return a.im; }                           \
    DA_HD CT da_##cls##_round(CT a)                                           \
    {                                                                         \
        return da_##cls##_pack(rint##SUF(a.re), rint##SUF(a.im));             \
    }                                                                         \
    /* z/|z| with both parts first divided by the larger magnitude, so        \
       that |z| neither overflows nor underflows; an infinite part gives      \
       its unit direction (NumPy), both infinite nan + nanj. */               \
    DA_HD CT da_##cls##_sign(CT a)                                            \
    {                                                                         \
        RT ar = fabs##SUF(a.re), ai = fabs##SUF(a.im), s, x, y, h;            \
        if (isnan(a.re) || isnan(a.im) || (isinf(a.re) && isinf(a.im))) {     \
            return da_##cls##_pack((RT)NAN, (RT)NAN);                         \
        }                                                                     \
        if (isinf(a.re) || isinf(a.im)) {                                     \
            return da_##cls##_pack(isinf(a.re) ? copysign##SUF((RT)1, a.re) : (RT)0, \
                                   isinf(a.im) ? copysign##SUF((RT)1, a.im) : (RT)0); \
        }                                                                     \
        if (ar == 0 && ai == 0) {                                             \
            return da_##cls##_pack((RT)0, (RT)0);                             \
        }                                                                     \
        s = ar > ai ? ar : ai;                                                \
        x = a.re / s;                                                         \
        y = a.im / s;                                                         \
        h = sqrt##SUF(x * x + y * y);                                         \
        return da_##cls##_pack(x / h, y / h);                                 \
    }                                                                         \
    DA_HD uint8_t da_##cls##_isnan(CT a) { return isnan(a.re) || isnan(a.im); } \
    DA_HD uint8_t da_##cls##_isinf(CT a) { return isinf(a.re) || isinf(a.im); } \
    DA_HD uint8_t da_##cls##_isfinite(CT a)                                   \
    {                                                                         \
        return isfinite(a.re) && isfinite(a.im);                              \
    }                                                                         \
    DA_HD uint8_t da_##cls##_equal(CT a, CT b)                                \
    {                                                                         \
        return a.re == b.re && a.im == b.im;                                  \
    }                                                                         \
    DA_HD uint8_t da_##cls##_not_equal(CT a, CT b) { return !da_##cls##_equal(a, b); } \
    /* NumPy's lexicographic order (CLT, CLE in npy_math): the real parts     \
       decide unless an imaginary part is nan; equal real parts, the          \
       imaginary ones.  Any nan compares false. */                            \
    DA_HD uint8_t da_##cls##_less(CT a, CT b)                                 \
    {                                                                         \
        return (a.re < b.re && !isnan(a.im) && !isnan(b.im)) ||               \
               (a.re == b.re && a.im < b.im);                                 \
    }                                                                         \
    DA_HD uint8_t da_##cls##_less_equal(CT a, CT b)                           \
    {                                                                         \
        return (a.re < b.re && !isnan(a.im) && !isnan(b.im)) ||               \
               (a.re == b.re && a.im <= b.im);                                \
    }                                                                         \
    /* NumPy's maximum and minimum: a nan in either operand propagates (the   \
       first operand's when both have one). */                                \
    DA_HD CT da_##cls##_maximum(CT a, CT b)                                   \
    {                                                                         \
        return isnan(a.re) || isnan(a.im) || da_##cls##_less_equal(b, a) ? a : b; \
    }                                                                         \
    DA_HD CT da_##cls##_minimum(CT a, CT b)                                   \
    {                                                                         \
        return isnan(a.re) || isnan(a.im) || da_##cls##_less_equal(a, b) ? a : b; \
    }

#define DA_DEFINE_COMPLEX_LIB_(cls, CT, SUF, fn, name)                        \
    DA_HD_CALLED CT da_##cls##_##name(CT a)                                   \
    {                                                                         \
        return da_##cls##_of(DA_CX_CALL(fn, SUF, da_##cls##_cx(a)));          \
    }

DA_DEFINE_COMPLEX_MATH(c64, da_c64, float, da_c64_cx_t, f)
DA_DEFINE_COMPLEX_MATH(c128, da_c128, double, da_c128_cx_t, )
#undef DA_DEFINE_COMPLEX_LIB_
#undef DA_DEFINE_COMPLEX_CONVERT_
#undef DA_DEFINE_COMPLEX_MATH

#endif /* DEVARRAY_KERNELS_OPS_COMPLEX_H_ */
