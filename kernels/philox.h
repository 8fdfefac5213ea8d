/*
 * Philox4x32-10, the counter-based generator of Salmon, Moraes, Dror and
 * Shaw, "Parallel random numbers: as easy as 1, 2, 3" (SC'11), as Random123
 * and cuRAND define it: a 128-bit counter (four 32-bit words, word 0 the
 * least significant) and a 64-bit key (two words) give four 32-bit words
 * through ten rounds of
 *
 *     (c0, c1, c2, c3) -> (hi(M1 * c2) ^ c1 ^ k0,  lo(M1 * c2),
 *                          hi(M0 * c0) ^ c3 ^ k1,  lo(M0 * c0))
 *
 * with M0 = 0xD2511F53, M1 = 0xCD9E8D57, the key bumped by the Weyl
 * increments (0x9E3779B9, 0xBB67AE85) between rounds.  The output is a
 * bijection of the counter for each key, so distinct counters never repeat
 * a block.  tests/test_random.py checks Random123's known-answer vectors.
 *
 * This header is C11 and CUDA C++ (every function is __host__ __device__
 * under nvcc) and depends on nothing but <stdint.h>, so the CUDA kernels
 * (kernels/random.cu) and the host twin (src/host/host_random.c) run the
 * same code; the products are exact integer arithmetic on both, so the
 * bits cannot differ.
 *
 * The conversions from words to floats are exact too: a float32 takes the
 * top 24 bits of one word, a float64 the top 53 bits of a 64-bit value made
 * of two words, scaled by a power of two, so both land on the grid
 * {k * 2^-24} or {k * 2^-53} of [0, 1) with every point equally likely.
 * How a draw maps its elements to counters is in kernels/random.h.
 */
#ifndef DEVARRAY_KERNELS_PHILOX_H_
#define DEVARRAY_KERNELS_PHILOX_H_

#include <stdint.h>

#ifdef __CUDACC__
#define DA_PHILOX_HD static __host__ __device__ __forceinline__
#else
#define DA_PHILOX_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define DA_PHILOX_M0 0xD2511F53u
#define DA_PHILOX_M1 0xCD9E8D57u
#define DA_PHILOX_W0 0x9E3779B9u
#define DA_PHILOX_W1 0xBB67AE85u
#define DA_PHILOX_ROUNDS 10

/* Four 32-bit words: a counter (v[0] least significant) or an output. */
typedef struct {
    uint32_t v[4];
} da_philox_block;

/* The key: two 32-bit words. */
typedef struct {
    uint32_t v[2];
} da_philox_key;

/* The high and low halves of a * b (32 x 32 -> 64 bits). */
DA_PHILOX_HD uint32_t
da_philox_mulhilo(uint32_t a, uint32_t b, uint32_t *hi)
{
#ifdef __CUDA_ARCH__
    *hi = __umulhi(a, b);
    return a * b;
#else
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *hi = (uint32_t)(p >> 32);
    return (uint32_t)p;
#endif
}

DA_PHILOX_HD da_philox_block
da_philox_round(da_philox_block c, da_philox_key k)
{
    uint32_t hi0, hi1;
    uint32_t lo0 = da_philox_mulhilo(DA_PHILOX_M0, c.v[0], &hi0);
    uint32_t lo1 = da_philox_mulhilo(DA_PHILOX_M1, c.v[2], &hi1);
    da_philox_block r;
    r.v[0] = hi1 ^ c.v[1] ^ k.v[0];
    r.v[1] = lo1;
    r.v[2] = hi0 ^ c.v[3] ^ k.v[1];
    r.v[3] = lo0;
    return r;
}

/* Philox4x32-10 of counter c under key k. */
DA_PHILOX_HD da_philox_block
da_philox4x32_10(da_philox_block c, da_philox_key k)
{
    int round;
    c = da_philox_round(c, k);
    for (round = 1; round < DA_PHILOX_ROUNDS; round++) {
        k.v[0] += DA_PHILOX_W0;
        k.v[1] += DA_PHILOX_W1;
        c = da_philox_round(c, k);
    }
    return c;
}

/* The 128-bit counter base + j (mod 2^128), base in words. */
DA_PHILOX_HD da_philox_block
da_philox_counter_add(da_philox_block base, uint64_t j)
{
    uint64_t lo = ((uint64_t)base.v[1] << 32 | base.v[0]) + j;
    uint64_t hi = ((uint64_t)base.v[3] << 32 | base.v[2]) + (lo < j ? 1u : 0u);
    da_philox_block c;
    c.v[0] = (uint32_t)lo;
    c.v[1] = (uint32_t)(lo >> 32);
    c.v[2] = (uint32_t)hi;
    c.v[3] = (uint32_t)(hi >> 32);
    return c;
}

/* ---- words to numbers ---------------------------------------------------- */

/* Two words as one 64-bit value, `lo` the low half: the order of the words
   in memory on a little-endian machine, so a stream of uint64 values is
   the stream of uint32 words viewed as uint64. */
DA_PHILOX_HD uint64_t
da_philox_u64(uint32_t lo, uint32_t hi)
{
    return (uint64_t)hi << 32 | lo;
}

/* [0, 1) from the top 24 bits of w: k * 2^-24, k uniform in [0, 2^24). */
DA_PHILOX_HD float
da_philox_f32(uint32_t w)
{
    return (float)(w >> 8) * 5.9604644775390625e-08f; /* 2^-24 */
}

/* (0, 1] from the top 24 bits of w: (k + 1) * 2^-24 (never 0, for logs). */
DA_PHILOX_HD float
da_philox_f32_open0(uint32_t w)
{
    return (float)((w >> 8) + 1u) * 5.9604644775390625e-08f;
}

/* [0, 1) from the top 53 bits of u: k * 2^-53, k uniform in [0, 2^53). */
DA_PHILOX_HD double
da_philox_f64(uint64_t u)
{
    return (double)(u >> 11) * 1.1102230246251565404236316680908203125e-16; /* 2^-53 */
}

/* (0, 1] from the top 53 bits of u: (k + 1) * 2^-53. */
DA_PHILOX_HD double
da_philox_f64_open0(uint64_t u)
{
    return (double)((u >> 11) + 1u) * 1.1102230246251565404236316680908203125e-16;
}

/* The high 64 bits of a * b (64 x 64 -> 128 bits), exact on both sides. */
DA_PHILOX_HD uint64_t
da_philox_mulhi64(uint64_t a, uint64_t b)
{
#ifdef __CUDA_ARCH__
    return __umul64hi(a, b);
#else
    uint64_t a_lo = (uint32_t)a, a_hi = a >> 32, b_lo = (uint32_t)b, b_hi = b >> 32;
    uint64_t ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo, hh = a_hi * b_hi;
    /* the middle column: at most 3 * (2^32 - 1), no overflow */
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

/*
 * Lemire's multiply-shift: floor(u * range / 2^64), an integer in
 * [0, range) for 1 <= range <= 2^32 (range == 0 is not allowed here).
 * u is uniform over 2^64 values, so each result has floor(2^64 / range) or
 * ceil(2^64 / range) preimages: its probability is within 2^-64 of
 * 1 / range (relatively within range / 2^64 <= 2^-32).
 */
DA_PHILOX_HD uint64_t
da_philox_bounded64(uint64_t u, uint64_t range)
{
    return da_philox_mulhi64(u, range);
}

/*
 * The same with a 128-bit u = hi * 2^64 + lo, for any range of 1 to 2^64
 * (range == 0 stands for 2^64, the whole 64-bit space: the result is hi):
 * floor(u * range / 2^128), each result's probability within 2^-128 of
 * 1 / range.  u * range = hi * range * 2^64 + lo * range; the bits above
 * 2^128 are the high word of hi * range plus the carry out of adding its
 * low word to the high word of lo * range.
 */
DA_PHILOX_HD uint64_t
da_philox_bounded128(uint64_t lo, uint64_t hi, uint64_t range)
{
    uint64_t top, mid, carry_in;
    if (range == 0) {
        return hi;
    }
    top = da_philox_mulhi64(hi, range);
    mid = hi * range;
    carry_in = da_philox_mulhi64(lo, range);
    return top + (mid + carry_in < mid ? 1u : 0u);
}

#ifdef __cplusplus
}
#endif

#endif /* DEVARRAY_KERNELS_PHILOX_H_ */
