/*
 * The host backend of the scans and searches: da_host_scan,
 * da_host_argreduce and da_host_searchsorted (kernels/launch.h) as plain C
 * loops, the reference for kernels/scan.cu and kernels/search.cu.
 *
 * Each element is read with da_load_<class> and combined in its compute
 * class (dtypes.h, ops.h); the orders are kernels/order.h's.  A scan
 * stores each running value and reads it back, so the value carried on is
 * the one rounded to the dtype (float16 rounds at every step, as NumPy's
 * accumulate does; for the other dtypes the read is exact).  Holds no
 * memory.
 */
#include <stdint.h>

#include "../../kernels/launch.h"
#include "../../kernels/order.h"

/* One segment of the running sum or product, for each class. */
#define HOST_SCAN_DEFINE(cls, CT)                                             \
    static void host_scan_##cls(int op, int typenum, const char *in, char *out, \
                                int64_t n)                                    \
    {                                                                         \
        const int64_t size = da_itemsize(typenum);                            \
        CT acc = da_load_##cls(in, typenum);                                  \
        int64_t i;                                                            \
        da_store_##cls(out, typenum, acc);                                    \
        for (i = 1; i < n; i++) {                                             \
            const CT v = da_load_##cls(in + i * size, typenum);               \
            acc = op == DA_SCAN_SUM ? da_##cls##_add(acc, v) : da_##cls##_mul(acc, v); \
            da_store_##cls(out + i * size, typenum, acc);                     \
            acc = da_load_##cls(out + i * size, typenum);                     \
        }                                                                     \
    }

/* The index of the first maximum (minimum) of one segment; the first NaN
   wins and ends the search. */
#define HOST_ARG_DEFINE(cls, CT)                                              \
    static int64_t host_arg_##cls(int op, int typenum, const char *in, int64_t n) \
    {                                                                         \
        const int64_t size = da_itemsize(typenum);                            \
        CT best = da_load_##cls(in, typenum);                                 \
        int64_t i, at = 0;                                                    \
        if (da_##cls##_order_nan(best)) {                                     \
            return 0;                                                         \
        }                                                                     \
        for (i = 1; i < n; i++) {                                             \
            const CT v = da_load_##cls(in + i * size, typenum);               \
            if (da_##cls##_order_nan(v)) {                                    \
                return i;                                                     \
            }                                                                 \
            if (op == DA_ARG_MAX ? da_##cls##_order_less(best, v)                 \
                                 : da_##cls##_order_less(v, best)) {              \
                best = v;                                                     \
                at = i;                                                       \
            }                                                                 \
        }                                                                     \
        return at;                                                            \
    }

/* Binary search of every value (isin's mode: and the equality test of the
   element found); 0, or 1 when a sorter index read is out of range. */
#define HOST_SEARCH_DEFINE(cls, CT)                                           \
    static int host_search_##cls(const da_searchsorted *s)                    \
    {                                                                         \
        const int64_t size = da_itemsize(s->typenum);                         \
        const char *sorted = (const char *)s->sorted;                         \
        const char *values = (const char *)s->values;                         \
        int64_t k;                                                            \
        for (k = 0; k < s->nvalues; k++) {                                    \
            const CT v = da_load_##cls(values + k * size, s->typenum);        \
            int64_t lo = 0, hi = s->n;                                        \
            while (lo < hi) {                                                 \
                const int64_t mid = lo + (hi - lo) / 2;                       \
                int64_t at = mid;                                             \
                CT m;                                                         \
                if (s->sorter != NULL) {                                      \
                    at = s->sorter[mid];                                      \
                    if (at < 0 || at >= s->n) {                               \
                        return 1;                                             \
                    }                                                         \
                }                                                             \
                m = da_load_##cls(sorted + at * size, s->typenum);            \
                if (s->right ? !da_##cls##_sort_lt(v, m) : da_##cls##_sort_lt(m, v)) { \
                    lo = mid + 1;                                             \
                }                                                             \
                else {                                                        \
                    hi = mid;                                                 \
                }                                                             \
            }                                                                 \
            if (s->found != NULL) {                                           \
                const int hit = lo < s->n &&                                  \
                    da_##cls##_order_eq(da_load_##cls(sorted + lo * size, s->typenum), v); \
                s->found[k] = (uint8_t)(hit != s->invert);                    \
            }                                                                 \
            else {                                                            \
                s->out[k] = lo;                                               \
            }                                                                 \
        }                                                                     \
        return 0;                                                             \
    }

#define HOST_SCAN_FOR_EACH_CLASS(X)                                           \
    X(bool, uint8_t)                                                          \
    X(sint, int64_t)                                                          \
    X(uint, uint64_t)                                                         \
    X(f32, float)                                                             \
    X(f64, double)                                                            \
    X(c64, da_c64)                                                            \
    X(c128, da_c128)

/* no bool: the scans run in 64 bits for it (da_scan_supported) */
HOST_SCAN_DEFINE(sint, int64_t)
HOST_SCAN_DEFINE(uint, uint64_t)
HOST_SCAN_DEFINE(f32, float)
HOST_SCAN_DEFINE(f64, double)
HOST_SCAN_DEFINE(c64, da_c64)
HOST_SCAN_DEFINE(c128, da_c128)
HOST_SCAN_FOR_EACH_CLASS(HOST_ARG_DEFINE)
HOST_SCAN_FOR_EACH_CLASS(HOST_SEARCH_DEFINE)

int
da_host_scan(int op, int typenum, const void *in, void *out, int64_t nsegments,
             int64_t seglen)
{
    const int64_t step = seglen * da_itemsize(typenum);
    int64_t s;

    if ((op != DA_SCAN_SUM && op != DA_SCAN_PROD) || !da_scan_supported(typenum) ||
        nsegments < 1 || seglen < 1) {
        return -1;
    }
    for (s = 0; s < nsegments; s++) {
        const char *src = (const char *)in + s * step;
        char *dst = (char *)out + s * step;
        switch (da_class_of(typenum)) {
            case DA_CLASS_SINT:
                host_scan_sint(op, typenum, src, dst, seglen);
                break;
            case DA_CLASS_UINT:
                host_scan_uint(op, typenum, src, dst, seglen);
                break;
            case DA_CLASS_F32:
                host_scan_f32(op, typenum, src, dst, seglen);
                break;
            case DA_CLASS_F64:
                host_scan_f64(op, typenum, src, dst, seglen);
                break;
            case DA_CLASS_C64:
                host_scan_c64(op, typenum, src, dst, seglen);
                break;
            case DA_CLASS_C128:
                host_scan_c128(op, typenum, src, dst, seglen);
                break;
            default:
                return -1;
        }
    }
    return 0;
}

int
da_host_argreduce(int op, int typenum, const void *in, int64_t *out,
                  int64_t nsegments, int64_t seglen)
{
    const int64_t step = seglen * da_itemsize(typenum);
    int64_t s;

    if ((op != DA_ARG_MAX && op != DA_ARG_MIN) || nsegments < 1 || seglen < 1) {
        return -1;
    }
    for (s = 0; s < nsegments; s++) {
        const char *src = (const char *)in + s * step;
        switch (da_class_of(typenum)) {
            case DA_CLASS_BOOL:
                out[s] = host_arg_bool(op, typenum, src, seglen);
                break;
            case DA_CLASS_SINT:
                out[s] = host_arg_sint(op, typenum, src, seglen);
                break;
            case DA_CLASS_UINT:
                out[s] = host_arg_uint(op, typenum, src, seglen);
                break;
            case DA_CLASS_F32:
                out[s] = host_arg_f32(op, typenum, src, seglen);
                break;
            case DA_CLASS_F64:
                out[s] = host_arg_f64(op, typenum, src, seglen);
                break;
            case DA_CLASS_C64:
                out[s] = host_arg_c64(op, typenum, src, seglen);
                break;
            case DA_CLASS_C128:
                out[s] = host_arg_c128(op, typenum, src, seglen);
                break;
            default:
                return -1;
        }
    }
    return 0;
}

int
da_host_searchsorted(const da_searchsorted *s)
{
    int bad;

    if (s->n < 0 || s->nvalues < 1 || s->bad == NULL ||
        (s->found != NULL && (s->sorter != NULL || s->right))) {
        return -1;
    }
    switch (da_class_of(s->typenum)) {
        case DA_CLASS_BOOL:
            bad = host_search_bool(s);
            break;
        case DA_CLASS_SINT:
            bad = host_search_sint(s);
            break;
        case DA_CLASS_UINT:
            bad = host_search_uint(s);
            break;
        case DA_CLASS_F32:
            bad = host_search_f32(s);
            break;
        case DA_CLASS_F64:
            bad = host_search_f64(s);
            break;
        case DA_CLASS_C64:
            bad = host_search_c64(s);
            break;
        case DA_CLASS_C128:
            bad = host_search_c128(s);
            break;
        default:
            return -1;
    }
    if (bad) {
        *s->bad = 1;
    }
    return 0;
}
