/*
 * da_cuda_reduce (kernels/launch.h): checks the request and hands it to
 * the unit of its op (reduce.cuh describes the routes; reduce_sum.cu,
 * reduce_prod.cu and reduce_minmax.cu instantiate them).
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
