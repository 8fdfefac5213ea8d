/*
 * The host backend of indexing by arrays: da_host_gather,
 * da_host_count_true, da_host_select_flagged and da_host_nonzero
 * (kernels/launch.h) as plain C loops, and the reference for
 * kernels/gather.cu.
 *
 * Elements are moved as bytes (a fixed-size memcpy per itemsize), never
 * interpreted, so every dtype of one size shares a loop.  Dense elements
 * are visited in order, so a scatter with repeated indices keeps the last
 * value, as NumPy does.  Holds no memory.
 */
#include <stdint.h>
#include <string.h>

#include "../../kernels/launch.h"

/* Whether dense element i addresses a source element, at byte offset
   *offset (which may be negative: views with negative strides); 0, with
   *g->bad set, where an index is out of bounds.  coord is the odometer of
   i over g->shape, kept by the caller. */
static int
host_gather_offset(const da_gather *g, const int64_t *coord, int64_t i, int64_t *offset)
{
    const int64_t b = g->bsize > 0 ? (i / g->post) % g->bsize : 0;
    int64_t off = 0;
    int d, k;

    for (d = 0; d < g->ndim; d++) {
        off += coord[d] * g->src_strides[d];
    }
    for (k = 0; k < g->nidx; k++) {
        int64_t v = g->idx[k][b];
        if (v < 0 && !(g->unsigned_mask >> k & 1u)) {
            v += g->extent[k];
        }
        if (v < 0 || v >= g->extent[k]) {
            *g->bad = k + 1;
            return 0;
        }
        off += v * g->axis_stride[k];
    }
    *offset = off;
    return 1;
}

static int
host_gather_check(const da_gather *g)
{
    int64_t b;
    int k;

    for (k = 0; k < g->nidx; k++) {
        for (b = 0; b < g->bsize; b++) {
            const int64_t v = g->idx[k][b];
            if (v < ((g->unsigned_mask >> k & 1u) ? 0 : -g->extent[k]) ||
                v >= g->extent[k]) {
                *g->bad = k + 1;
                return 0;
            }
        }
    }
    return 0;
}

int
da_host_gather(int mode, const da_gather *g)
{
    const size_t itemsize = (size_t)g->itemsize;
    int64_t coord[DA_MAXDIMS];
    int64_t i;
    int d;

    if (g->nidx < 1 || g->nidx > DA_MAXDIMS || g->ndim < 0 || g->ndim > DA_MAXDIMS ||
        (itemsize != 1 && itemsize != 2 && itemsize != 4 && itemsize != 8 &&
         itemsize != 16)) {
        return -1;
    }
    if (mode == DA_GATHER_CHECK) {
        return host_gather_check(g);
    }
    if (mode != DA_GATHER_READ && mode != DA_GATHER_WRITE) {
        return -1;
    }
    if (mode == DA_GATHER_WRITE && *g->bad != 0) {
        return 0;
    }
    memset(coord, 0, sizeof(coord));
    for (i = 0; i < g->size; i++) {
        int64_t off = 0;
        if (host_gather_offset(g, coord, i, &off)) {
            char *dense = g->dense + (size_t)i * itemsize;
            if (mode == DA_GATHER_READ) {
                memcpy(dense, g->src + off, itemsize);
            }
            else {
                memcpy(g->src + off, dense, itemsize);
            }
        }
        for (d = g->ndim - 1; d >= 0; d--) {
            if (++coord[d] < g->shape[d]) {
                break;
            }
            coord[d] = 0;
        }
    }
    return 0;
}

int
da_host_count_true(const uint8_t *flags, int64_t n, int64_t *count)
{
    int64_t i, c = 0;

    for (i = 0; i < n; i++) {
        c += flags[i] != 0;
    }
    *count = c;
    return 0;
}

int
da_host_select_flagged(const void *in, int itemsize, const uint8_t *flags, int64_t n,
                       void *out)
{
    const char *src = (const char *)in;
    char *dst = (char *)out;
    int64_t i;

    if (itemsize != 1 && itemsize != 2 && itemsize != 4 && itemsize != 8 &&
        itemsize != 16) {
        return -1;
    }
    for (i = 0; i < n; i++) {
        if (flags[i]) {
            memcpy(dst, src + i * itemsize, (size_t)itemsize);
            dst += itemsize;
        }
    }
    return 0;
}

int
da_host_nonzero(const da_nonzero *z)
{
    int64_t coord[DA_MAXDIMS];
    int64_t i, j = 0;
    int d;

    if (z->ndim < 1 || z->ndim > DA_MAXDIMS) {
        return -1;
    }
    memset(coord, 0, sizeof(coord));
    for (i = 0; i < z->n && j < z->count; i++) {
        if (z->flags[i]) {
            for (d = 0; d < z->ndim; d++) {
                z->out[d][j] = coord[d];
            }
            j++;
        }
        for (d = z->ndim - 1; d >= 0; d--) {
            if (++coord[d] < z->shape[d]) {
                break;
            }
            coord[d] = 0;
        }
    }
    return 0;
}
