/*
 * The host twin of kernels/random.cu: the draws of da_random (launch.h) as
 * a plain C loop over the Philox blocks, each block's elements computed by
 * kernels/random.h, which the CUDA kernels share, so both backends make the
 * same bits (the normals within the last bit of log, sin and cos: see
 * random.h).
 */
#include <stddef.h>
#include <stdint.h>

#include "../../kernels/random.h"

int
da_host_random(const da_random *r)
{
    int64_t j, nblocks, first, itemsize;
    int per, t;

    if (r->n <= 0) {
        return 0;
    }
    if (!da_random_supported(r->kind, r->typenum)) {
        return -1;
    }
    if (r->kind == DA_RANDOM_INT_R32 && (r->range == 0 || r->range > ((uint64_t)1 << 32))) {
        return -1;
    }
    per = 4 / da_random_words(r->kind);
    nblocks = da_random_blocks(r->kind, r->n);
    itemsize = da_itemsize(r->typenum);
    for (j = 0; j < nblocks; j++) {
        da_random_values v = da_random_block(r, r->kind, (uint64_t)j);
        char *p = (char *)r->out + j * per * itemsize;
        first = j * per;
        for (t = 0; t < per && first + t < r->n; t++) {
            da_random_store(r, r->kind, &v, t, p + t * itemsize);
        }
    }
    return 0;
}
