/*
 * The elementwise kernels of the complex classes: one
 * translation unit of the plan in elementwise.cu.
 */
#include "elementwise.cuh"

cudaError_t
da::elementwise_complex(int op, int cls, const da_elementwise *e, cudaStream_t stream)
{
    return run_classes<DA_CLASS_C64, DA_CLASS_C128>(op, cls, e, stream);
}
