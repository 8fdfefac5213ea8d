/*
 * The host backend of matmul: da_host_matmul (kernels/launch.h) as plain C
 * loops, and the reference for kernels/matmul.cu (and, with a tolerance,
 * for cuBLAS).
 *
 * Blocked over columns: for each row i of a, HOST_MATMUL_BLOCK
 * accumulators of the output row stay in a local array while p runs over
 * the inner dimension, so each a[i, p] is loaded once per block and a row
 * of b (contiguous in the usual C-order layout) is read straight through.
 * Each output element is still the sum of its k products in order p = 0,
 * 1, ..., which makes integer and bool results exact and float results
 * those of a plain dot product.  Holds no memory.
 */
#include <stdint.h>

#include "../../kernels/launch.h"

/* Accumulators per block: 64 complex128 are 1 KiB of stack. */
#define HOST_MATMUL_BLOCK 64

/* The float kinds read and write their own C type (through memcpy, which
   compiles to one load or store); the generic ones
   (integers and bool through uint64, float16 through float) use the
   per-dtype load and store of dtypes.h, which also do the wrapping and the
   single rounding to float16. */
#define HOST_MATMUL_LOAD_REAL(CT, p) DA_RD(CT, p)
#define HOST_MATMUL_STORE_REAL(CT, p, v) DA_WR(CT, (void *)(p), v)
#define HOST_MATMUL_MULADD_REAL(acc, x, y) ((acc) += (x) * (y))
#define HOST_MATMUL_MULADD_CPLX(acc, x, y)                                 \
    do {                                                                   \
        (acc).re += (x).re * (y).re - (x).im * (y).im;                     \
        (acc).im += (x).re * (y).im + (x).im * (y).re;                     \
    } while (0)

/* host_matmul_<name>(g): the whole batched product for one kind.  LOAD(p)
   reads the element at char pointer p; STORE(p, v) writes one; ZERO is the
   accumulator's zero; MULADD(acc, x, y) does acc += x * y. */
#define HOST_MATMUL_DEFINE(name, CT, ZERO, LOAD, STORE, MULADD)                 \
    static void host_matmul_##name(const da_matmul *g)                          \
    {                                                                           \
        const int64_t size = da_itemsize(g->typenum);                           \
        const int typenum = g->typenum;                                         \
        CT acc[HOST_MATMUL_BLOCK];                                              \
        int64_t t, i, j0, j, p, width;                                          \
        (void)typenum;                                                          \
        for (t = 0; t < g->batch; t++) {                                        \
            const char *a = (const char *)g->a + t * g->a_batch * size;         \
            const char *b = (const char *)g->b + t * g->b_batch * size;         \
            char *out = (char *)g->out + t * g->m * g->n * size;                \
            for (i = 0; i < g->m; i++) {                                        \
                for (j0 = 0; j0 < g->n; j0 += HOST_MATMUL_BLOCK) {              \
                    width = g->n - j0 < HOST_MATMUL_BLOCK ? g->n - j0           \
                                                          : HOST_MATMUL_BLOCK;  \
                    for (j = 0; j < width; j++) {                               \
                        acc[j] = ZERO;                                          \
                    }                                                           \
                    for (p = 0; p < g->k; p++) {                                \
                        const CT x = LOAD(a + (i * g->a_row + p * g->a_col) * size); \
                        const char *brow = b + (p * g->b_row + j0 * g->b_col) * size; \
                        for (j = 0; j < width; j++) {                           \
                            const CT y = LOAD(brow + j * g->b_col * size);      \
                            MULADD(acc[j], x, y);                               \
                        }                                                       \
                    }                                                           \
                    for (j = 0; j < width; j++) {                               \
                        STORE(out + (i * g->n + j0 + j) * size, acc[j]);        \
                    }                                                           \
                }                                                               \
            }                                                                   \
        }                                                                       \
    }

#define HOST_MATMUL_LOAD_F32(p) HOST_MATMUL_LOAD_REAL(float, p)
#define HOST_MATMUL_STORE_F32(p, v) HOST_MATMUL_STORE_REAL(float, p, v)
#define HOST_MATMUL_LOAD_F64(p) HOST_MATMUL_LOAD_REAL(double, p)
#define HOST_MATMUL_STORE_F64(p, v) HOST_MATMUL_STORE_REAL(double, p, v)
#define HOST_MATMUL_LOAD_C64(p) HOST_MATMUL_LOAD_REAL(da_c64, p)
#define HOST_MATMUL_STORE_C64(p, v) HOST_MATMUL_STORE_REAL(da_c64, p, v)
#define HOST_MATMUL_LOAD_C128(p) HOST_MATMUL_LOAD_REAL(da_c128, p)
#define HOST_MATMUL_STORE_C128(p, v) HOST_MATMUL_STORE_REAL(da_c128, p, v)
#define HOST_MATMUL_LOAD_UINT(p) da_load_uint(p, typenum)
#define HOST_MATMUL_STORE_UINT(p, v) da_store_uint(p, typenum, v)
#define HOST_MATMUL_LOAD_HALF(p) da_load_f32(p, typenum)
#define HOST_MATMUL_STORE_HALF(p, v) da_store_f32(p, typenum, v)

HOST_MATMUL_DEFINE(f32, float, 0.0f, HOST_MATMUL_LOAD_F32, HOST_MATMUL_STORE_F32,
                   HOST_MATMUL_MULADD_REAL)
HOST_MATMUL_DEFINE(f64, double, 0.0, HOST_MATMUL_LOAD_F64, HOST_MATMUL_STORE_F64,
                   HOST_MATMUL_MULADD_REAL)
HOST_MATMUL_DEFINE(c64, da_c64, DA_CPLX64(0, 0), HOST_MATMUL_LOAD_C64,
                   HOST_MATMUL_STORE_C64, HOST_MATMUL_MULADD_CPLX)
HOST_MATMUL_DEFINE(c128, da_c128, DA_CPLX128(0, 0), HOST_MATMUL_LOAD_C128,
                   HOST_MATMUL_STORE_C128, HOST_MATMUL_MULADD_CPLX)
/* unsigned arithmetic wraps without undefined behaviour, and a signed
   product modulo 2^64 is the unsigned product of the sign-extended bits */
HOST_MATMUL_DEFINE(uint, uint64_t, 0u, HOST_MATMUL_LOAD_UINT, HOST_MATMUL_STORE_UINT,
                   HOST_MATMUL_MULADD_REAL)
HOST_MATMUL_DEFINE(half, float, 0.0f, HOST_MATMUL_LOAD_HALF, HOST_MATMUL_STORE_HALF,
                   HOST_MATMUL_MULADD_REAL)

int
da_host_matmul(const da_matmul *g)
{
    if (g->batch < 1 || g->m < 1 || g->n < 1 || g->k < 1) {
        return -1;
    }
    switch (g->typenum) {
        case DA_FLOAT16:
            host_matmul_half(g);
            break;
        case DA_FLOAT32:
            host_matmul_f32(g);
            break;
        case DA_FLOAT64:
            host_matmul_f64(g);
            break;
        case DA_COMPLEX64:
            host_matmul_c64(g);
            break;
        case DA_COMPLEX128:
            host_matmul_c128(g);
            break;
        default:
            host_matmul_uint(g);
            break;
    }
    return 0;
}
