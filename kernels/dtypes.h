/*
 * devarray's element types, shared by the CUDA kernels (kernels/<name>.cu),
 * the host backend (src/host/host_kernels.c) and the C core, so that none of them
 * can drift apart: dtypes, compute classes, and the casts between them.
 *
 * This header is both C11 and CUDA C++.  Everything in it is a static inline
 * function on plain values; it allocates nothing and cannot fail.
 *
 * Model:
 *   - every dtype has a *storage* type (what sits in memory) and belongs to
 *     one *compute class* (what arithmetic is done in): bool, signed int,
 *     unsigned int, float32, float64, complex64, complex128.  Integers of
 *     every width compute in 64 bits and are truncated when stored, which
 *     gives NumPy's wraparound for + - * exactly; float16 computes in float32
 *     and is rounded once when stored, as NumPy's half loops do.
 *   - da_load_<class>(ptr, dtype) reads one element of any dtype and converts
 *     it to a class value with NumPy's casting rules; da_store_<class>(ptr,
 *     dtype, value) converts a class value to any dtype and writes it.
 * The arithmetic on class values is in ops.h; the table of ops in optable.h.
 */
#ifndef DEVARRAY_KERNELS_DTYPES_H_
#define DEVARRAY_KERNELS_DTYPES_H_

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#include <cuda_fp16.h>
#define DA_HD static __host__ __device__ __forceinline__
#else
#include <math.h>
#define DA_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- dtypes ---------------------------------------------------------- */

/* The promotion table in src/base/dtype.c is indexed by this order. */
typedef enum {
    DA_BOOL = 0,
    DA_INT8,
    DA_UINT8,
    DA_INT16,
    DA_UINT16,
    DA_INT32,
    DA_UINT32,
    DA_INT64,
    DA_UINT64,
    DA_FLOAT16,
    DA_FLOAT32,
    DA_FLOAT64,
    DA_COMPLEX64,
    DA_COMPLEX128,
    DA_NTYPES
} da_typenum;

/* Compute classes. */
typedef enum {
    DA_CLASS_BOOL = 0,
    DA_CLASS_SINT,
    DA_CLASS_UINT,
    DA_CLASS_F32,
    DA_CLASS_F64,
    DA_CLASS_C64,
    DA_CLASS_C128,
    DA_NCLASSES
} da_class;

typedef struct {
    float re, im;
} da_c64;

typedef struct {
    double re, im;
} da_c128;

/* A scalar operand, held as a value of its compute class. */
typedef union {
    uint8_t b;
    int64_t s;
    uint64_t u;
    float f32;
    double f64;
    da_c64 c64;
    da_c128 c128;
} da_scalar;

DA_HD da_class
da_class_of(int typenum)
{
    switch (typenum) {
        case DA_BOOL:
            return DA_CLASS_BOOL;
        case DA_INT8:
        case DA_INT16:
        case DA_INT32:
        case DA_INT64:
            return DA_CLASS_SINT;
        case DA_UINT8:
        case DA_UINT16:
        case DA_UINT32:
        case DA_UINT64:
            return DA_CLASS_UINT;
        case DA_FLOAT16:
        case DA_FLOAT32:
            return DA_CLASS_F32;
        case DA_FLOAT64:
            return DA_CLASS_F64;
        case DA_COMPLEX64:
            return DA_CLASS_C64;
        default:
            return DA_CLASS_C128;
    }
}

DA_HD int
da_itemsize(int typenum)
{
    switch (typenum) {
        case DA_BOOL:
        case DA_INT8:
        case DA_UINT8:
            return 1;
        case DA_INT16:
        case DA_UINT16:
        case DA_FLOAT16:
            return 2;
        case DA_INT32:
        case DA_UINT32:
        case DA_FLOAT32:
            return 4;
        case DA_INT64:
        case DA_UINT64:
        case DA_FLOAT64:
        case DA_COMPLEX64:
            return 8;
        default:
            return 16;
    }
}

/* ---- float16 <-> float32/float64, round to nearest even -------------- */

DA_HD float
da_half_to_float(uint16_t h)
{
#ifdef __CUDA_ARCH__
    return __half2float(__ushort_as_half(h));
#else
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    uint32_t bits;
    float f;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    }
    else if (exp != 0) {
        bits = sign | ((exp + 112u) << 23) | (man << 13);
    }
    else if (man == 0) {
        bits = sign;
    }
    else {
        /* subnormal half: normalise into a float */
        int e = -1;
        do {
            e++;
            man <<= 1;
        } while ((man & 0x400u) == 0);
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ffu) << 13);
    }
    memcpy(&f, &bits, sizeof f);
    return f;
#endif
}

/* Round the 64-bit magnitude `man`, scaled by 2^-shift, to nearest even. */
DA_HD uint64_t
da_round_shift(uint64_t man, int shift)
{
    uint64_t kept, rest, half;
    if (shift <= 0) {
        return man;
    }
    if (shift >= 64) {
        return 0;
    }
    kept = man >> shift;
    rest = man & ((UINT64_C(1) << shift) - 1);
    half = UINT64_C(1) << (shift - 1);
    if (rest > half || (rest == half && (kept & 1))) {
        kept++;
    }
    return kept;
}

/* Direct double -> half rounding (no double rounding through float), the
   same result as NumPy's npy_double_to_half. */
DA_HD uint16_t
da_double_to_half(double d)
{
#ifdef __CUDA_ARCH__
    return __half_as_ushort(__double2half(d));
#else
    uint64_t bits, man;
    uint16_t sign;
    int exp;
    memcpy(&bits, &d, sizeof bits);
    sign = (uint16_t)((bits >> 48) & 0x8000u);
    exp = (int)((bits >> 52) & 0x7ff);
    man = bits & UINT64_C(0xfffffffffffff);
    if (exp == 0x7ff) {
        if (man == 0) {
            return (uint16_t)(sign | 0x7c00u);
        }
        return (uint16_t)(sign | 0x7e00u | (uint16_t)(man >> 42));
    }
    if (exp == 0) {
        return sign; /* double subnormals are far below half's range */
    }
    man |= UINT64_C(1) << 52;
    /* value = man * 2^(exp - 1075); a half unit in the last place of the
       subnormal range is 2^-24, of a normal with exponent E, 2^(E-10). */
    {
        int e = exp - 1023; /* unbiased */
        uint64_t r;
        if (e < -14) {
            /* subnormal half: count units of 2^-24 */
            r = da_round_shift(man, 1051 - exp);
            /* a carry into 0x400 is the smallest normal: still correct */
            return (uint16_t)(sign | (uint16_t)r);
        }
        r = da_round_shift(man, 42); /* 11 significant bits */
        if (r == (UINT64_C(1) << 11)) {
            r >>= 1;
            e++;
        }
        if (e > 15) {
            return (uint16_t)(sign | 0x7c00u);
        }
        return (uint16_t)(sign | (uint16_t)((e + 15) << 10) | (uint16_t)(r & 0x3ffu));
    }
#endif
}

DA_HD uint16_t
da_float_to_half(float f)
{
#ifdef __CUDA_ARCH__
    return __half_as_ushort(__float2half_rn(f));
#else
    /* float -> double is exact, so rounding once from double is correct */
    return da_double_to_half((double)f);
#endif
}

/* ---- conversions between compute classes ------------------------------ */

/* Each class value converts to each other class with NumPy's casting rules:
   complex -> real takes the real part, anything -> bool tests != 0. */

#define DA_CPLX64(re, im) da_make_c64((float)(re), (float)(im))
#define DA_CPLX128(re, im) da_make_c128((double)(re), (double)(im))

DA_HD da_c64
da_make_c64(float re, float im)
{
    da_c64 z;
    z.re = re;
    z.im = im;
    return z;
}

DA_HD da_c128
da_make_c128(double re, double im)
{
    da_c128 z;
    z.re = re;
    z.im = im;
    return z;
}

/* Float -> integer casts outside the target's range are undefined in C;
   NumPy leaves them platform-defined too.  We saturate NaN to 0 and clamp,
   which is what the GPU's cvt instructions do, so both backends agree. */
DA_HD int64_t
da_f64_to_s64(double v)
{
    if (!(v == v)) {
        return 0;
    }
    if (v >= 9223372036854775807.0) {
        return INT64_MAX;
    }
    if (v <= -9223372036854775808.0) {
        return INT64_MIN;
    }
    return (int64_t)v;
}

DA_HD uint64_t
da_f64_to_u64(double v)
{
    if (!(v == v) || v <= -1.0) {
        /* negative floats: NumPy wraps through int64 on most platforms */
        return (uint64_t)da_f64_to_s64(v);
    }
    if (v >= 18446744073709551615.0) {
        return UINT64_MAX;
    }
    return (uint64_t)v;
}

/* from bool */
DA_HD int64_t da_bool_to_sint(uint8_t v) { return v ? 1 : 0; }
DA_HD uint64_t da_bool_to_uint(uint8_t v) { return v ? 1u : 0u; }
DA_HD float da_bool_to_f32(uint8_t v) { return v ? 1.0f : 0.0f; }
DA_HD double da_bool_to_f64(uint8_t v) { return v ? 1.0 : 0.0; }
DA_HD da_c64 da_bool_to_c64(uint8_t v) { return DA_CPLX64(v ? 1 : 0, 0); }
DA_HD da_c128 da_bool_to_c128(uint8_t v) { return DA_CPLX128(v ? 1 : 0, 0); }
DA_HD uint8_t da_bool_to_bool(uint8_t v) { return v != 0; }

/* from signed int */
DA_HD uint8_t da_sint_to_bool(int64_t v) { return v != 0; }
DA_HD int64_t da_sint_to_sint(int64_t v) { return v; }
DA_HD uint64_t da_sint_to_uint(int64_t v) { return (uint64_t)v; }
DA_HD float da_sint_to_f32(int64_t v) { return (float)v; }
DA_HD double da_sint_to_f64(int64_t v) { return (double)v; }
DA_HD da_c64 da_sint_to_c64(int64_t v) { return DA_CPLX64(v, 0); }
DA_HD da_c128 da_sint_to_c128(int64_t v) { return DA_CPLX128(v, 0); }

/* from unsigned int */
DA_HD uint8_t da_uint_to_bool(uint64_t v) { return v != 0; }
DA_HD int64_t da_uint_to_sint(uint64_t v) { return (int64_t)v; }
DA_HD uint64_t da_uint_to_uint(uint64_t v) { return v; }
DA_HD float da_uint_to_f32(uint64_t v) { return (float)v; }
DA_HD double da_uint_to_f64(uint64_t v) { return (double)v; }
DA_HD da_c64 da_uint_to_c64(uint64_t v) { return DA_CPLX64(v, 0); }
DA_HD da_c128 da_uint_to_c128(uint64_t v) { return DA_CPLX128(v, 0); }

/* from float32 */
DA_HD uint8_t da_f32_to_bool(float v) { return v != 0.0f; }
DA_HD int64_t da_f32_to_sint(float v) { return da_f64_to_s64((double)v); }
DA_HD uint64_t da_f32_to_uint(float v) { return da_f64_to_u64((double)v); }
DA_HD float da_f32_to_f32(float v) { return v; }
DA_HD double da_f32_to_f64(float v) { return (double)v; }
DA_HD da_c64 da_f32_to_c64(float v) { return DA_CPLX64(v, 0); }
DA_HD da_c128 da_f32_to_c128(float v) { return DA_CPLX128(v, 0); }

/* from float64 */
DA_HD uint8_t da_f64_to_bool(double v) { return v != 0.0; }
DA_HD int64_t da_f64_to_sint(double v) { return da_f64_to_s64(v); }
DA_HD uint64_t da_f64_to_uint(double v) { return da_f64_to_u64(v); }
DA_HD float da_f64_to_f32(double v) { return (float)v; }
DA_HD double da_f64_to_f64(double v) { return v; }
DA_HD da_c64 da_f64_to_c64(double v) { return DA_CPLX64(v, 0); }
DA_HD da_c128 da_f64_to_c128(double v) { return DA_CPLX128(v, 0); }

/* from complex64 */
DA_HD uint8_t da_c64_to_bool(da_c64 v) { return v.re != 0.0f || v.im != 0.0f; }
DA_HD int64_t da_c64_to_sint(da_c64 v) { return da_f64_to_s64((double)v.re); }
DA_HD uint64_t da_c64_to_uint(da_c64 v) { return da_f64_to_u64((double)v.re); }
DA_HD float da_c64_to_f32(da_c64 v) { return v.re; }
DA_HD double da_c64_to_f64(da_c64 v) { return (double)v.re; }
DA_HD da_c64 da_c64_to_c64(da_c64 v) { return v; }
DA_HD da_c128 da_c64_to_c128(da_c64 v) { return DA_CPLX128(v.re, v.im); }

/* from complex128 */
DA_HD uint8_t da_c128_to_bool(da_c128 v) { return v.re != 0.0 || v.im != 0.0; }
DA_HD int64_t da_c128_to_sint(da_c128 v) { return da_f64_to_s64(v.re); }
DA_HD uint64_t da_c128_to_uint(da_c128 v) { return da_f64_to_u64(v.re); }
DA_HD float da_c128_to_f32(da_c128 v) { return (float)v.re; }
DA_HD double da_c128_to_f64(da_c128 v) { return v.re; }
DA_HD da_c64 da_c128_to_c64(da_c128 v) { return DA_CPLX64(v.re, v.im); }
DA_HD da_c128 da_c128_to_c128(da_c128 v) { return v; }

/* ---- load and store any dtype as a class value ------------------------ */

/* On the host, memory is read with memcpy so unaligned buffers (ctypes,
   packed structures) are safe; compilers turn it into one load.  Device
   arrays are always aligned to their itemsize (devarray refuses others), and
   a typed load lets nvcc emit one wide instruction instead of byte loads. */
#define DA_RD(T, p) da_rd_##T(p)
#ifdef __CUDA_ARCH__
#define DA_DEFINE_RD(T)                                                  \
    DA_HD T da_rd_##T(const void *p) { return *(const T *)p; }
#else
#define DA_DEFINE_RD(T)                                                  \
    DA_HD T da_rd_##T(const void *p)                                     \
    {                                                                    \
        T v;                                                             \
        memcpy(&v, p, sizeof v);                                         \
        return v;                                                        \
    }
#endif
DA_DEFINE_RD(uint8_t)
DA_DEFINE_RD(int8_t)
DA_DEFINE_RD(int16_t)
DA_DEFINE_RD(uint16_t)
DA_DEFINE_RD(int32_t)
DA_DEFINE_RD(uint32_t)
DA_DEFINE_RD(int64_t)
DA_DEFINE_RD(uint64_t)
DA_DEFINE_RD(float)
DA_DEFINE_RD(double)
DA_DEFINE_RD(da_c64)
DA_DEFINE_RD(da_c128)
#undef DA_DEFINE_RD

#ifdef __CUDA_ARCH__
#define DA_WR(T, p, v) (*(T *)(p) = (v))
#else
#define DA_WR(T, p, v)                                 \
    do {                                               \
        T da_wr_tmp_ = (v);                            \
        memcpy((p), &da_wr_tmp_, sizeof da_wr_tmp_);   \
    } while (0)
#endif

/* da_load_<cls>(p, typenum): one element of dtype `typenum` at p, cast to
   the class <cls> (C type CT). */
#define DA_DEFINE_LOAD(cls, CT)                                               \
    DA_HD CT da_load_##cls(const void *p, int typenum)                        \
    {                                                                         \
        switch (typenum) {                                                    \
            case DA_BOOL:                                                     \
                return da_bool_to_##cls(DA_RD(uint8_t, p));                   \
            case DA_INT8:                                                     \
                return da_sint_to_##cls(DA_RD(int8_t, p));                    \
            case DA_UINT8:                                                    \
                return da_uint_to_##cls(DA_RD(uint8_t, p));                   \
            case DA_INT16:                                                    \
                return da_sint_to_##cls(DA_RD(int16_t, p));                   \
            case DA_UINT16:                                                   \
                return da_uint_to_##cls(DA_RD(uint16_t, p));                  \
            case DA_INT32:                                                    \
                return da_sint_to_##cls(DA_RD(int32_t, p));                   \
            case DA_UINT32:                                                   \
                return da_uint_to_##cls(DA_RD(uint32_t, p));                  \
            case DA_INT64:                                                    \
                return da_sint_to_##cls(DA_RD(int64_t, p));                   \
            case DA_UINT64:                                                   \
                return da_uint_to_##cls(DA_RD(uint64_t, p));                  \
            case DA_FLOAT16:                                                  \
                return da_f32_to_##cls(da_half_to_float(DA_RD(uint16_t, p))); \
            case DA_FLOAT32:                                                  \
                return da_f32_to_##cls(DA_RD(float, p));                      \
            case DA_FLOAT64:                                                  \
                return da_f64_to_##cls(DA_RD(double, p));                     \
            case DA_COMPLEX64:                                                \
                return da_c64_to_##cls(DA_RD(da_c64, p));                     \
            default:                                                          \
                return da_c128_to_##cls(DA_RD(da_c128, p));                   \
        }                                                                     \
    }

DA_DEFINE_LOAD(bool, uint8_t)
DA_DEFINE_LOAD(sint, int64_t)
DA_DEFINE_LOAD(uint, uint64_t)
DA_DEFINE_LOAD(f32, float)
DA_DEFINE_LOAD(f64, double)
DA_DEFINE_LOAD(c64, da_c64)
DA_DEFINE_LOAD(c128, da_c128)
#undef DA_DEFINE_LOAD

/* da_store_<cls>(p, typenum, v): cast the class value v to dtype `typenum`
   and write it at p.  Integers truncate (NumPy's wraparound); float16 is
   rounded once, directly from the class value. */
#define DA_DEFINE_STORE(cls, CT, TO_HALF)                                     \
    DA_HD void da_store_##cls(void *p, int typenum, CT v)                     \
    {                                                                         \
        switch (typenum) {                                                    \
            case DA_BOOL:                                                     \
                DA_WR(uint8_t, p, da_##cls##_to_bool(v));                     \
                break;                                                        \
            case DA_INT8:                                                     \
                DA_WR(int8_t, p, (int8_t)da_##cls##_to_uint(v));              \
                break;                                                        \
            case DA_UINT8:                                                    \
                DA_WR(uint8_t, p, (uint8_t)da_##cls##_to_uint(v));            \
                break;                                                        \
            case DA_INT16:                                                    \
                DA_WR(int16_t, p, (int16_t)da_##cls##_to_uint(v));            \
                break;                                                        \
            case DA_UINT16:                                                   \
                DA_WR(uint16_t, p, (uint16_t)da_##cls##_to_uint(v));          \
                break;                                                        \
            case DA_INT32:                                                    \
                DA_WR(int32_t, p, (int32_t)da_##cls##_to_uint(v));            \
                break;                                                        \
            case DA_UINT32:                                                   \
                DA_WR(uint32_t, p, (uint32_t)da_##cls##_to_uint(v));          \
                break;                                                        \
            case DA_INT64:                                                    \
                DA_WR(int64_t, p, da_##cls##_to_sint(v));                     \
                break;                                                        \
            case DA_UINT64:                                                   \
                DA_WR(uint64_t, p, da_##cls##_to_uint(v));                    \
                break;                                                        \
            case DA_FLOAT16:                                                  \
                DA_WR(uint16_t, p, TO_HALF(v));                               \
                break;                                                        \
            case DA_FLOAT32:                                                  \
                DA_WR(float, p, da_##cls##_to_f32(v));                        \
                break;                                                        \
            case DA_FLOAT64:                                                  \
                DA_WR(double, p, da_##cls##_to_f64(v));                       \
                break;                                                        \
            case DA_COMPLEX64:                                                \
                DA_WR(da_c64, p, da_##cls##_to_c64(v));                       \
                break;                                                        \
            default:                                                          \
                DA_WR(da_c128, p, da_##cls##_to_c128(v));                     \
                break;                                                        \
        }                                                                     \
    }

/* Which rounding path float16 takes from each class: from float32 once,
   from everything wider straight from float64. */
#define DA_HALF_FROM_BOOL(v) da_float_to_half(da_bool_to_f32(v))
#define DA_HALF_FROM_SINT(v) da_double_to_half(da_sint_to_f64(v))
#define DA_HALF_FROM_UINT(v) da_double_to_half(da_uint_to_f64(v))
#define DA_HALF_FROM_F32(v) da_float_to_half(v)
#define DA_HALF_FROM_F64(v) da_double_to_half(v)
#define DA_HALF_FROM_C64(v) da_float_to_half((v).re)
#define DA_HALF_FROM_C128(v) da_double_to_half((v).re)

/* Signed targets narrower than 64 bits go through the unsigned conversion
   and truncate, so int64 -> int8 wraps like NumPy; a float converts through
   the 64-bit signed path first for negative values (see da_f64_to_u64). */
DA_DEFINE_STORE(bool, uint8_t, DA_HALF_FROM_BOOL)
DA_DEFINE_STORE(sint, int64_t, DA_HALF_FROM_SINT)
DA_DEFINE_STORE(uint, uint64_t, DA_HALF_FROM_UINT)
DA_DEFINE_STORE(f32, float, DA_HALF_FROM_F32)
DA_DEFINE_STORE(f64, double, DA_HALF_FROM_F64)
DA_DEFINE_STORE(c64, da_c64, DA_HALF_FROM_C64)
DA_DEFINE_STORE(c128, da_c128, DA_HALF_FROM_C128)
#undef DA_DEFINE_STORE

#ifdef __cplusplus
}
#endif

#endif /* DEVARRAY_KERNELS_DTYPES_H_ */
