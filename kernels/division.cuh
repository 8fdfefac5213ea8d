/*
 * Internal to kernels/: integer floor division and remainder in the
 * contiguous elementwise kernels (elementwise.cuh's apply_stored): by a
 * positive scalar divisor through a multiplier worked out on the host,
 * else in 32 bits for dtypes up to 32 bits.  The results are
 * da_sint_/da_uint_floor_divide's and _remainder's (ops_int.h).
 */
#ifndef DEVARRAY_KERNELS_DIVISION_CUH_
#define DEVARRAY_KERNELS_DIVISION_CUH_

#include <stdint.h>

#include "dispatch.cuh"

namespace da {

/* Whether (Op, Cls) is integer floor division or remainder: the ops that
   divide by a multiplier when the divisor is a positive scalar. */
template <int Op, int Cls>
struct divides_by_multiplier {
    static constexpr bool value = (Op == DA_OP_FLOOR_DIVIDE || Op == DA_OP_REMAINDER) &&
                                  (Cls == DA_CLASS_SINT || Cls == DA_CLASS_UINT);
};

/* Integer floor division and remainder by a positive scalar divisor d
   multiply instead (Granlund and Montgomery, "Division by invariant
   integers using multiplication", 1994, fig. 4.1): for every N-bit n,
   n / d = (t + ((n - t) >> shift1)) >> shift2, t the high half of
   n * magic, with N = 32 for dtypes up to 32 bits and 64 for the others.
   The host works the multiplier out once per launch: worked out per
   thread, the division that finds it cost what it saved (int32 `a // 7`
   stayed at 1.13x PyTorch's time, compute-bound on the GPU's division
   routine). */
struct divisor_multiplier {
    uint64_t magic;
    uint8_t shift1, shift2;
    bool valid; /* else divide (no positive scalar divisor) */
};

template <typename W>
static inline divisor_multiplier
divisor_multiplier_of(W d)
{
    constexpr int kBits = 8 * (int)sizeof(W);
    const unsigned __int128 one = 1;
    divisor_multiplier m;
    int l = 0;

    while (l < kBits && (one << l) < d) {
        l++;
    }
    m.magic = (uint64_t)((one << kBits) * ((one << l) - d) / d + 1);
    m.shift1 = (uint8_t)(l < 1 ? l : 1);
    m.shift2 = (uint8_t)(l > 1 ? l - 1 : 0);
    m.valid = true;
    return m;
}

/* The unsigned word an integer dtype of size S divides in. */
template <typename S>
struct division_word {
    typedef uint32_t type;
};
template <>
struct division_word<int64_t> {
    typedef uint64_t type;
};
template <>
struct division_word<uint64_t> {
    typedef uint64_t type;
};

static __device__ __forceinline__ uint32_t
high_half(uint32_t a, uint32_t b)
{
    return __umulhi(a, b);
}

static __device__ __forceinline__ uint64_t
high_half(uint64_t a, uint64_t b)
{
    return __umul64hi(a, b);
}

/* a // d or a % d for the class value a of a dtype stored as S, d > 0 the
   divisor of `by`: a negative a as ~(~a / d), the floor. */
template <int Op, int Cls, typename S, typename T>
static __device__ __forceinline__ T
divide_by_multiplier(T a, T d, const divisor_multiplier &by)
{
    typedef typename division_word<S>::type W;
    const W n = (W)a;
    bool negative = false;
    if constexpr (Cls == DA_CLASS_SINT) {
        negative = a < 0;
    }
    const W x = negative ? ~n : n;
    const W t = high_half(x, (W)by.magic);
    const W q0 = (t + ((x - t) >> by.shift1)) >> by.shift2;
    const W q = negative ? ~q0 : q0;

    if (Op == DA_OP_REMAINDER) {
        return (T)(n - q * (W)d);
    }
    if constexpr (Cls == DA_CLASS_SINT) {
        return sizeof(W) == 4 ? (T)(int32_t)(uint32_t)q : (T)(int64_t)q;
    }
    else {
        return (T)q;
    }
}

/* Integer floor division and remainder of dtypes up to 32 bits compute in
   32 bits in the contiguous kernels: their operands always fit (a scalar
   divisor has the dtype too, NEP 50), and the class's 64-bit division is
   the GPU's 64-bit division routine, which made int32 `a // 7` compute-bound
   (1.39x PyTorch's 32-bit division on an H200).  The results are
   da_sint_/da_uint_floor_divide's and _remainder's (ops_int.h): x // 0 and
   x % 0 are 0, x // -1 is the negation that the store wraps. */
template <int Op, int Cls, typename S>
struct narrow_division {
    static constexpr bool value = divides_by_multiplier<Op, Cls>::value && sizeof(S) <= 4;
};

template <int Op>
static __device__ __forceinline__ int64_t
sint32_division(int64_t a64, int64_t b64)
{
    const int32_t a = (int32_t)a64, b = (int32_t)b64;
    if (b == 0 || (b == -1 && Op == DA_OP_REMAINDER)) {
        return 0;
    }
    if (b == -1) {
        return -a64;
    }
    if (Op == DA_OP_FLOOR_DIVIDE) {
        const int32_t q = a / b;
        return q * b != a && (a < 0) != (b < 0) ? q - 1 : q;
    }
    const int32_t r = a % b;
    return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

template <int Op>
static __device__ __forceinline__ uint64_t
uint32_division(uint64_t a, uint64_t b)
{
    if (b == 0) {
        return 0;
    }
    return Op == DA_OP_FLOOR_DIVIDE ? (uint32_t)a / (uint32_t)b : (uint32_t)a % (uint32_t)b;
}

}  // namespace da

#endif /* DEVARRAY_KERNELS_DIVISION_CUH_ */
