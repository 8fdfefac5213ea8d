/*
 * The prod unit of the reduction engine (reduce.cuh): every input dtype's
 * routes with op PROD.
 */
#include "reduce.cuh"

namespace da {

cudaError_t
reduce_run_prod(void *temp, size_t *temp_bytes, const da_reduce *r, cudaStream_t stream)
{
    reduce_launcher<DA_REDUCE_PROD> launcher = {temp, temp_bytes, r, stream};
    return dispatch_dtype(r->in_typenum, launcher);
}

}  // namespace da
