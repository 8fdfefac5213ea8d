/*
 * da_cuda_where (kernels/launch.h): out = cond ? x1 : x2 on the GPU.
 *
 * One kernel family per itemsize (1, 2, 4, 8, 16 bytes): elements are moved
 * as bits, never computed on, so every dtype of one size shares a kernel
 * and NaN payloads and signed zeros pass unchanged.  Two routes:
 *   - contiguous: ndim == 1 and every array operand contiguous (a scalar
 *     operand is a value in the parameters).  The linear index is the
 *     element index; the body moves 16-byte vectors of x1, x2 and out with
 *     the matching 16 / itemsize condition bytes in one load, where every
 *     array is aligned alike, and single elements for the head before and
 *     the tail after it.
 *   - strided: everything else.  Byte offsets of the four operands come
 *     from the linear index (div/mod per dimension but the outermost), and
 *     only the chosen input is read.
 * Both have a 32-bit index variant, used when size < 2^31, and a 64-bit
 * one beyond.  src/host/host_select.c is the reference.
 */
#include <stdint.h>
#include <string.h>

#include "dispatch.cuh"

namespace da {
namespace {

constexpr int kSelectVectorBytes = 16;

/* The storage of an element of N bytes: moved whole, never interpreted. */
template <int N>
struct select_bits;
template <>
struct select_bits<1> {
    typedef uint8_t type;
};
template <>
struct select_bits<2> {
    typedef uint16_t type;
};
template <>
struct select_bits<4> {
    typedef uint32_t type;
};
template <>
struct select_bits<8> {
    typedef uint64_t type;
};
struct select_u128 {
    uint64_t lo, hi; /* 8-byte aligned, like a complex128 array */
};
template <>
struct select_bits<16> {
    typedef select_u128 type;
};

template <typename S>
struct alignas(kSelectVectorBytes) select_vector {
    S e[kSelectVectorBytes / sizeof(S)];
};

/* The condition bytes of one vector, loaded as one aligned access. */
template <int N>
struct alignas(N) select_conditions {
    uint8_t c[N];
};

template <typename S>
static __device__ __forceinline__ S
select_value(const da_where_value &v)
{
    S s;
    memcpy(&s, v.bytes, sizeof(S));
    return s;
}

/* ---- contiguous route ------------------------------------------------ */

struct select_contiguous_args {
    char *out;
    const uint8_t *cond;
    const char *x[2]; /* NULL: the operand is value[k] */
    da_where_value value[2];
    int64_t head;  /* elements before the first aligned vector */
    int64_t nvec;  /* vectors in the body */
    int64_t nrest; /* head + tail: the elements done one at a time */
};

template <typename S>
static __device__ __forceinline__ select_vector<S>
select_load_vector(const char *x, int64_t head, int64_t i, S value)
{
    typedef select_vector<S> V;
    V v;
    if (x != nullptr) {
        v = reinterpret_cast<const V *>(x + head * (int64_t)sizeof(S))[i];
    }
    else {
#pragma unroll
        for (int j = 0; j < (int)(kSelectVectorBytes / sizeof(S)); j++) {
            v.e[j] = value;
        }
    }
    return v;
}

template <typename S, typename Index>
static __global__ void __launch_bounds__(kBlockThreads)
select_contiguous_kernel(const select_contiguous_args a)
{
    typedef select_vector<S> V;
    constexpr int kPerVector = kSelectVectorBytes / sizeof(S);
    typedef select_conditions<kPerVector> C;
    const Index first = (Index)blockIdx.x * kBlockThreads + threadIdx.x;
    const Index step = (Index)gridDim.x * kBlockThreads;
    const Index nvec = (Index)a.nvec, nrest = (Index)a.nrest, head = (Index)a.head;
    const S v0 = select_value<S>(a.value[0]), v1 = select_value<S>(a.value[1]);
    Index i;

    for (i = first; i < nvec; i += step) {
        const C c = reinterpret_cast<const C *>(a.cond + head)[i];
        const V x1 = select_load_vector<S>(a.x[0], a.head, (int64_t)i, v0);
        const V x2 = select_load_vector<S>(a.x[1], a.head, (int64_t)i, v1);
        V r;
#pragma unroll
        for (int j = 0; j < kPerVector; j++) {
            r.e[j] = c.c[j] ? x1.e[j] : x2.e[j];
        }
        reinterpret_cast<V *>(a.out + (int64_t)head * (int64_t)sizeof(S))[i] = r;
    }
    for (i = first; i < nrest; i += step) {
        const Index e = i < head ? i : i + nvec * kPerVector;
        /* constant indices throughout: a run-time index into the
           parameters or into off[] would put them in local memory */
        const char *x = a.cond[e] ? a.x[0] : a.x[1];
        const S v = a.cond[e] ? v0 : v1;
        reinterpret_cast<S *>(a.out)[e] =
            x != nullptr ? reinterpret_cast<const S *>(x)[e] : v;
    }
}

/* The body starts where out is 16-byte aligned; it is used only when the
   array inputs are misaligned alike (by whole elements) and the condition
   bytes of each vector are aligned for their one load. */
static void
select_split(select_contiguous_args *a, int64_t n, int itemsize)
{
    const int64_t per_vector = kSelectVectorBytes / itemsize;
    const uintptr_t mis = (uintptr_t)a->out % kSelectVectorBytes;
    bool alike = mis % (uintptr_t)itemsize == 0;
    int k;

    a->head = 0;
    a->nvec = 0;
    a->nrest = n;
    for (k = 0; k < 2; k++) {
        alike = alike && (a->x[k] == nullptr ||
                          (uintptr_t)a->x[k] % kSelectVectorBytes == mis);
    }
    if (!alike) {
        return;
    }
    a->head = (int64_t)((kSelectVectorBytes - mis) % kSelectVectorBytes) / itemsize;
    if (a->head > n) {
        a->head = n;
    }
    if ((uintptr_t)(a->cond + a->head) % (uintptr_t)per_vector != 0) {
        a->head = 0;
        return;
    }
    a->nvec = (n - a->head) / per_vector;
    a->nrest = n - a->nvec * per_vector;
}

template <typename S>
static cudaError_t
select_launch_contiguous(const da_where *w, cudaStream_t stream)
{
    select_contiguous_args a;
    unsigned int blocks;
    cudaError_t err;
    int k;

    a.out = w->out;
    a.cond = reinterpret_cast<const uint8_t *>(w->cond);
    for (k = 0; k < 2; k++) {
        a.x[k] = w->x[k];
        a.value[k] = w->value[k];
    }
    select_split(&a, w->size, (int)sizeof(S));
    err = grid_blocks(a.nvec > a.nrest ? a.nvec : a.nrest, &blocks);
    if (err != cudaSuccess) {
        return err;
    }
    if (w->size <= INT32_MAX) {
        select_contiguous_kernel<S, uint32_t><<<blocks, kBlockThreads, 0, stream>>>(a);
    }
    else {
        select_contiguous_kernel<S, uint64_t><<<blocks, kBlockThreads, 0, stream>>>(a);
    }
    return cudaGetLastError();
}

/* ---- strided route --------------------------------------------------- */

template <typename S, typename Index>
static __global__ void __launch_bounds__(kBlockThreads)
select_strided_kernel(const __grid_constant__ da_where w)
{
    const Index n = (Index)w.size;
    const Index step = (Index)gridDim.x * kBlockThreads;
    Index i;

    for (i = (Index)blockIdx.x * kBlockThreads + threadIdx.x; i < n; i += step) {
        int64_t off[4] = {0, 0, 0, 0};
        Index rest = i;
        int d, k;
        for (d = w.ndim - 1; d > 0; d--) {
            const Index extent = (Index)w.shape[d];
            const Index q = rest / extent;
            const int64_t coord = (int64_t)(rest - q * extent);
            rest = q;
#pragma unroll
            for (k = 0; k < 4; k++) {
                off[k] += coord * w.strides[k][d];
            }
        }
#pragma unroll
        for (k = 0; k < 4; k++) {
            off[k] += (int64_t)rest * w.strides[k][0];
        }
        /* constant indices, as in the contiguous kernel's tail */
        if (w.cond[off[1]]) {
            *reinterpret_cast<S *>(w.out + off[0]) =
                w.x[0] != nullptr ? *reinterpret_cast<const S *>(w.x[0] + off[2])
                                  : select_value<S>(w.value[0]);
        }
        else {
            *reinterpret_cast<S *>(w.out + off[0]) =
                w.x[1] != nullptr ? *reinterpret_cast<const S *>(w.x[1] + off[3])
                                  : select_value<S>(w.value[1]);
        }
    }
}

template <typename S>
static cudaError_t
select_launch_strided(const da_where *w, cudaStream_t stream)
{
    unsigned int blocks;
    cudaError_t err = grid_blocks(w->size, &blocks);
    if (err != cudaSuccess) {
        return err;
    }
    if (w->size <= INT32_MAX) {
        select_strided_kernel<S, uint32_t><<<blocks, kBlockThreads, 0, stream>>>(*w);
    }
    else {
        select_strided_kernel<S, uint64_t><<<blocks, kBlockThreads, 0, stream>>>(*w);
    }
    return cudaGetLastError();
}

/* Whether every array operand is contiguous over one dimension. */
static bool
select_is_contiguous(const da_where *w)
{
    int k;
    if (w->ndim != 1 || w->strides[0][0] != w->itemsize || w->strides[1][0] != 1) {
        return false;
    }
    for (k = 0; k < 2; k++) {
        if (w->x[k] != nullptr && w->strides[2 + k][0] != w->itemsize) {
            return false;
        }
    }
    return true;
}

template <int Itemsize>
static cudaError_t
select_launch(const da_where *w, cudaStream_t stream)
{
    typedef typename select_bits<Itemsize>::type S;
    return select_is_contiguous(w) ? select_launch_contiguous<S>(w, stream)
                                   : select_launch_strided<S>(w, stream);
}

}  // namespace
}  // namespace da

extern "C" cudaError_t
da_cuda_where(const da_where *w, cudaStream_t stream)
{
    if (w->size <= 0 || w->ndim < 1 || w->ndim > DA_MAXDIMS) {
        return cudaErrorInvalidValue;
    }
    switch (w->itemsize) {
        case 1:
            return da::select_launch<1>(w, stream);
        case 2:
            return da::select_launch<2>(w, stream);
        case 4:
            return da::select_launch<4>(w, stream);
        case 8:
            return da::select_launch<8>(w, stream);
        case 16:
            return da::select_launch<16>(w, stream);
        default:
            return cudaErrorInvalidValue;
    }
}
