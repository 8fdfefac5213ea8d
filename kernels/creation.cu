/*
 * da_cuda_range, da_cuda_linspace, da_cuda_tri (kernels/launch.h): the
 * creation kernels behind arange, linspace, tril and triu.
 *
 * Each element is computed by the functions of creation.h, which the host
 * backend (src/host/host_creation.c) runs too.  The kernels are grid-stride loops
 * with one instantiation per compute class (arange: the class's arithmetic,
 * any dtype of it stored through da_store_<class>), per real/complex
 * (linspace) or per itemsize (tril/triu moves bits), which keeps this file
 * to 14 kernels for every architecture.  tril/triu's grid has a row per
 * matrix row, so no element divides its index.  Element counts are
 * 64-bit.
 */
#include <stdint.h>

#include <cuda_runtime.h>

#include "creation.h"

namespace {

constexpr int kThreads = 256;
/* CUDA's limit on gridDim.x; the loops are grid-stride either way */
constexpr int64_t kMaxBlocks = 2147483647;

unsigned int
blocks_for(int64_t n)
{
    int64_t want = (n + kThreads - 1) / kThreads;
    return (unsigned int)(want < 1 ? 1 : (want < kMaxBlocks ? want : kMaxBlocks));
}

#define CREATION_RANGE_KERNEL(cls)                                           \
    __global__ void range_kernel_##cls(da_range r)                           \
    {                                                                        \
        int64_t itemsize = da_itemsize(r.typenum);                           \
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;     \
             i < r.n; i += (int64_t)gridDim.x * blockDim.x) {                \
            da_range_store_##cls(&r, i, (char *)r.out + i * itemsize);       \
        }                                                                    \
    }

CREATION_RANGE_KERNEL(bool)
CREATION_RANGE_KERNEL(sint)
CREATION_RANGE_KERNEL(uint)
CREATION_RANGE_KERNEL(f32)
CREATION_RANGE_KERNEL(f64)
CREATION_RANGE_KERNEL(c64)
CREATION_RANGE_KERNEL(c128)
#undef CREATION_RANGE_KERNEL

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

/* A grid row per matrix row (batch x rows of them), each thread along it
   handling kTriColumns columns kThreads apart: the row and the diagonal's
   column come from the grid, with no division per element, and only the
   kept elements are read. */
template <typename T>
__global__ void
tri_kernel(da_tri t)
{
    const int64_t all_rows = t.n / t.cols;
    int64_t r, j;

    for (r = blockIdx.y; r < all_rows; r += gridDim.y) {
        const int64_t i = r % t.rows; /* the row within its matrix */
        const T *in = (const T *)t.in + r * t.cols;
        T *out = (T *)t.out + r * t.cols;
        for (j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < t.cols;
             j += (int64_t)gridDim.x * blockDim.x) {
            out[j] = da_tri_keep_at(&t, i, j) ? in[j] : T();
        }
    }
}

}  // namespace

extern "C" cudaError_t
da_cuda_range(const da_range *r, cudaStream_t stream)
{
    unsigned int blocks = blocks_for(r->n);
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
    unsigned int blocks = blocks_for(l->n);
    if (l->n <= 0) {
        return cudaSuccess;
    }
    if (l->cplx) {
        linspace_kernel<1><<<blocks, kThreads, 0, stream>>>(*l);
    }
    else {
        linspace_kernel<0><<<blocks, kThreads, 0, stream>>>(*l);
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
    const dim3 blocks(blocks_for((t->cols + kTriColumns - 1) / kTriColumns),
                      (unsigned int)(all_rows < kMaxRowBlocks ? all_rows : kMaxRowBlocks));
    switch (t->itemsize) {
        case 1:
            tri_kernel<uint8_t><<<blocks, kThreads, 0, stream>>>(*t);
            break;
        case 2:
            tri_kernel<uint16_t><<<blocks, kThreads, 0, stream>>>(*t);
            break;
        case 4:
            tri_kernel<uint32_t><<<blocks, kThreads, 0, stream>>>(*t);
            break;
        case 8:
            tri_kernel<uint64_t><<<blocks, kThreads, 0, stream>>>(*t);
            break;
        case 16:
            tri_kernel<item16><<<blocks, kThreads, 0, stream>>>(*t);
            break;
        default:
            return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}
