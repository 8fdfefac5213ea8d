/*
 * The elementwise kernels of the float64 class: one
 * translation unit of the plan in elementwise.cu.
 */
#include "elementwise.cuh"

cudaError_t
da::elementwise_f64(int op, int cls, const da_elementwise *e, cudaStream_t stream)
{
    return run_classes<DA_CLASS_F64>(op, cls, e, stream);
}
