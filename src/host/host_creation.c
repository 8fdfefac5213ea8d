/*
 * The host twin of kernels/creation.cu: arange, linspace and tril/triu as
 * plain C loops over the element functions of kernels/creation.h, which the
 * CUDA kernels share, so the host backend is their reference.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../kernels/creation.h"

int
da_host_range(const da_range *r)
{
    char *p = (char *)r->out;
    int64_t i, itemsize = da_itemsize(r->typenum);

#define HOST_RANGE_LOOP(cls)                          \
    for (i = 0; i < r->n; i++, p += itemsize) {      \
        da_range_store_##cls(r, i, p);                \
    }                                                 \
    break;

    switch (da_class_of(r->typenum)) {
        case DA_CLASS_BOOL:
            if (r->n > 2) {
                return -1;
            }
            HOST_RANGE_LOOP(bool)
        case DA_CLASS_SINT:
            HOST_RANGE_LOOP(sint)
        case DA_CLASS_UINT:
            HOST_RANGE_LOOP(uint)
        case DA_CLASS_F32:
            HOST_RANGE_LOOP(f32)
        case DA_CLASS_F64:
            HOST_RANGE_LOOP(f64)
        case DA_CLASS_C64:
            HOST_RANGE_LOOP(c64)
        default:
            HOST_RANGE_LOOP(c128)
    }
#undef HOST_RANGE_LOOP
    return 0;
}

int
da_host_linspace(const da_linspace *l)
{
    char *p = (char *)l->out;
    int64_t i, itemsize = da_itemsize(l->typenum);

    for (i = 0; i < l->n; i++, p += itemsize) {
        if (l->cplx) {
            da_linspace_store_complex(l, i, p);
        }
        else {
            da_linspace_store_real(l, i, p);
        }
    }
    return 0;
}

int
da_host_tri(const da_tri *t)
{
    const char *in = (const char *)t->in;
    char *out = (char *)t->out;
    int64_t i;

    if (t->itemsize != 1 && t->itemsize != 2 && t->itemsize != 4 &&
        t->itemsize != 8 && t->itemsize != 16) {
        return -1;
    }
    for (i = 0; i < t->n; i++) {
        if (da_tri_keep(t, i)) {
            memcpy(out + i * t->itemsize, in + i * t->itemsize, (size_t)t->itemsize);
        }
        else {
            memset(out + i * t->itemsize, 0, (size_t)t->itemsize);
        }
    }
    return 0;
}
