/*
 * The sum unit of the reduction engine (reduce.cuh): every input dtype's
 * routes with op SUM.
 */
#include "reduce.cuh"

namespace da {

cudaError_t
reduce_run_sum(void *temp, size_t *temp_bytes, const da_reduce *r, cudaStream_t stream)
{
    reduce_launcher<DA_REDUCE_SUM> launcher = {temp, temp_bytes, r, stream};
    return dispatch_dtype(r->in_typenum, launcher);
}

}  // namespace da
