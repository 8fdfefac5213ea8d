/*
 * The elementwise kernels of the float32 class (float16 and float32): one
 * translation unit of the plan in elementwise.cu.
 */
#include "elementwise.cuh"

cudaError_t
da::elementwise_f32(int op, int cls, const da_elementwise *e, cudaStream_t stream)
{
    return run_classes<DA_CLASS_F32>(op, cls, e, stream);
}
