/*
 * The host twins of kernels/sort.cu (kernels/launch.h: da_sort,
 * da_unique): a stable bottom-up merge sort of each segment's indices
 * under the dtype's order, then the values moved bit for bit; unique's two
 * steps as plain loops.
 *
 * The order is the one launch.h states: NaN greater than every number,
 * -0.0 equal to +0.0, complex lexicographic by parts.  A merge takes from
 * the right run only when its element is strictly less, which is what
 * keeps the sort stable; descending swaps the operands of "less", so ties
 * still keep their input order.
 */
#include "base/common.h"

#include <string.h>

/* less(base, i, j): element i of base before element j, ascending. */
typedef int (*host_sort_less_fn)(const char *base, int64_t i, int64_t j);
/* same(base, i, j): value equality of elements i and j. */
typedef int (*host_sort_same_fn)(const char *base, int64_t i, int64_t j);

#define HOST_SORT_FLOAT_LESS(a, b) ((a) < (b) || ((b) != (b) && (a) == (a)))

#define HOST_SORT_INT_LESS(a, b) ((a) < (b))

#define HOST_SORT_PLAIN(NAME, T, LESS)                                         \
    static int host_sort_less_##NAME(const char *base, int64_t i, int64_t j)   \
    {                                                                          \
        const T *p = (const T *)(const void *)base;                           \
        return LESS(p[i], p[j]);                                               \
    }                                                                          \
    static int host_sort_same_##NAME(const char *base, int64_t i, int64_t j)   \
    {                                                                          \
        const T *p = (const T *)(const void *)base;                           \
        return p[i] == p[j];                                                   \
    }

HOST_SORT_PLAIN(u8, uint8_t, HOST_SORT_INT_LESS)
HOST_SORT_PLAIN(i8, int8_t, HOST_SORT_INT_LESS)
HOST_SORT_PLAIN(u16, uint16_t, HOST_SORT_INT_LESS)
HOST_SORT_PLAIN(i16, int16_t, HOST_SORT_INT_LESS)
HOST_SORT_PLAIN(u32, uint32_t, HOST_SORT_INT_LESS)
HOST_SORT_PLAIN(i32, int32_t, HOST_SORT_INT_LESS)
HOST_SORT_PLAIN(u64, uint64_t, HOST_SORT_INT_LESS)
HOST_SORT_PLAIN(i64, int64_t, HOST_SORT_INT_LESS)
HOST_SORT_PLAIN(f32, float, HOST_SORT_FLOAT_LESS)
HOST_SORT_PLAIN(f64, double, HOST_SORT_FLOAT_LESS)
#undef HOST_SORT_PLAIN

static int
host_sort_less_f16(const char *base, int64_t i, int64_t j)
{
    const uint16_t *p = (const uint16_t *)(const void *)base;
    const float a = da_half_to_float(p[i]), b = da_half_to_float(p[j]);
    return HOST_SORT_FLOAT_LESS(a, b);
}

static int
host_sort_same_f16(const char *base, int64_t i, int64_t j)
{
    const uint16_t *p = (const uint16_t *)(const void *)base;
    return da_half_to_float(p[i]) == da_half_to_float(p[j]);
}

#define HOST_SORT_COMPLEX(NAME, T)                                             \
    static int host_sort_less_##NAME(const char *base, int64_t i, int64_t j)   \
    {                                                                          \
        const T *p = (const T *)(const void *)base;                           \
        if (HOST_SORT_FLOAT_LESS(p[i].re, p[j].re)) {                          \
            return 1;                                                          \
        }                                                                      \
        if (HOST_SORT_FLOAT_LESS(p[j].re, p[i].re)) {                          \
            return 0;                                                          \
        }                                                                      \
        return HOST_SORT_FLOAT_LESS(p[i].im, p[j].im);                         \
    }                                                                          \
    static int host_sort_same_##NAME(const char *base, int64_t i, int64_t j)   \
    {                                                                          \
        const T *p = (const T *)(const void *)base;                           \
        return p[i].re == p[j].re && p[i].im == p[j].im;                       \
    }

HOST_SORT_COMPLEX(c64, da_c64)
HOST_SORT_COMPLEX(c128, da_c128)
#undef HOST_SORT_COMPLEX

static void
host_sort_functions(int typenum, host_sort_less_fn *less, host_sort_same_fn *same)
{
#define HOST_SORT_CASE(TYPENUM, NAME)         \
    case TYPENUM:                             \
        *less = host_sort_less_##NAME;        \
        *same = host_sort_same_##NAME;        \
        break;
    switch (typenum) {
        HOST_SORT_CASE(DA_BOOL, u8)
        HOST_SORT_CASE(DA_UINT8, u8)
        HOST_SORT_CASE(DA_INT8, i8)
        HOST_SORT_CASE(DA_UINT16, u16)
        HOST_SORT_CASE(DA_INT16, i16)
        HOST_SORT_CASE(DA_UINT32, u32)
        HOST_SORT_CASE(DA_INT32, i32)
        HOST_SORT_CASE(DA_UINT64, u64)
        HOST_SORT_CASE(DA_INT64, i64)
        HOST_SORT_CASE(DA_FLOAT16, f16)
        HOST_SORT_CASE(DA_FLOAT32, f32)
        HOST_SORT_CASE(DA_FLOAT64, f64)
        HOST_SORT_CASE(DA_COMPLEX64, c64)
        HOST_SORT_CASE(DA_COMPLEX128, c128)
        default:
            *less = NULL;
            *same = NULL;
            break;
    }
#undef HOST_SORT_CASE
}

/* Whether element b goes strictly before element a in the sort's order. */
static int
host_sort_before(host_sort_less_fn less, int descending, const char *base,
                 int64_t b, int64_t a)
{
    return descending ? less(base, a, b) : less(base, b, a);
}

/* Sort idx[0..n) (positions in base) stably; tmp has n entries.  Returns
   the buffer holding the result. */
static int64_t *
host_sort_merge(host_sort_less_fn less, int descending, const char *base,
                int64_t *idx, int64_t *tmp, int64_t n)
{
    int64_t width, start;

    for (width = 1; width < n; width *= 2) {
        int64_t *swap;
        for (start = 0; start < n; start += 2 * width) {
            const int64_t mid = start + width < n ? start + width : n;
            const int64_t end = start + 2 * width < n ? start + 2 * width : n;
            int64_t l = start, r = mid, k = start;
            while (l < mid && r < end) {
                tmp[k++] = host_sort_before(less, descending, base, idx[r], idx[l])
                               ? idx[r++]
                               : idx[l++];
            }
            while (l < mid) {
                tmp[k++] = idx[l++];
            }
            while (r < end) {
                tmp[k++] = idx[r++];
            }
        }
        swap = idx;
        idx = tmp;
        tmp = swap;
    }
    return idx;
}

int
da_host_sort(const da_sort *s, int64_t *temp)
{
    const int itemsize = da_itemsize(s->typenum);
    host_sort_less_fn less;
    host_sort_same_fn same;
    int64_t seg, j;

    host_sort_functions(s->typenum, &less, &same);
    if (less == NULL || (s->values == NULL && s->indices == NULL)) {
        return -1;
    }
    for (seg = 0; seg < s->nsegments; seg++) {
        const int64_t offset = seg * s->seglen;
        const char *base = (const char *)s->in + offset * itemsize;
        int64_t *sorted;
        for (j = 0; j < s->seglen; j++) {
            temp[j] = j;
        }
        sorted = host_sort_merge(less, s->descending, base, temp, temp + s->seglen,
                                 s->seglen);
        for (j = 0; j < s->seglen; j++) {
            if (s->values != NULL) {
                memcpy((char *)s->values + (offset + j) * itemsize,
                       base + sorted[j] * itemsize, (size_t)itemsize);
            }
            if (s->indices != NULL) {
                s->indices[offset + j] = sorted[j];
            }
        }
    }
    return 0;
}

int
da_host_unique_groups(const da_unique *u)
{
    host_sort_less_fn less;
    host_sort_same_fn same;
    int64_t i, groups = 0;

    host_sort_functions(u->typenum, &less, &same);
    if (same == NULL || u->chunk != 1) {
        return -1;
    }
    for (i = 0; i < u->n; i++) {
        if (i == 0 || !same((const char *)u->sorted, i - 1, i)) {
            groups++;
        }
        u->groups[i] = groups;
    }
    return 0;
}

int
da_host_unique_scatter(const da_unique *u)
{
    const int itemsize = da_itemsize(u->typenum);
    int64_t i, g;

    if ((u->counts != NULL && u->ends == NULL) || u->chunk != 1) {
        return -1;
    }
    for (i = 0; i < u->n; i++) {
        g = u->groups[i] - 1;
        if (i == 0 || u->groups[i - 1] != u->groups[i]) {
            if (u->values != NULL) {
                memcpy((char *)u->values + g * itemsize,
                       (const char *)u->sorted + i * itemsize, (size_t)itemsize);
            }
            if (u->indices != NULL) {
                u->indices[g] = u->perm[i];
            }
        }
        if (u->ends != NULL && (i == u->n - 1 || u->groups[i + 1] != u->groups[i])) {
            u->ends[g] = i + 1;
        }
        if (u->inverse != NULL) {
            u->inverse[u->perm[i]] = g;
        }
    }
    if (u->counts != NULL) {
        for (g = 0; g < u->m; g++) {
            u->counts[g] = u->ends[g] - (g == 0 ? 0 : u->ends[g - 1]);
        }
    }
    return 0;
}
