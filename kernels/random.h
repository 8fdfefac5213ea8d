/*
 * The element functions of the random draws (da_random, launch.h), shared
 * by the CUDA kernels (kernels/random.cu) and the host twin
 * (src/host/host_random.c), so that both backends compute the same bits.
 *
 * The unit of work is one Philox block: counter + j gives four words, which
 * make the 4 / k elements [j * 4 / k, (j + 1) * 4 / k) of the draw, k the
 * kind's words per element:
 *   BITS32         element t is word t;
 *   BITS64         element t is word 2t | word 2t+1 << 32;
 *   UNIFORM_F32    loc + scale * (word t >> 8) * 2^-24;
 *   UNIFORM_F64    loc + scale * (u64 >> 11) * 2^-53, u64 as for BITS64;
 *   INT_R32        low + floor(u64 * range / 2^64), u64 as for BITS64
 *                  (Lemire's multiply-shift, each value's probability within
 *                  2^-64 of 1/range: philox.h);
 *   INT_R64        low + floor(u128 * range / 2^128), u128 = the block's
 *                  four words, word 0 least significant;
 *   NORMAL_F32     Box-Muller on the pairs (word 0, word 1) and (word 2,
 *                  word 3): u1 = (w >> 8 + 1) * 2^-24 in (0, 1], u2 = (w >> 8)
 *                  * 2^-24, r = sqrt(-2 log u1), elements r cos(2 pi u2) and
 *                  r sin(2 pi u2), in float32 arithmetic;
 *   NORMAL_F64     the same on (u64 of words 0, 1; u64 of words 2, 3) with
 *                  53-bit u1, u2, in float64.
 * Everything but the normals is exact integer arithmetic or one correctly
 * rounded multiply and add, so the backends agree bit for bit; the normals
 * call log, sqrt, sin and cos, whose last bit may differ between the host's
 * libm and CUDA's (CUDA documents log, sin and cos within 1 ulp in double,
 * logf within 1 ulp and sinf/cosf within 2 ulp in float; sqrt is correctly
 * rounded on both).
 *
 * Floating-point operations on the device are spelled with their _rn
 * intrinsics (never contracted into an FMA, whatever the build flags), as
 * kernels/creation.h does; host builds round each operation.
 */
#ifndef DEVARRAY_KERNELS_RANDOM_H_
#define DEVARRAY_KERNELS_RANDOM_H_

#include "launch.h"
#include "philox.h"

#ifdef __CUDA_ARCH__
#define DA_RND_ADD_F32(a, b) __fadd_rn((a), (b))
#define DA_RND_MUL_F32(a, b) __fmul_rn((a), (b))
#define DA_RND_ADD_F64(a, b) __dadd_rn((a), (b))
#define DA_RND_MUL_F64(a, b) __dmul_rn((a), (b))
#define DA_RND_LOG_F32(x) ::logf(x)
#define DA_RND_LOG_F64(x) ::log(x)
#define DA_RND_SQRT_F32(x) ::sqrtf(x)
#define DA_RND_SQRT_F64(x) ::sqrt(x)
#define DA_RND_SINCOS_F32(x, s, c) ::sincosf((x), (s), (c))
#define DA_RND_SINCOS_F64(x, s, c) ::sincos((x), (s), (c))
#else
#define DA_RND_ADD_F32(a, b) ((float)((a) + (b)))
#define DA_RND_MUL_F32(a, b) ((float)((a) * (b)))
#define DA_RND_ADD_F64(a, b) ((a) + (b))
#define DA_RND_MUL_F64(a, b) ((a) * (b))
#define DA_RND_LOG_F32(x) logf(x)
#define DA_RND_LOG_F64(x) log(x)
#define DA_RND_SQRT_F32(x) sqrtf(x)
#define DA_RND_SQRT_F64(x) sqrt(x)
#define DA_RND_SINCOS_F32(x, s, c) (*(s) = sinf(x), *(c) = cosf(x))
#define DA_RND_SINCOS_F64(x, s, c) (*(s) = sin(x), *(c) = cos(x))
#endif

/* 2 pi, rounded to each precision */
#define DA_RND_2PI_F32 6.28318530717958647692f
#define DA_RND_2PI_F64 6.28318530717958647692

/* The values of one block: 4 of 4 bytes or 2 of 8 (the INT kinds keep
   their values as uint64 until they are stored). */
typedef union {
    uint32_t u32[4];
    uint64_t u64[2];
    float f32[4];
    double f64[2];
} da_random_values;

/* The Philox block of counter + j under the draw's key. */
DA_HD da_philox_block
da_random_words_of(const da_random *r, uint64_t j)
{
    da_philox_block base;
    da_philox_key key;
    base.v[0] = r->counter[0];
    base.v[1] = r->counter[1];
    base.v[2] = r->counter[2];
    base.v[3] = r->counter[3];
    key.v[0] = r->key[0];
    key.v[1] = r->key[1];
    return da_philox4x32_10(da_philox_counter_add(base, j), key);
}

/* Box-Muller: the pair (r cos t, r sin t) of (0, 1]-valued u1, [0, 1) u2. */
DA_HD void
da_random_box_muller_f32(float u1, float u2, float *z0, float *z1)
{
    float radius = DA_RND_SQRT_F32(DA_RND_MUL_F32(-2.0f, DA_RND_LOG_F32(u1)));
    float s, c;
    DA_RND_SINCOS_F32(DA_RND_MUL_F32(DA_RND_2PI_F32, u2), &s, &c);
    *z0 = DA_RND_MUL_F32(radius, c);
    *z1 = DA_RND_MUL_F32(radius, s);
}

DA_HD void
da_random_box_muller_f64(double u1, double u2, double *z0, double *z1)
{
    double radius = DA_RND_SQRT_F64(DA_RND_MUL_F64(-2.0, DA_RND_LOG_F64(u1)));
    double s, c;
    DA_RND_SINCOS_F64(DA_RND_MUL_F64(DA_RND_2PI_F64, u2), &s, &c);
    *z0 = DA_RND_MUL_F64(radius, c);
    *z1 = DA_RND_MUL_F64(radius, s);
}

/* The values of block j of the draw, for kind `kind` (== r->kind; a
   separate argument so that a kernel instantiated per kind folds the
   switch away). */
DA_HD da_random_values
da_random_block(const da_random *r, int kind, uint64_t j)
{
    da_philox_block w = da_random_words_of(r, j);
    da_random_values v;
    int t;

    switch (kind) {
        case DA_RANDOM_BITS32:
            for (t = 0; t < 4; t++) {
                v.u32[t] = w.v[t];
            }
            break;
        case DA_RANDOM_BITS64:
            for (t = 0; t < 2; t++) {
                v.u64[t] = da_philox_u64(w.v[2 * t], w.v[2 * t + 1]);
            }
            break;
        case DA_RANDOM_UNIFORM_F32: {
            float loc = (float)r->loc, scale = (float)r->scale;
            for (t = 0; t < 4; t++) {
                v.f32[t] = DA_RND_ADD_F32(loc, DA_RND_MUL_F32(scale, da_philox_f32(w.v[t])));
            }
            break;
        }
        case DA_RANDOM_UNIFORM_F64:
            for (t = 0; t < 2; t++) {
                double u = da_philox_f64(da_philox_u64(w.v[2 * t], w.v[2 * t + 1]));
                v.f64[t] = DA_RND_ADD_F64(r->loc, DA_RND_MUL_F64(r->scale, u));
            }
            break;
        case DA_RANDOM_INT_R32:
            for (t = 0; t < 2; t++) {
                v.u64[t] = r->low + da_philox_bounded64(
                                        da_philox_u64(w.v[2 * t], w.v[2 * t + 1]), r->range);
            }
            break;
        case DA_RANDOM_INT_R64:
            v.u64[0] = r->low + da_philox_bounded128(da_philox_u64(w.v[0], w.v[1]),
                                                     da_philox_u64(w.v[2], w.v[3]), r->range);
            v.u64[1] = 0;
            break;
        case DA_RANDOM_NORMAL_F32: {
            float loc = (float)r->loc, scale = (float)r->scale;
            da_random_box_muller_f32(da_philox_f32_open0(w.v[0]), da_philox_f32(w.v[1]),
                                     &v.f32[0], &v.f32[1]);
            da_random_box_muller_f32(da_philox_f32_open0(w.v[2]), da_philox_f32(w.v[3]),
                                     &v.f32[2], &v.f32[3]);
            for (t = 0; t < 4; t++) {
                v.f32[t] = DA_RND_ADD_F32(loc, DA_RND_MUL_F32(scale, v.f32[t]));
            }
            break;
        }
        default: /* DA_RANDOM_NORMAL_F64 */
            da_random_box_muller_f64(da_philox_f64_open0(da_philox_u64(w.v[0], w.v[1])),
                                     da_philox_f64(da_philox_u64(w.v[2], w.v[3])),
                                     &v.f64[0], &v.f64[1]);
            for (t = 0; t < 2; t++) {
                v.f64[t] = DA_RND_ADD_F64(r->loc, DA_RND_MUL_F64(r->scale, v.f64[t]));
            }
            break;
    }
    return v;
}

/* Store value t of a block's values at p, an element of r->typenum. */
DA_HD void
da_random_store(const da_random *r, int kind, const da_random_values *v, int t, void *p)
{
    switch (kind) {
        case DA_RANDOM_BITS32:
            DA_WR(uint32_t, p, v->u32[t]);
            break;
        case DA_RANDOM_BITS64:
            DA_WR(uint64_t, p, v->u64[t]);
            break;
        case DA_RANDOM_UNIFORM_F32:
        case DA_RANDOM_NORMAL_F32:
            DA_WR(float, p, v->f32[t]);
            break;
        case DA_RANDOM_UNIFORM_F64:
        case DA_RANDOM_NORMAL_F64:
            DA_WR(double, p, v->f64[t]);
            break;
        default: /* the INT kinds: truncated to the dtype's width */
            switch (da_itemsize(r->typenum)) {
                case 1:
                    DA_WR(uint8_t, p, (uint8_t)v->u64[t]);
                    break;
                case 2:
                    DA_WR(uint16_t, p, (uint16_t)v->u64[t]);
                    break;
                case 4:
                    DA_WR(uint32_t, p, (uint32_t)v->u64[t]);
                    break;
                default:
                    DA_WR(uint64_t, p, v->u64[t]);
                    break;
            }
            break;
    }
}

#endif /* DEVARRAY_KERNELS_RANDOM_H_ */
