/*
 * da_cuda_sum (kernels/launch.h): segmented sums with CUB.
 *
 * Each element is converted to the accumulator class on the fly by
 * da_load_<class> (ops.h) and added by da_<class>_add, so integers wrap and
 * complex values add as the host backend does; nothing is staged in memory.
 *   - one segment: cub::DeviceReduce::TransformReduce on the raw pointer,
 *     which keeps CUB's vectorised loads (a transform iterator would not);
 *   - a few long segments: the same, once per segment, since a segmented
 *     reduction gives each segment a single block;
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
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "dispatch.cuh"

namespace da {

/* Up to this many segments, each of at least kLongSegment elements per
   segment summed, one whole-device reduction per segment beats one block
   per segment. */
constexpr int64_t kMaxLoopedSegments = 32;
constexpr int64_t kLongSegment = (int64_t)1 << 18;

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
