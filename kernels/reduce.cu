/*
 * da_cuda_reduce (kernels/launch.h): checks the request and hands it to
 * the unit of its op (reduce.cuh describes the routes; reduce_sum.cu,
 * reduce_prod.cu and reduce_minmax.cu instantiate them).  Also the ordered
 * reductions' grid and second step for the run-time compiler's fused
 * reductions (src/runtime/jit.c).
 */
#include "reduce.cuh"

extern "C" cudaError_t
da_cuda_reduce(void *temp, size_t *temp_bytes, const da_reduce *r, cudaStream_t stream)
{
    if (temp_bytes == nullptr || r == nullptr ||
        !da_reduce_supported(r->op, r->in_typenum, r->acc_typenum) || r->outer < 1 ||
        r->len < 1 || r->inner < 1) {
        return cudaErrorInvalidValue;
    }
    switch (r->op) {
        case DA_REDUCE_SUM:
            return da::reduce_run_sum(temp, temp_bytes, r, stream);
        case DA_REDUCE_PROD:
            return da::reduce_run_prod(temp, temp_bytes, r, stream);
        default:
            return da::reduce_run_minmax(temp, temp_bytes, r, stream);
    }
}

extern "C" int64_t
da_ordered_blocks(int64_t n)
{
    return da::ordered_blocks(n);
}

namespace da {
namespace {

template <int Op, int Cls>
cudaError_t
reduce_finish(const void *partials, int64_t nblocks, void *out, cudaStream_t stream)
{
    typedef typename class_traits<Cls>::type A;
    return ordered_finish(static_cast<const A *>(partials), nblocks, reduce_op<Op, Cls>(),
                          ordered_store<A>{static_cast<A *>(out)}, stream);
}

}  // namespace
}  // namespace da

extern "C" cudaError_t
da_cuda_reduce_finish(const void *partials, int64_t nblocks, int op, int acc_typenum,
                      void *out, cudaStream_t stream)
{
    const bool f64 = acc_typenum == DA_FLOAT64;

    if (!da_reduce_in_order(op, acc_typenum) || acc_typenum == DA_FLOAT16 || nblocks < 1) {
        return cudaErrorInvalidValue;
    }
    if (op == DA_REDUCE_SUM) {
        return f64 ? da::reduce_finish<DA_REDUCE_SUM, DA_CLASS_F64>(partials, nblocks, out, stream)
                   : da::reduce_finish<DA_REDUCE_SUM, DA_CLASS_F32>(partials, nblocks, out, stream);
    }
    return f64 ? da::reduce_finish<DA_REDUCE_PROD, DA_CLASS_F64>(partials, nblocks, out, stream)
               : da::reduce_finish<DA_REDUCE_PROD, DA_CLASS_F32>(partials, nblocks, out, stream);
}
