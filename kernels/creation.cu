/*
 * da_cuda_range, da_cuda_linspace, da_cuda_tri (kernels/launch.h): the
 * creation kernels behind arange, linspace, tril and triu.
 *
 * Each element is computed by the functions of creation.h, which the host
 * backend (src/host/host_creation.c) runs too.  The kernels are
 * grid-stride loops with one instantiation per compute class (arange: the
 * class's arithmetic, any dtype of it stored through da_store_<class>),
 * per real/complex (linspace) or per itemsize (tril/triu moves bits),
 * which keeps this file to 16 kernels for every architecture.  arange's
 * int32, int64, float32 and float64 results and linspace's float32 and
 * float64 ones are stored a 16-byte vector per thread (vector_elements;
 * linspace's by kernels of their own).  tril/triu give each matrix row
 * a group of lanes (short rows share a block), so no element divides its
 * index.  Element counts are 64-bit.
 */
#include <stdint.h>

#include <cuda_runtime.h>

#include "creation.h"

namespace {

constexpr int kThreads = 256;
/* CUDA's limit on gridDim.x; the loops are grid-stride either way */
constexpr int64_t kMaxBlocks = 2147483647;

/* Blocks for n elements, `per` of them a thread. */
unsigned int
blocks_for(int64_t n, int64_t per)
{
    int64_t want = ((n + per - 1) / per + kThreads - 1) / kThreads;
    return (unsigned int)(want < 1 ? 1 : (want < kMaxBlocks ? want : kMaxBlocks));
}

/* Whether the kernels store dtype typenum at out a 16-byte vector per
   thread (vector_elements of it each): the dtypes arange and linspace make
   by default or are mostly asked for, when out is 16-byte aligned.  A
   4-byte store per thread and the per-element dtype switch left
   linspace(0, 1, 2^28) float32 at 29% of the write rate on an H200 (816 us;
   252 us with float4 stores), arange(2^28) int64 at 65% (727 -> 461 us). */
__host__ __device__ int64_t
vector_elements(int typenum, const void *out)
{
    if ((uintptr_t)out % 16 != 0) {
        return 1;
    }
    switch (typenum) {
        case DA_INT32:
        case DA_FLOAT32:
            return 4;
        case DA_INT64:
        case DA_FLOAT64:
            return 2;
        default:
            return 1;
    }
}

/* Elements 0 .. n-1 of dtype S at out, element i written by store(i, p):
   16 / sizeof(S) consecutive elements a thread as one 16-byte store (out
   is 16-byte aligned), the tail one a thread. */
template <typename S, typename Store>
__device__ __forceinline__ void
store_vectors(void *out, int64_t n, Store store)
{
    constexpr int kPer = 16 / sizeof(S);
    const int64_t vectors = n / kPer, step = (int64_t)gridDim.x * blockDim.x;
    const int64_t first = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t v, i;
#pragma unroll 1
    for (v = first; v < vectors; v += step) {
        union {
            S e[kPer];
            uint4 bits;
        } r;
#pragma unroll
        for (int k = 0; k < kPer; k++) {
            store(v * kPer + k, &r.e[k]);
        }
        static_cast<uint4 *>(out)[v] = r.bits;
    }
#pragma unroll 1
    for (i = vectors * kPer + first; i < n; i += step) {
        store(i, static_cast<S *>(out) + i);
    }
}

/* Whether da_cuda_linspace stores l a vector a thread. */
bool
linspace_vectorised(const da_linspace *l)
{
    return !l->cplx && l->mode == DA_LINSPACE_STEP && !l->floor_it &&
           (l->typenum == DA_FLOAT32 || l->typenum == DA_FLOAT64) &&
           vector_elements(l->typenum, l->out) > 1;
}

/* The vector routes of the range kernels (false: typenum has none).  Each
   stores through its class's da_store with the dtype a constant, so the
   bits are those of the element loop. */
__device__ bool
range_vectors_sint(const da_range &r)
{
    if (vector_elements(r.typenum, r.out) == 1) {
        return false;
    }
    if (r.typenum == DA_INT64) {
        store_vectors<int64_t>(r.out, r.n, [&](int64_t i, int64_t *p) {
            da_store_sint(p, DA_INT64, da_range_sint(&r, i));
        });
    }
    else {
        store_vectors<int32_t>(r.out, r.n, [&](int64_t i, int32_t *p) {
            da_store_sint(p, DA_INT32, da_range_sint(&r, i));
        });
    }
    return true;
}

/* float32 or float64 (S): element i is Value(first, second, delta, i), the
   bits da_range_store_f32/f64 store. */
template <typename S, S (*Value)(S, S, S, int64_t)>
__device__ bool
range_vectors_real(const da_range &r, S first, S second, S delta)
{
    if (vector_elements(r.typenum, r.out) == 1) {
        return false;
    }
    store_vectors<S>(r.out, r.n, [&](int64_t i, S *p) { *p = Value(first, second, delta, i); });
    return true;
}

__device__ bool
range_vectors_f32(const da_range &r)
{
    return range_vectors_real<float, da_range_f32>(r, r.first.f32, r.second.f32, r.delta.f32);
}

__device__ bool
range_vectors_f64(const da_range &r)
{
    return range_vectors_real<double, da_range_f64>(r, r.first.f64, r.second.f64, r.delta.f64);
}

__device__ bool
range_vectors_none(const da_range &)
{
    return false;
}

#define CREATION_RANGE_KERNEL(cls, vectors)                                  \
    __global__ void range_kernel_##cls(da_range r)                           \
    {                                                                        \
        int64_t itemsize = da_itemsize(r.typenum);                           \
        if (range_vectors_##vectors(r)) {                                    \
            return;                                                          \
        }                                                                    \
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;     \
             i < r.n; i += (int64_t)gridDim.x * blockDim.x) {                \
            da_range_store_##cls(&r, i, (char *)r.out + i * itemsize);       \
        }                                                                    \
    }

CREATION_RANGE_KERNEL(bool, none)
CREATION_RANGE_KERNEL(sint, sint)
CREATION_RANGE_KERNEL(uint, none)
CREATION_RANGE_KERNEL(f32, f32)
CREATION_RANGE_KERNEL(f64, f64)
CREATION_RANGE_KERNEL(c64, none)
CREATION_RANGE_KERNEL(c128, none)
#undef CREATION_RANGE_KERNEL

/* Real linspace of a float dtype (S, Typenum) by its step (the common
   case) a vector a thread; the other modes and integer dtypes take
   linspace_kernel (each inlined copy of the float64 division of the
   underflow mode is about 1 KB of machine code).  A kernel of its own: the
   same loop inside linspace_kernel ran at 79% of the copy rate (320 us
   for 2^28 float32 on an H200, 252 us alone). */
template <typename S, int Typenum>
__global__ void
linspace_vector_kernel(da_linspace l)
{
    store_vectors<S>(l.out, l.n, [&](int64_t i, S *p) {
        da_store_f64(p, Typenum, da_linspace_value(&l, i, DA_LINSPACE_STEP, 0));
    });
}

template <int Cplx>
__global__ void
linspace_kernel(da_linspace l)
{
    int64_t itemsize = da_itemsize(l.typenum);
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < l.n;
         i += (int64_t)gridDim.x * blockDim.x) {
        if (Cplx) {
            da_linspace_store_complex(&l, i, (char *)l.out + i * itemsize);
        }
        else {
            da_linspace_store_real(&l, i, (char *)l.out + i * itemsize);
        }
    }
}

/* 16-byte elements (complex128) move as one aligned pair */
struct alignas(16) item16 {
    uint64_t lo, hi;
};

/* CUDA's limit on gridDim.y: more rows are a grid-stride loop */
constexpr int64_t kMaxRowBlocks = 65535;

/* Columns each thread of tri_kernel handles in a row. */
constexpr int64_t kTriColumns = 8;

/* A group of `lanes` threads per matrix row (a power of two; a block holds
   kThreads / lanes rows), each lane handling columns lanes apart: the row
   and the diagonal's column come from the grid, with no division per
   element, and only the kept elements are read.  Short rows share a block
   (65,536 3x3 matrices took 244 us on an H200 with a block per row and 3
   of its 256 threads working, against 9.5 us for their factorisation). */
template <typename T>
__global__ void
tri_kernel(da_tri t, int64_t all_rows, int lane_bits)
{
    const int lanes = 1 << lane_bits;
    const int64_t rows_per_block = kThreads >> lane_bits;
    const int lane = (int)threadIdx.x & (lanes - 1);
    int64_t r, j;

    for (r = (int64_t)blockIdx.y * rows_per_block + (threadIdx.x >> lane_bits); r < all_rows;
         r += (int64_t)gridDim.y * rows_per_block) {
        const int64_t i = r % t.rows; /* the row within its matrix */
        const T *in = (const T *)t.in + r * t.cols;
        T *out = (T *)t.out + r * t.cols;
        /* not unrolled: in and out may alias as far as the compiler
           knows, so each load waits for the store before it anyway, and
           an unrolled loop took 34 registers a thread, too many for a full
           SM (tril of 16384 x 16384 float32 16% slower on an H200) */
#pragma unroll 1
        for (j = (int64_t)blockIdx.x * lanes + lane; j < t.cols;
             j += (int64_t)gridDim.x * lanes) {
            out[j] = da_tri_keep_at(&t, i, j) ? in[j] : T();
        }
    }
}

}  // namespace

extern "C" cudaError_t
da_cuda_range(const da_range *r, cudaStream_t stream)
{
    unsigned int blocks = blocks_for(r->n, vector_elements(r->typenum, r->out));
    if (r->n <= 0) {
        return cudaSuccess;
    }
    switch (da_class_of(r->typenum)) {
        case DA_CLASS_BOOL:
            if (r->n > 2) {
                return cudaErrorInvalidValue;
            }
            range_kernel_bool<<<blocks, kThreads, 0, stream>>>(*r);
            break;
        case DA_CLASS_SINT:
            range_kernel_sint<<<blocks, kThreads, 0, stream>>>(*r);
            break;
        case DA_CLASS_UINT:
            range_kernel_uint<<<blocks, kThreads, 0, stream>>>(*r);
            break;
        case DA_CLASS_F32:
            range_kernel_f32<<<blocks, kThreads, 0, stream>>>(*r);
            break;
        case DA_CLASS_F64:
            range_kernel_f64<<<blocks, kThreads, 0, stream>>>(*r);
            break;
        case DA_CLASS_C64:
            range_kernel_c64<<<blocks, kThreads, 0, stream>>>(*r);
            break;
        default:
            range_kernel_c128<<<blocks, kThreads, 0, stream>>>(*r);
            break;
    }
    return cudaGetLastError();
}

extern "C" cudaError_t
da_cuda_linspace(const da_linspace *l, cudaStream_t stream)
{
    if (l->n <= 0) {
        return cudaSuccess;
    }
    if (linspace_vectorised(l)) {
        const unsigned int blocks = blocks_for(l->n, vector_elements(l->typenum, l->out));
        if (l->typenum == DA_FLOAT32) {
            linspace_vector_kernel<float, DA_FLOAT32><<<blocks, kThreads, 0, stream>>>(*l);
        }
        else {
            linspace_vector_kernel<double, DA_FLOAT64><<<blocks, kThreads, 0, stream>>>(*l);
        }
    }
    else if (l->cplx) {
        linspace_kernel<1><<<blocks_for(l->n, 1), kThreads, 0, stream>>>(*l);
    }
    else {
        linspace_kernel<0><<<blocks_for(l->n, 1), kThreads, 0, stream>>>(*l);
    }
    return cudaGetLastError();
}

extern "C" cudaError_t
da_cuda_tri(const da_tri *t, cudaStream_t stream)
{
    if (t->n <= 0) {
        return cudaSuccess;
    }
    const int64_t all_rows = t->n / t->cols;
    int lane_bits = 0;
    while ((int64_t)1 << lane_bits < t->cols && (kThreads >> lane_bits) > 1) {
        lane_bits++;
    }
    const int64_t lanes = (int64_t)1 << lane_bits;
    const int64_t row_blocks = (all_rows + (kThreads / lanes) - 1) / (kThreads / lanes);
    const int64_t col_blocks = (t->cols + lanes * kTriColumns - 1) / (lanes * kTriColumns);
    const dim3 blocks((unsigned int)(col_blocks < kMaxBlocks ? col_blocks : kMaxBlocks),
                      (unsigned int)(row_blocks < kMaxRowBlocks ? row_blocks : kMaxRowBlocks));
    switch (t->itemsize) {
        case 1:
            tri_kernel<uint8_t><<<blocks, kThreads, 0, stream>>>(*t, all_rows, lane_bits);
            break;
        case 2:
            tri_kernel<uint16_t><<<blocks, kThreads, 0, stream>>>(*t, all_rows, lane_bits);
            break;
        case 4:
            tri_kernel<uint32_t><<<blocks, kThreads, 0, stream>>>(*t, all_rows, lane_bits);
            break;
        case 8:
            tri_kernel<uint64_t><<<blocks, kThreads, 0, stream>>>(*t, all_rows, lane_bits);
            break;
        case 16:
            tri_kernel<item16><<<blocks, kThreads, 0, stream>>>(*t, all_rows, lane_bits);
            break;
        default:
            return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}
