/*
 * Element functions of bool and integer class values (see dtypes.h) for
 * the comparison, bitwise, shift, division and power rows of optable.h.
 * Shared by the CUDA kernels and the host backend; C11 and CUDA C++;
 * static inline, cannot fail.
 *
 * Integers of every width compute in 64 bits and are truncated by the
 * store (dtypes.h), so every function here is written so that its low bits
 * are the narrow dtype's result: modular arithmetic in uint64, shifts that
 * are 0 (or -1) from the 64-bit width on, as NumPy's are from the dtype's
 * width on.  Nothing here may trap: a division by zero gives 0 and
 * INT64_MIN / -1 wraps, as NumPy's loops give (they also set a floating
 * point flag, which the GPU cannot report without a sync).
 */
#ifndef DEVARRAY_KERNELS_OPS_INT_H_
#define DEVARRAY_KERNELS_OPS_INT_H_

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- bool ---------------------------------------------------------------- */

DA_HD uint8_t da_bool_and(uint8_t a, uint8_t b) { return (uint8_t)(a & b); }
DA_HD uint8_t da_bool_or(uint8_t a, uint8_t b) { return (uint8_t)(a | b); }
DA_HD uint8_t da_bool_xor(uint8_t a, uint8_t b) { return (uint8_t)(a ^ b); }
DA_HD uint8_t da_bool_not(uint8_t a) { return (uint8_t)(a == 0); }
DA_HD uint8_t da_bool_of(int condition) { return (uint8_t)(condition != 0); }

/* ---- signed ------------------------------------------------------------- */

DA_HD int64_t da_sint_and(int64_t a, int64_t b) { return a & b; }
DA_HD int64_t da_sint_or(int64_t a, int64_t b) { return a | b; }
DA_HD int64_t da_sint_xor(int64_t a, int64_t b) { return a ^ b; }
DA_HD int64_t da_sint_invert(int64_t a) { return ~a; }

/* NumPy's shifts: a count at or past the width, or negative (NumPy compares
   it as unsigned), shifts everything out: 0, or -1 for a negative a
   shifted right.  The right shift of a negative value is spelt with ~ so
   that it does not rely on C's implementation-defined >> of negatives. */
DA_HD int64_t
da_sint_left_shift(int64_t a, int64_t b)
{
    return (uint64_t)b < 64 ? (int64_t)((uint64_t)a << b) : 0;
}

DA_HD int64_t
da_sint_right_shift(int64_t a, int64_t b)
{
    const int64_t count = (uint64_t)b < 64 ? b : 63;
    return a < 0 ? ~(~a >> count) : a >> count;
}

/* Python's floor division and remainder (the remainder takes the divisor's
   sign); x // 0 and x % 0 are 0 as in NumPy, and INT64_MIN // -1 wraps to
   INT64_MIN (C's / would trap). */
DA_HD int64_t
da_sint_floor_divide(int64_t a, int64_t b)
{
    int64_t q;
    if (b == 0) {
        return 0;
    }
    if (b == -1) {
        return da_sint_neg(a);
    }
    q = a / b;
    if (a % b != 0 && (a < 0) != (b < 0)) {
        q -= 1;
    }
    return q;
}

DA_HD int64_t
da_sint_remainder(int64_t a, int64_t b)
{
    int64_t r;
    if (b == 0 || b == -1) {
        return 0;
    }
    r = a % b;
    if (r != 0 && (r < 0) != (b < 0)) {
        r += b;
    }
    return r;
}

/* a ** b by repeated squaring, wrapping.  A negative exponent cannot raise
   ValueError (as NumPy does) from a kernel without a sync: it gives 1 / a
   truncated toward zero (CuPy's choice): 1 for a == 1, +-1 for a == -1,
   else 0 (0 too for a == 0). */
DA_HD int64_t
da_sint_pow(int64_t a, int64_t b)
{
    uint64_t base = (uint64_t)a, r = 1;
    if (b < 0) {
        return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
    }
    while (b != 0) {
        if (b & 1) {
            r *= base;
        }
        base *= base;
        b >>= 1;
    }
    return (int64_t)r;
}

DA_HD int64_t da_sint_max(int64_t a, int64_t b) { return a >= b ? a : b; }
DA_HD int64_t da_sint_min(int64_t a, int64_t b) { return a <= b ? a : b; }
DA_HD int64_t da_sint_sign(int64_t a) { return (a > 0) - (a < 0); }

/* NumPy's integer reciprocal is C's 1 / a: 1 and -1 are their own, every
   other value truncates to 0; 1 / 0 is 0 here, as integer division by
   zero is (NumPy's loop divides by zero). */
DA_HD int64_t da_sint_reciprocal(int64_t a) { return a == 1 || a == -1 ? a : 0; }

/* ---- unsigned ------------------------------------------------------------ */

DA_HD uint64_t da_uint_and(uint64_t a, uint64_t b) { return a & b; }
DA_HD uint64_t da_uint_or(uint64_t a, uint64_t b) { return a | b; }
DA_HD uint64_t da_uint_xor(uint64_t a, uint64_t b) { return a ^ b; }
DA_HD uint64_t da_uint_invert(uint64_t a) { return ~a; }
DA_HD uint64_t da_uint_left_shift(uint64_t a, uint64_t b) { return b < 64 ? a << b : 0; }
DA_HD uint64_t da_uint_right_shift(uint64_t a, uint64_t b) { return b < 64 ? a >> b : 0; }
DA_HD uint64_t da_uint_floor_divide(uint64_t a, uint64_t b) { return b == 0 ? 0 : a / b; }
DA_HD uint64_t da_uint_remainder(uint64_t a, uint64_t b) { return b == 0 ? 0 : a % b; }

DA_HD uint64_t
da_uint_pow(uint64_t a, uint64_t b)
{
    uint64_t r = 1;
    while (b != 0) {
        if (b & 1) {
            r *= a;
        }
        a *= a;
        b >>= 1;
    }
    return r;
}

DA_HD uint64_t da_uint_max(uint64_t a, uint64_t b) { return a >= b ? a : b; }
DA_HD uint64_t da_uint_min(uint64_t a, uint64_t b) { return a <= b ? a : b; }
DA_HD uint64_t da_uint_sign(uint64_t a) { return a != 0; }
DA_HD uint64_t da_uint_reciprocal(uint64_t a) { return a == 1; }

#ifdef __cplusplus
}
#endif

#endif /* DEVARRAY_KERNELS_OPS_INT_H_ */
