/*
 * The transposing route of the elementwise launchers, shared by
 * kernels/transpose.cuh (the tiled CUDA kernels) and src/host/host_kernels.c
 * (their host twin, blocked loops): which problems take it.
 *
 * A problem transposes when, after the core's merging (the output's
 * fastest axis last, elementwise.c), it is 2-D or a batch of 2-D problems
 * (ndim 2 or 3), the output is dense along the columns (the last axis)
 * and some array input is dense along the rows instead: walking either
 * one in the other's order strides through memory.  The rows are axis
 * ndim - 2, or for a 3-D problem whose inputs are not dense along it, axis
 * 0 (`permute_dims(t, (2, 1, 0))`), the middle axis then the batch.  A
 * tile of DA_TILE x DA_TILE elements is read along the rows for those
 * inputs and written along the columns, through shared memory on the GPU,
 * so both sides stay coalesced.  Extents under one tile are left to the
 * strided route.
 */
#ifndef DEVARRAY_KERNELS_TRANSPOSE_H_
#define DEVARRAY_KERNELS_TRANSPOSE_H_

#include "launch.h"

#define DA_TILE 32

/* Whether input k of e (an array) is dense along axis rd (the rows) and
   not along the columns: it is read through the tile. */
static inline int
da_tile_transposed_input(const da_elementwise *e, int k, int rd)
{
    const da_operand *in = &e->in[k];
    const int64_t size = da_itemsize(in->typenum);
    return in->data != NULL && in->strides[rd] == size && in->strides[e->ndim - 1] != size;
}

/* Whether e transposes with its rows along axis rd (see above). */
static inline int
da_tile_transposes_along(const da_elementwise *e, int rd)
{
    int k, any = 0;

    if (e->shape[e->ndim - 1] < DA_TILE || e->shape[rd] < DA_TILE ||
        e->out.strides[e->ndim - 1] != da_itemsize(e->out.typenum)) {
        return 0;
    }
    for (k = 0; k < e->nin; k++) {
        any = any || da_tile_transposed_input(e, k, rd);
    }
    return any;
}

/* The axis of e's tile rows when e takes the transposing route, else -1. */
static inline int
da_tile_rows_axis(const da_elementwise *e)
{
    if (e->ndim < 2 || e->ndim > 3) {
        return -1;
    }
    if (da_tile_transposes_along(e, e->ndim - 2)) {
        return e->ndim - 2;
    }
    return e->ndim == 3 && da_tile_transposes_along(e, 0) ? 0 : -1;
}

#endif /* DEVARRAY_KERNELS_TRANSPOSE_H_ */
