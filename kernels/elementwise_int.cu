/*
 * The elementwise kernels of the bool and integer classes: one
 * translation unit of the plan in elementwise.cu.
 */
#include "elementwise.cuh"

cudaError_t
da::elementwise_int(int op, int cls, const da_elementwise *e, cudaStream_t stream)
{
    return run_classes<DA_CLASS_BOOL, DA_CLASS_SINT, DA_CLASS_UINT>(op, cls, e, stream);
}
