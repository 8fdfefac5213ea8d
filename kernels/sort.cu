/*
 * da_cuda_sort (kernels/launch.h): sorting on CUB's radix sorts (unique's
 * steps after the sort are kernels/unique.cu).
 *
 * Routes:
 *   - float32/float64 values of one segment (sort() of a flat array, the
 *     case that must keep up with CuPy): one pass copies the input into the
 *     output with every NaN made the canonical quiet NaN (positive, so CUB's
 *     float ordering puts it after +inf; CUB already orders -0.0 with +0.0
 *     and keeps their bits), then cub::DeviceRadixSort::SortKeys(Descending)
 *     sorts the output in place of the copy, ping-ponging with one
 *     temporary buffer.  With 8-bit digits a 32- or 64-bit key takes an
 *     even number of passes and ends in the output, so nothing more moves.
 *   - 4- and 8-byte integer values of one segment: the same, on CUB's
 *     ordering of int32 and int64 only.  The copy XORs every value with a
 *     mask that maps the sort wanted onto an ascending signed one (the
 *     sign bit for unsigned values, all bits inverted for descending: both
 *     are order-preserving or order-reversing bijections), and the same
 *     XOR after the sort maps the values back; a plain signed ascending
 *     sort copies as it is.  So two radix sorts serve eight sorts.  A sort
 *     of values needs no stability.
 *   - bool and 1- and 2-byte integer values of one segment: one pass
 *     widens each value, XORed with a mask (the sign bit of its width for
 *     signed values, all bits for descending), into an int32 key in
 *     [0, 2^bits) in a temporary buffer; the int32 sort above orders the
 *     keys on their low 8 or 16 bits only (one or two digit passes, where
 *     the key-and-index route below would move 12-byte pairs and gather),
 *     and one pass narrows them back into the output with the same XOR.
 *   - everything else: one pass writes each element's ordered unsigned key
 *     (bool/unsigned as is, signed with the sign bit flipped, floats with
 *     the usual sign twiddle, -0.0 as +0.0 and NaN as all ones; complex as
 *     the pair of its parts' keys; all bits inverted when descending) and
 *     its index; a stable radix sort of (key, index) pairs follows, CUB's
 *     DeviceRadixSort for one segment (or once per segment for a few long
 *     ones), DeviceSegmentedSort for many (offsets i * seglen from a
 *     counting iterator); the values, when wanted, are then gathered from
 *     the input by index, bit for bit.
 * Sorts are instantiated per key width (4, 8, 16 bytes; 1- and 2-byte
 * dtypes sort uint32 keys, or int32 keys for their values, on their low
 * bits), not per dtype: three radix pair sorts, two segmented ones, the
 * four float key sorts (ascending and descending) and the two integer ones
 * (which the 1- and 2-byte values share); kernels that only move elements
 * per itemsize.  1.5 MB of machine code for sm_90 (a
 * first cut with a key type per width and a scan per dtype had 2.9 MB).
 * Inverting the key makes a descending sort an ascending one whose ties
 * keep their input order, which is what stable descending means.
 */
#include <stdint.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cuda/std/tuple>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "dispatch.cuh"

namespace da {

/* Temporary blocks are carved at this alignment (CUB wants 256). */
constexpr size_t kTempAlign = 256;

struct key128 {
    uint64_t hi, lo;
};

/* CUB sorts a key128 as the tuple (hi, lo), hi most significant. */
struct key128_decomposer {
    __host__ __device__ ::cuda::std::tuple<uint64_t &, uint64_t &>
    operator()(key128 &key) const
    {
        return {key.hi, key.lo};
    }
};

/* The element type of each itemsize: the kernels that only move elements
   (the gathers) are instantiated per itemsize, not per dtype. */
template <int Itemsize>
struct element_of;
template <>
struct element_of<1> {
    typedef uint8_t type;
};
template <>
struct element_of<2> {
    typedef uint16_t type;
};
template <>
struct element_of<4> {
    typedef uint32_t type;
};
template <>
struct element_of<8> {
    typedef uint64_t type;
};
template <>
struct element_of<16> {
    typedef da_c128 type;
};

/* The ordered key of a float's bits U: NaN all ones, zeros as +0.0. */
template <typename U, U Inf>
__device__ __forceinline__ U
float_key(U bits)
{
    constexpr U sign = (U)((U)1 << (sizeof(U) * 8 - 1));
    const U mag = (U)(bits & (U)~sign);
    if (mag > Inf) {
        return (U)~(U)0;
    }
    if (mag == 0) {
        return sign;
    }
    return (bits & sign) ? (U)~bits : (U)(bits | sign);
}

__device__ __forceinline__ uint32_t
f32_key(float v)
{
    return float_key<uint32_t, 0x7f800000u>(__float_as_uint(v));
}

__device__ __forceinline__ uint64_t
f64_key(double v)
{
    return float_key<uint64_t, 0x7ff0000000000000ull>((uint64_t)__double_as_longlong(v));
}

/* key_of<Typenum>::make(element): the ordered unsigned key of a dtype.
   1- and 2-byte dtypes get a uint32 key whose low 8 or 16 bits order them
   (the radix sort looks at those bits only; inverted high bits are equal
   in every key), so only three key widths are instantiated. */
template <int Typenum>
struct key_of;

#define DA_SORT_KEY(TYPENUM, KEY, EXPR)                         \
    template <>                                                 \
    struct key_of<TYPENUM> {                                    \
        typedef KEY key;                                        \
        typedef typename dtype_traits<TYPENUM>::storage S;      \
        static __device__ __forceinline__ KEY make(const S &v)  \
        {                                                       \
            return EXPR;                                        \
        }                                                       \
    };

DA_SORT_KEY(DA_BOOL, uint32_t, v)
DA_SORT_KEY(DA_UINT8, uint32_t, v)
DA_SORT_KEY(DA_INT8, uint32_t, (uint8_t)v ^ 0x80u)
DA_SORT_KEY(DA_UINT16, uint32_t, v)
DA_SORT_KEY(DA_INT16, uint32_t, (uint16_t)v ^ 0x8000u)
DA_SORT_KEY(DA_FLOAT16, uint32_t, (float_key<uint16_t, 0x7c00u>(v)))
DA_SORT_KEY(DA_UINT32, uint32_t, v)
DA_SORT_KEY(DA_INT32, uint32_t, (uint32_t)v ^ 0x80000000u)
DA_SORT_KEY(DA_FLOAT32, uint32_t, f32_key(v))
DA_SORT_KEY(DA_UINT64, uint64_t, v)
DA_SORT_KEY(DA_INT64, uint64_t, (uint64_t)v ^ 0x8000000000000000ull)
DA_SORT_KEY(DA_FLOAT64, uint64_t, f64_key(v))
DA_SORT_KEY(DA_COMPLEX64, uint64_t, ((uint64_t)f32_key(v.re) << 32) | f32_key(v.im))
DA_SORT_KEY(DA_COMPLEX128, key128, (key128{f64_key(v.re), f64_key(v.im)}))
#undef DA_SORT_KEY

template <typename K>
__device__ __forceinline__ K
invert_key(K key)
{
    return (K)~key;
}

template <>
__device__ __forceinline__ key128
invert_key<key128>(key128 key)
{
    return key128{~key.hi, ~key.lo};
}

/* keys[i], indices[i] = the key of in[i] (inverted when descending), its
   position within its segment. */
template <int Typenum>
static __global__ void __launch_bounds__(kBlockThreads)
make_keys_kernel(const typename dtype_traits<Typenum>::storage *in,
                 typename key_of<Typenum>::key *keys, int64_t *indices, int64_t n,
                 int64_t seglen, int descending)
{
    const int64_t step = (int64_t)gridDim.x * kBlockThreads;
    int64_t i;

    for (i = (int64_t)blockIdx.x * kBlockThreads + threadIdx.x; i < n; i += step) {
        typename key_of<Typenum>::key key = key_of<Typenum>::make(in[i]);
        keys[i] = descending ? invert_key(key) : key;
        indices[i] = seglen == n ? i : i % seglen;
    }
}

/* out[i] = in[the element of out[i]'s segment at indices[i]] */
template <typename S>
static __global__ void __launch_bounds__(kBlockThreads)
gather_kernel(const S *in, const int64_t *indices, S *out, int64_t n, int64_t seglen)
{
    const int64_t step = (int64_t)gridDim.x * kBlockThreads;
    int64_t i;

    for (i = (int64_t)blockIdx.x * kBlockThreads + threadIdx.x; i < n; i += step) {
        out[i] = in[(seglen == n ? 0 : i - i % seglen) + indices[i]];
    }
}

/* out[i] = in[i], NaN as the canonical quiet NaN (positive). */
template <typename F>
static __global__ void __launch_bounds__(kBlockThreads)
canonical_copy_kernel(const F *in, F *out, int64_t n)
{
    const int64_t step = (int64_t)gridDim.x * kBlockThreads;
    int64_t i;

    for (i = (int64_t)blockIdx.x * kBlockThreads + threadIdx.x; i < n; i += step) {
        const F v = in[i];
        out[i] = v != v ? (F)NAN : v;
    }
}

struct segment_offset {
    int64_t seglen;

    __host__ __device__ __forceinline__ int64_t
    operator()(int64_t segment) const
    {
        return segment * seglen;
    }
};

static size_t
align_up(size_t bytes)
{
    return (bytes + kTempAlign - 1) / kTempAlign * kTempAlign;
}

/* The pair sort of keys with int64 values: one segment by radix sort
   (complex128's keys through the decomposer), several by the segmented
   sort.  Sorts the buffers' contents; the result is in d_keys.Current(). */
template <typename K>
static cudaError_t
radix_pairs(void *temp, size_t &bytes, cub::DoubleBuffer<K> &keys,
            cub::DoubleBuffer<int64_t> &values, int64_t n, int end_bit,
            cudaStream_t stream)
{
    return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, n, 0, end_bit,
                                           stream);
}

template <>
cudaError_t
radix_pairs<key128>(void *temp, size_t &bytes, cub::DoubleBuffer<key128> &keys,
                    cub::DoubleBuffer<int64_t> &values, int64_t n, int,
                    cudaStream_t stream)
{
    return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, n,
                                           key128_decomposer{}, stream);
}

/* Up to kMaxLoopedSegments segments of at least kLongSegment elements are
   sorted one device-wide radix sort each: the segmented sort gives a
   segment one block, which leaves most of the GPU idle for a few long rows
   (the same reason reduce.cu loops over a few long segments). */
constexpr int64_t kMaxLoopedSegments = 64;
constexpr int64_t kLongSegment = (int64_t)1 << 16;

static bool
loop_segments(int64_t nsegments, int64_t seglen)
{
    return nsegments <= kMaxLoopedSegments && seglen >= kLongSegment;
}

/* Sort each segment of (keys, values); on return values.Current() holds
   the sorted values of every segment (the keys are spent).  The route
   depends only on the shape, so the sizing call (temp == NULL) and the
   sorting call agree. */
template <typename K>
static cudaError_t
pair_sort(void *temp, size_t &bytes, cub::DoubleBuffer<K> &keys,
          cub::DoubleBuffer<int64_t> &values, int64_t nsegments, int64_t seglen,
          int end_bit, cudaStream_t stream)
{
    const int64_t n = nsegments * seglen;
    if (nsegments == 1) {
        return radix_pairs<K>(temp, bytes, keys, values, n, end_bit, stream);
    }
    if constexpr (sizeof(K) <= 8) {
        if (loop_segments(nsegments, seglen)) {
            int64_t seg;
            for (seg = 0; seg < nsegments; seg++) {
                const int64_t off = seg * seglen;
                cub::DoubleBuffer<K> k(keys.d_buffers[0] + off, keys.d_buffers[1] + off);
                cub::DoubleBuffer<int64_t> v(values.d_buffers[0] + off,
                                             values.d_buffers[1] + off);
                cudaError_t err = radix_pairs<K>(temp, bytes, k, v, seglen, end_bit, stream);
                if (err != cudaSuccess || temp == NULL) {
                    return err;
                }
                if (v.selector != 0) {
                    err = cudaMemcpyAsync(values.d_buffers[0] + off, v.Current(),
                                          (size_t)seglen * sizeof(int64_t),
                                          cudaMemcpyDeviceToDevice, stream);
                    if (err != cudaSuccess) {
                        return err;
                    }
                }
            }
            values.selector = 0;
            return cudaSuccess;
        }
        auto begin = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0),
                                                     segment_offset{seglen});
        return cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, keys, values, n,
                                                         nsegments, begin, begin + 1,
                                                         stream);
    }
    return cudaErrorInvalidValue;
}

/* The key-and-index route (see the top of the file).  Temporary layout:
   keys[2][n], indices[n] (the alternate of the output, or both buffers
   when no indices are wanted), then CUB's storage. */
struct sort_pairs_route {
    void *temp;
    size_t *temp_bytes;
    const da_sort *s;
    cudaStream_t stream;

    template <int Typenum>
    cudaError_t
    run()
    {
        typedef typename key_of<Typenum>::key K;
        typedef typename dtype_traits<Typenum>::storage S;
        const int64_t n = s->nsegments * s->seglen;
        const size_t key_bytes = align_up((size_t)n * sizeof(K));
        const size_t index_bytes = align_up((size_t)n * sizeof(int64_t));
        const size_t own = 2 * key_bytes + (s->indices != NULL ? 1 : 2) * index_bytes;
        char *base = (char *)temp;
        int64_t *index0 = s->indices != NULL ? s->indices : (int64_t *)(base + 2 * key_bytes);
        int64_t *index1 = (int64_t *)(base + 2 * key_bytes +
                                      (s->indices != NULL ? 0 : index_bytes));
        cub::DoubleBuffer<K> keys((K *)base, (K *)(base + key_bytes));
        cub::DoubleBuffer<int64_t> values(index0, index1);
        size_t cub_bytes = 0;
        const int end_bit = (int)(8 * (sizeof(S) < sizeof(K) ? sizeof(S) : sizeof(K)));
        unsigned int blocks;
        cudaError_t err;

        err = pair_sort<K>(NULL, cub_bytes, keys, values, s->nsegments, s->seglen, end_bit,
                           stream);
        if (err != cudaSuccess || temp == NULL) {
            *temp_bytes = own + cub_bytes;
            return err;
        }
        grid_blocks(n, &blocks);
        make_keys_kernel<Typenum><<<blocks, kBlockThreads, 0, stream>>>(
            (const S *)s->in, keys.Current(), values.Current(), n, s->seglen,
            s->descending);
        if ((err = cudaGetLastError()) != cudaSuccess) {
            return err;
        }
        err = pair_sort<K>(base + own, cub_bytes, keys, values, s->nsegments, s->seglen,
                           end_bit, stream);
        if (err != cudaSuccess) {
            return err;
        }
        if (s->indices != NULL && values.Current() != s->indices) {
            err = cudaMemcpyAsync(s->indices, values.Current(), (size_t)n * sizeof(int64_t),
                                  cudaMemcpyDeviceToDevice, stream);
            if (err != cudaSuccess) {
                return err;
            }
        }
        if (s->values != NULL) {
            typedef typename element_of<sizeof(S)>::type E;
            gather_kernel<E><<<blocks, kBlockThreads, 0, stream>>>(
                (const E *)s->in, values.Current(), (E *)s->values, n, s->seglen);
            err = cudaGetLastError();
        }
        return err;
    }
};

/* The float route: sort the canonical copy in place of the output, the
   temporary block holding the alternate buffer and CUB's storage. */
template <typename F>
static cudaError_t
sort_float_values(void *temp, size_t *temp_bytes, const da_sort *s, cudaStream_t stream)
{
    const int64_t n = s->seglen;
    const size_t alt_bytes = align_up((size_t)n * sizeof(F));
    char *base = (char *)temp;
    cub::DoubleBuffer<F> keys((F *)s->values, (F *)base);
    size_t cub_bytes = 0;
    unsigned int blocks;
    cudaError_t err;

    err = s->descending
              ? cub::DeviceRadixSort::SortKeysDescending(NULL, cub_bytes, keys, n, 0,
                                                         (int)(sizeof(F) * 8), stream)
              : cub::DeviceRadixSort::SortKeys(NULL, cub_bytes, keys, n, 0,
                                               (int)(sizeof(F) * 8), stream);
    if (err != cudaSuccess || temp == NULL) {
        *temp_bytes = alt_bytes + cub_bytes;
        return err;
    }
    grid_blocks(n, &blocks);
    canonical_copy_kernel<F><<<blocks, kBlockThreads, 0, stream>>>((const F *)s->in,
                                                                   (F *)s->values, n);
    if ((err = cudaGetLastError()) != cudaSuccess) {
        return err;
    }
    err = s->descending
              ? cub::DeviceRadixSort::SortKeysDescending(base + alt_bytes, cub_bytes, keys,
                                                         n, 0, (int)(sizeof(F) * 8), stream)
              : cub::DeviceRadixSort::SortKeys(base + alt_bytes, cub_bytes, keys, n, 0,
                                               (int)(sizeof(F) * 8), stream);
    if (err == cudaSuccess && keys.Current() != (F *)s->values) {
        err = cudaMemcpyAsync(s->values, keys.Current(), (size_t)n * sizeof(F),
                              cudaMemcpyDeviceToDevice, stream);
    }
    return err;
}

/* out[i] = in[i] ^ mask in E's width, stored as Out: E = In = Out maps the
   integer route's values to and from their keys (sort_integer_values says
   why); In = E to Out = int32 and back widens 1- and 2-byte values to the
   keys of sort_narrow_values and narrows them again. */
template <typename In, typename Out, typename E>
static __global__ void __launch_bounds__(kBlockThreads)
xor_kernel(const In *in, Out *out, int64_t n, E mask)
{
    const int64_t step = (int64_t)gridDim.x * kBlockThreads;
    int64_t i;

#pragma unroll 1
    for (i = (int64_t)blockIdx.x * kBlockThreads + threadIdx.x; i < n; i += step) {
        out[i] = (Out)(E)((E)in[i] ^ mask);
    }
}

/* The integer route: sort a copy of the input in place of the output as
   the float route does, I the signed integer of the dtype's width; the
   temporary block holds the alternate buffer and CUB's storage. */
template <typename I>
static cudaError_t
sort_integer_values(void *temp, size_t *temp_bytes, const da_sort *s, bool is_unsigned,
                    cudaStream_t stream)
{
    const int64_t n = s->seglen;
    const size_t alt_bytes = align_up((size_t)n * sizeof(I));
    /* x ^ sign orders unsigned values as signed ones; ~x reverses */
    const I sign = (I)((uint64_t)1 << (sizeof(I) * 8 - 1));
    const I mask = (I)((is_unsigned ? sign : (I)0) ^ (s->descending ? (I)~(I)0 : (I)0));
    char *base = (char *)temp;
    cub::DoubleBuffer<I> keys((I *)s->values, (I *)base);
    size_t cub_bytes = 0;
    unsigned int blocks;
    cudaError_t err;

    err = cub::DeviceRadixSort::SortKeys(NULL, cub_bytes, keys, n, 0, (int)(sizeof(I) * 8),
                                         stream);
    if (err != cudaSuccess || temp == NULL) {
        *temp_bytes = alt_bytes + cub_bytes;
        return err;
    }
    grid_blocks(n, &blocks);
    if (mask != 0) {
        xor_kernel<I, I, I><<<blocks, kBlockThreads, 0, stream>>>(
            (const I *)s->in, (I *)s->values, n, mask);
        err = cudaGetLastError();
    }
    else {
        err = cudaMemcpyAsync(s->values, s->in, (size_t)n * sizeof(I),
                              cudaMemcpyDeviceToDevice, stream);
    }
    if (err != cudaSuccess) {
        return err;
    }
    err = cub::DeviceRadixSort::SortKeys(base + alt_bytes, cub_bytes, keys, n, 0,
                                         (int)(sizeof(I) * 8), stream);
    if (err == cudaSuccess && keys.Current() != (I *)s->values) {
        err = cudaMemcpyAsync(s->values, keys.Current(), (size_t)n * sizeof(I),
                              cudaMemcpyDeviceToDevice, stream);
    }
    if (err == cudaSuccess && mask != 0) {
        xor_kernel<I, I, I><<<blocks, kBlockThreads, 0, stream>>>(
            (const I *)s->values, (I *)s->values, n, mask);
        err = cudaGetLastError();
    }
    return err;
}

/* The route of 1- and 2-byte integers (bool included), E the unsigned
   element of the width.  Each value XORed with mask becomes an int32 key
   in [0, 2^bits) that orders as the sort wants: the sign bit maps signed
   values onto unsigned order (the opposite of sort_integer_values, whose
   keys are signed), all bits reverse it.  The int32 sort that
   sort_integer_values<int32_t> instantiates orders the keys on their low
   bits only, one or two digit passes: CUB flips the int32 sign bit, but
   it and every other high bit are the same in all keys.  Equal integers
   are indistinguishable, so neither stability nor an index is needed.
   The temporary block holds the two key buffers, then CUB's storage. */
template <typename E>
static cudaError_t
sort_narrow_values(void *temp, size_t *temp_bytes, const da_sort *s, bool is_signed,
                   cudaStream_t stream)
{
    const int64_t n = s->seglen;
    const size_t key_bytes = align_up((size_t)n * sizeof(int32_t));
    const int end_bit = (int)(8 * sizeof(E));
    const E sign = (E)(1u << (end_bit - 1));
    const E mask = (E)((is_signed ? sign : (E)0) ^ (s->descending ? (E)~(E)0 : (E)0));
    char *base = (char *)temp;
    cub::DoubleBuffer<int32_t> keys((int32_t *)base, (int32_t *)(base + key_bytes));
    size_t cub_bytes = 0;
    unsigned int blocks;
    cudaError_t err;

    err = cub::DeviceRadixSort::SortKeys(NULL, cub_bytes, keys, n, 0, end_bit, stream);
    if (err != cudaSuccess || temp == NULL) {
        *temp_bytes = 2 * key_bytes + cub_bytes;
        return err;
    }
    grid_blocks(n, &blocks);
    xor_kernel<E, int32_t, E><<<blocks, kBlockThreads, 0, stream>>>(
        (const E *)s->in, keys.Current(), n, mask);
    if ((err = cudaGetLastError()) != cudaSuccess) {
        return err;
    }
    err = cub::DeviceRadixSort::SortKeys(base + 2 * key_bytes, cub_bytes, keys, n, 0,
                                         end_bit, stream);
    if (err != cudaSuccess) {
        return err;
    }
    xor_kernel<int32_t, E, E><<<blocks, kBlockThreads, 0, stream>>>(
        keys.Current(), (E *)s->values, n, mask);
    return cudaGetLastError();
}

}  // namespace da

extern "C" cudaError_t
da_cuda_sort(void *temp, size_t *temp_bytes, const da_sort *s, cudaStream_t stream)
{
    if (s->values != NULL && s->indices == NULL && s->nsegments == 1) {
        if (s->typenum == DA_FLOAT32) {
            return da::sort_float_values<float>(temp, temp_bytes, s, stream);
        }
        if (s->typenum == DA_FLOAT64) {
            return da::sort_float_values<double>(temp, temp_bytes, s, stream);
        }
        if (s->typenum == DA_INT32 || s->typenum == DA_UINT32) {
            return da::sort_integer_values<int32_t>(temp, temp_bytes, s,
                                                    s->typenum == DA_UINT32, stream);
        }
        if (s->typenum == DA_INT64 || s->typenum == DA_UINT64) {
            return da::sort_integer_values<int64_t>(temp, temp_bytes, s,
                                                    s->typenum == DA_UINT64, stream);
        }
        if (s->typenum == DA_BOOL || s->typenum == DA_INT8 || s->typenum == DA_UINT8) {
            return da::sort_narrow_values<uint8_t>(temp, temp_bytes, s,
                                                   s->typenum == DA_INT8, stream);
        }
        if (s->typenum == DA_INT16 || s->typenum == DA_UINT16) {
            return da::sort_narrow_values<uint16_t>(temp, temp_bytes, s,
                                                    s->typenum == DA_INT16, stream);
        }
    }
    if ((s->typenum == DA_COMPLEX64 || s->typenum == DA_COMPLEX128) && s->nsegments != 1) {
        return cudaErrorInvalidValue;
    }
    da::sort_pairs_route route{temp, temp_bytes, s, stream};
    return da::dispatch_dtype(s->typenum, route);
}
