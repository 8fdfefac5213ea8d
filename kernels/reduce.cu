/*
 * da_cuda_sum (kernels/launch.h): segmented sums.
 *
 * Each element is converted to the accumulator class on the fly by
 * da_load_<class> (ops.h) and added by da_<class>_add, so integers wrap and
 * complex values add as the host backend does; nothing is staged in memory.
 * The route follows the segment shape:
 *   - one segment: cub::DeviceReduce::TransformReduce on the raw pointer,
 *     which keeps CUB's vectorised loads (a transform iterator would not);
 *   - a few long segments: the same, once per segment, since a segmented
 *     reduction gives each segment a single block;
 *   - short segments: one thread per segment up to kThreadSegment
 *     elements, one warp per segment up to kWarpSegment (CUB's block per
 *     segment does too little per block there: 2^24 segments of 16 floats
 *     took 15 ms on an H200, 0.6 ms this way);
 *   - otherwise cub::DeviceSegmentedReduce over a transform iterator, with
 *     offsets i * seglen computed from a counting iterator (no offset
 *     arrays).
 * The route depends only on nsegments and seglen, so the sizing call
 * (temp == NULL) and the computing call agree.  Element counts are 64-bit
 * throughout.
 */
#include <stdint.h>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "dispatch.cuh"

namespace da {

/* Up to kMaxLoopedSegments segments of at least nsegments * kLongSegment
   elements each, one whole-device reduction per segment beats CUB's one
   block per segment (on an H200, 64 x 2^22 floats: 0.61 ms against
   1.2 ms). */
constexpr int64_t kMaxLoopedSegments = 128;
constexpr int64_t kLongSegment = (int64_t)1 << 15;
/* One thread per segment up to this length, loading kThreadBatch elements
   (one 32-byte sector of float32) at a time; one warp up to kWarpSegment. */
constexpr int kThreadSegment = 32;
constexpr int kThreadBatch = 8;
constexpr int64_t kWarpSegment = 4096;
constexpr int kWarpThreads = 32;
/* independent partial sums per lane in the warp kernel, to keep loads in
   flight */
constexpr int kWarpPartials = 4;

/* An input element (storage of dtype Typenum) as a value of class Cls. */
template <int Typenum, int Cls>
struct to_accumulator {
    typedef typename dtype_traits<Typenum>::storage S;
    typedef typename class_traits<Cls>::type A;

    __host__ __device__ __forceinline__ A
    operator()(const S &value) const
    {
        return class_traits<Cls>::load(&value, Typenum);
    }
};

template <int Cls>
struct add_values {
    typedef typename class_traits<Cls>::type A;

    __host__ __device__ __forceinline__ A
    operator()(const A &a, const A &b) const
    {
        return class_traits<Cls>::add(a, b);
    }
};

struct segment_start {
    int64_t seglen;

    __host__ __device__ __forceinline__ int64_t
    operator()(int64_t segment) const
    {
        return segment * seglen;
    }
};

/* One thread per segment of at most kThreadSegment elements, added in
   order; each batch's loads are issued before its additions. */
template <int Typenum, int Cls>
static __global__ void __launch_bounds__(kBlockThreads)
segment_per_thread_kernel(const typename dtype_traits<Typenum>::storage *in,
                          typename class_traits<Cls>::type *out, int64_t nsegments,
                          int seglen)
{
    typedef typename class_traits<Cls>::type A;
    const to_accumulator<Typenum, Cls> convert;
    const add_values<Cls> add;
    const int64_t step = (int64_t)gridDim.x * kBlockThreads;
    int64_t s;

    for (s = (int64_t)blockIdx.x * kBlockThreads + threadIdx.x; s < nsegments; s += step) {
        const typename dtype_traits<Typenum>::storage *p = in + s * seglen;
        A sum = A();
        int j0;
        for (j0 = 0; j0 < seglen; j0 += kThreadBatch) {
            A values[kThreadBatch];
#pragma unroll
            for (int j = 0; j < kThreadBatch; j++) {
                values[j] = j0 + j < seglen ? convert(p[j0 + j]) : A();
            }
#pragma unroll
            for (int j = 0; j < kThreadBatch; j++) {
                if (j0 + j < seglen) {
                    sum = add(sum, values[j]);
                }
            }
        }
        out[s] = sum;
    }
}

/* One warp per segment of at most kWarpSegment elements: coalesced loads
   into kWarpPartials sums per lane, then a tree across the warp. */
template <int Typenum, int Cls>
static __global__ void __launch_bounds__(kBlockThreads)
segment_per_warp_kernel(const typename dtype_traits<Typenum>::storage *in,
                        typename class_traits<Cls>::type *out, int64_t nsegments,
                        int64_t seglen)
{
    typedef typename class_traits<Cls>::type A;
    typedef cub::WarpReduce<A> warp_reduce;
    constexpr int kWarps = kBlockThreads / kWarpThreads;
    constexpr int64_t kStride = (int64_t)kWarpThreads * kWarpPartials;
    __shared__ typename warp_reduce::TempStorage scratch[kWarps];
    const to_accumulator<Typenum, Cls> convert;
    const add_values<Cls> add;
    const int warp = threadIdx.x / kWarpThreads;
    const int lane = threadIdx.x % kWarpThreads;
    const int64_t step = (int64_t)gridDim.x * kWarps;
    int64_t s;

    /* s is the same for the whole warp, so the warp stays converged */
    for (s = (int64_t)blockIdx.x * kWarps + warp; s < nsegments; s += step) {
        const typename dtype_traits<Typenum>::storage *p = in + s * seglen;
        A partial[kWarpPartials];
        A sum;
        int64_t j;
#pragma unroll
        for (int k = 0; k < kWarpPartials; k++) {
            partial[k] = A();
        }
        for (j = lane; j + (kWarpPartials - 1) * kWarpThreads < seglen; j += kStride) {
#pragma unroll
            for (int k = 0; k < kWarpPartials; k++) {
                partial[k] = add(partial[k], convert(p[j + k * kWarpThreads]));
            }
        }
        for (; j < seglen; j += kWarpThreads) {
            partial[0] = add(partial[0], convert(p[j]));
        }
        sum = partial[0];
#pragma unroll
        for (int k = 1; k < kWarpPartials; k++) {
            sum = add(sum, partial[k]);
        }
        sum = warp_reduce(scratch[warp]).Reduce(sum, add);
        if (lane == 0) {
            out[s] = sum;
        }
    }
}

template <int Typenum, int Cls>
static cudaError_t
launch_short_segments(const typename dtype_traits<Typenum>::storage *in,
                      typename class_traits<Cls>::type *out, int64_t nsegments,
                      int64_t seglen, cudaStream_t stream)
{
    unsigned int blocks;
    cudaError_t err;

    if (seglen <= kThreadSegment) {
        err = grid_blocks(nsegments, &blocks);
        if (err != cudaSuccess) {
            return err;
        }
        segment_per_thread_kernel<Typenum, Cls>
            <<<blocks, kBlockThreads, 0, stream>>>(in, out, nsegments, (int)seglen);
    }
    else {
        err = grid_blocks(nsegments * kWarpThreads, &blocks);
        if (err != cudaSuccess) {
            return err;
        }
        segment_per_warp_kernel<Typenum, Cls>
            <<<blocks, kBlockThreads, 0, stream>>>(in, out, nsegments, seglen);
    }
    return cudaGetLastError();
}

template <int Typenum, int Cls>
static cudaError_t
sum_typed(void *temp, size_t *temp_bytes, const void *in, void *out,
          int64_t nsegments, int64_t seglen, cudaStream_t stream)
{
    typedef typename dtype_traits<Typenum>::storage S;
    typedef typename class_traits<Cls>::type A;
    const S *src = static_cast<const S *>(in);
    A *dst = static_cast<A *>(out);
    const A zero = A();
    cudaError_t err = cudaSuccess;

    if (nsegments == 1 ||
        (nsegments <= kMaxLoopedSegments && seglen >= nsegments * kLongSegment)) {
        int64_t s;
        size_t bytes = *temp_bytes;
        for (s = 0; s < nsegments && err == cudaSuccess; s++) {
            err = cub::DeviceReduce::TransformReduce(
                temp, bytes, src + s * seglen, dst + s, seglen,
                add_values<Cls>(), to_accumulator<Typenum, Cls>(), zero, stream);
            if (temp == nullptr) {
                *temp_bytes = bytes;
                break;
            }
        }
    }
    else if (seglen <= kWarpSegment) {
        if (temp == nullptr) {
            *temp_bytes = 1; /* none needed, but a size of 0 invites a NULL */
        }
        else {
            err = launch_short_segments<Typenum, Cls>(src, dst, nsegments, seglen, stream);
        }
    }
    else {
        auto values = thrust::make_transform_iterator(src, to_accumulator<Typenum, Cls>());
        auto starts = thrust::make_transform_iterator(
            thrust::counting_iterator<int64_t>(0), segment_start{seglen});
        err = cub::DeviceSegmentedReduce::Reduce(temp, *temp_bytes, values, dst, nsegments,
                                                 starts, starts + 1, add_values<Cls>(),
                                                 zero, stream);
    }
    if (temp != nullptr) {
        /* CUB peeks at launch errors; take any pending one so it is
           reported here and not by an unrelated later launch */
        cudaError_t last = cudaGetLastError();
        if (err == cudaSuccess) {
            err = last;
        }
    }
    return err;
}

/* run<typenum>() for the input dtype; the accumulator class follows from
   it (da_sum_supported has checked the pair). */
struct sum_launcher {
    void *temp;
    size_t *temp_bytes;
    const void *in;
    void *out;
    int64_t nsegments, seglen;
    cudaStream_t stream;

    template <int Typenum>
    cudaError_t
    run() const
    {
        constexpr int in_cls = dtype_traits<Typenum>::cls;
        constexpr int acc_cls = in_cls == DA_CLASS_BOOL ? DA_CLASS_SINT : in_cls;
        return sum_typed<Typenum, acc_cls>(temp, temp_bytes, in, out, nsegments, seglen,
                                           stream);
    }
};

}  // namespace da

extern "C" cudaError_t
da_cuda_sum(void *temp, size_t *temp_bytes, const void *in, int in_typenum, void *out,
            int acc_typenum, int64_t nsegments, int64_t seglen, cudaStream_t stream)
{
    if (temp_bytes == nullptr || !da_sum_supported(in_typenum, acc_typenum) ||
        nsegments < 1 || seglen < 1) {
        return cudaErrorInvalidValue;
    }
    da::sum_launcher launcher = {temp, temp_bytes, in, out, nsegments, seglen, stream};
    return da::dispatch_dtype(in_typenum, launcher);
}
