/*
 * The transposing route of the elementwise launchers, shared by
 * kernels/transpose.cuh (the tiled CUDA kernels) and src/host/host_kernels.c
 * (their host twin, blocked loops): which problems take it.
 *
 * A problem transposes when, after the core's merging (the output's
 * fastest axis last, elementwise.c), it is 2-D or a batch of 2-D problems
 * (ndim 2 or 3: batch, rows, columns), the output is dense along the
 * columns and some array input is dense along the rows instead: walking
 * either one in the other's order strides through memory.  A tile of
 * DA_TILE x DA_TILE elements is then read along the rows for those inputs
 * and written along the columns, through shared memory on the GPU, so
 * both sides stay coalesced.  Extents under one tile are left to the
 * strided route.
 */
#ifndef DEVARRAY_KERNELS_TRANSPOSE_H_
#define DEVARRAY_KERNELS_TRANSPOSE_H_

#include "launch.h"

#define DA_TILE 32

/* Whether input k of e (an array) is dense along the rows (axis ndim - 2)
   and not along the columns: it is read through the tile. */
static inline int
da_tile_transposed_input(const da_elementwise *e, int k)
{
    const da_operand *in = &e->in[k];
    const int64_t size = da_itemsize(in->typenum);
    return in->data != NULL && in->strides[e->ndim - 2] == size &&
           in->strides[e->ndim - 1] != size;
}

/* Whether e takes the transposing route (see above). */
static inline int
da_tile_route(const da_elementwise *e)
{
    int k, any = 0;

    if (e->ndim < 2 || e->ndim > 3 || e->shape[e->ndim - 1] < DA_TILE ||
        e->shape[e->ndim - 2] < DA_TILE ||
        e->out.strides[e->ndim - 1] != da_itemsize(e->out.typenum)) {
        return 0;
    }
    for (k = 0; k < e->nin; k++) {
        any = any || da_tile_transposed_input(e, k);
    }
    return any;
}

#endif /* DEVARRAY_KERNELS_TRANSPOSE_H_ */
