/*
 * The host backend of where(): da_host_where (kernels/launch.h) as plain C
 * loops, and the reference for kernels/select.cu.
 *
 * Elements are moved as bits, by a fixed-size memmove per itemsize (a
 * plain load and store once compiled; memmove because out may be x2
 * itself, in place, which memcpy leaves undefined), so NaN payloads and
 * signed zeros pass unchanged.  A scalar operand is read from its value
 * bytes with stride 0, so one loop serves arrays and scalars.  The
 * innermost dimension is a plain loop; the outer ones advance like an
 * odometer carrying byte offsets, as host_kernels.c's strided loop does.
 * Holds no memory.
 */
#include <stdint.h>
#include <string.h>

#include "../../kernels/launch.h"

/* out[i] = cond[i] ? x1[i] : x2[i] over n elements of S bytes, with byte
   strides st[4] (out, cond, x1, x2). */
#define HOST_SELECT_DEFINE_ROW(S)                                                 \
    static void host_select_row_##S(char *out, const char *cond, const char *x1, \
                                    const char *x2, int64_t n, const int64_t *st) \
    {                                                                             \
        int64_t i;                                                                \
        if (st[0] == S && st[1] == 1 && st[2] == S && st[3] == S) {               \
            for (i = 0; i < n; i++) {                                             \
                memmove(out + i * S, cond[i] ? x1 + i * S : x2 + i * S, S);       \
            }                                                                     \
            return;                                                               \
        }                                                                         \
        for (i = 0; i < n; i++) {                                                 \
            memmove(out + i * st[0], cond[i * st[1]] ? x1 + i * st[2] : x2 + i * st[3], \
                   S);                                                            \
        }                                                                         \
    }
HOST_SELECT_DEFINE_ROW(1)
HOST_SELECT_DEFINE_ROW(2)
HOST_SELECT_DEFINE_ROW(4)
HOST_SELECT_DEFINE_ROW(8)
HOST_SELECT_DEFINE_ROW(16)
#undef HOST_SELECT_DEFINE_ROW

typedef void (*host_select_row_fn)(char *, const char *, const char *, const char *,
                                   int64_t, const int64_t *);

static host_select_row_fn
host_select_row_of(int itemsize)
{
    switch (itemsize) {
        case 1:
            return host_select_row_1;
        case 2:
            return host_select_row_2;
        case 4:
            return host_select_row_4;
        case 8:
            return host_select_row_8;
        case 16:
            return host_select_row_16;
        default:
            return NULL;
    }
}

/* Whether operand k (out, cond, x1, x2) is an array rather than a value. */
#define HOST_SELECT_IS_ARRAY(w, k) ((k) < 2 || (w)->x[(k) - 2] != NULL)

int
da_host_where(const da_where *w)
{
    const host_select_row_fn row = host_select_row_of(w->itemsize);
    const int last = w->ndim - 1;
    const char *base[4];
    int64_t inner[4], off[4] = {0, 0, 0, 0}, index[DA_MAXDIMS];
    int64_t rows, r;
    int k, d;

    if (row == NULL || w->ndim < 1 || w->ndim > DA_MAXDIMS || w->size <= 0) {
        return -1;
    }
    base[0] = w->out;
    base[1] = w->cond;
    for (k = 0; k < 2; k++) {
        base[2 + k] = w->x[k] != NULL ? w->x[k] : (const char *)w->value[k].bytes;
    }
    for (k = 0; k < 4; k++) {
        inner[k] = HOST_SELECT_IS_ARRAY(w, k) ? w->strides[k][last] : 0;
    }
    memset(index, 0, sizeof(index));
    rows = w->size / w->shape[last];
    for (r = 0; r < rows; r++) {
        row(w->out + off[0], base[1] + off[1], base[2] + off[2], base[3] + off[3],
            w->shape[last], inner);
        /* the odometer over the outer dimensions; scalars stay put */
        for (d = last - 1; d >= 0; d--) {
            for (k = 0; k < 4; k++) {
                if (HOST_SELECT_IS_ARRAY(w, k)) {
                    off[k] += w->strides[k][d];
                }
            }
            if (++index[d] < w->shape[d]) {
                break;
            }
            for (k = 0; k < 4; k++) {
                if (HOST_SELECT_IS_ARRAY(w, k)) {
                    off[k] -= w->strides[k][d] * w->shape[d];
                }
            }
            index[d] = 0;
        }
    }
    return 0;
}
