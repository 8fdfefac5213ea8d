/*
 * The element functions of the creation kernels (arange, linspace, tril,
 * triu), shared by kernels/creation.cu and the host twin
 * src/host/host_creation.c, so that both backends compute the same bits.  The
 * descriptors are in launch.h.
 *
 * NumPy rounds after every + and *; a fused multiply-add would round
 * a + i * b once.  setup.py passes --fmad=false to nvcc, and device code
 * here also spells each operation with its _rn intrinsic (never
 * contracted), so the values do not hang on a build flag.  Host builds
 * target baseline x86-64 (no FMA instructions), where plain operators round
 * each time.
 */
#ifndef DEVARRAY_KERNELS_CREATION_H_
#define DEVARRAY_KERNELS_CREATION_H_

#include "launch.h"

#ifdef __CUDA_ARCH__
#define DA_CR_ADD_F32(a, b) __fadd_rn((a), (b))
#define DA_CR_MUL_F32(a, b) __fmul_rn((a), (b))
#define DA_CR_ADD_F64(a, b) __dadd_rn((a), (b))
#define DA_CR_MUL_F64(a, b) __dmul_rn((a), (b))
#else
#define DA_CR_ADD_F32(a, b) ((float)((a) + (b)))
#define DA_CR_MUL_F32(a, b) ((float)((a) * (b)))
#define DA_CR_ADD_F64(a, b) ((a) + (b))
#define DA_CR_MUL_F64(a, b) ((a) * (b))
#endif

/* ---- arange: element i of a da_range, stored at p ----------------------- */

/* Integers wrap like NumPy's fill: unsigned arithmetic, truncated on store. */
DA_HD int64_t
da_range_sint(const da_range *r, int64_t i)
{
    uint64_t v = i == 0 ? (uint64_t)r->first.s
                 : i == 1 ? (uint64_t)r->second.s
                          : (uint64_t)r->first.s + (uint64_t)i * (uint64_t)r->delta.s;
    return (int64_t)v;
}

DA_HD void
da_range_store_sint(const da_range *r, int64_t i, void *p)
{
    da_store_sint(p, r->typenum, da_range_sint(r, i));
}

DA_HD void
da_range_store_uint(const da_range *r, int64_t i, void *p)
{
    uint64_t v = i == 0 ? r->first.u
                 : i == 1 ? r->second.u
                          : r->first.u + (uint64_t)i * r->delta.u;
    da_store_uint(p, r->typenum, v);
}

/* bool ranges have at most two elements (the core refuses longer ones) */
DA_HD void
da_range_store_bool(const da_range *r, int64_t i, void *p)
{
    da_store_bool(p, r->typenum, i == 0 ? r->first.b : r->second.b);
}

DA_HD float
da_range_f32(float first, float second, float delta, int64_t i)
{
    return i == 0 ? first
           : i == 1 ? second
                    : DA_CR_ADD_F32(first, DA_CR_MUL_F32((float)i, delta));
}

DA_HD double
da_range_f64(double first, double second, double delta, int64_t i)
{
    return i == 0 ? first
           : i == 1 ? second
                    : DA_CR_ADD_F64(first, DA_CR_MUL_F64((double)i, delta));
}

DA_HD void
da_range_store_f32(const da_range *r, int64_t i, void *p)
{
    da_store_f32(p, r->typenum,
                 da_range_f32(r->first.f32, r->second.f32, r->delta.f32, i));
}

DA_HD void
da_range_store_f64(const da_range *r, int64_t i, void *p)
{
    da_store_f64(p, r->typenum,
                 da_range_f64(r->first.f64, r->second.f64, r->delta.f64, i));
}

/* complex: NumPy fills the real and imaginary parts as two real ranges */
DA_HD void
da_range_store_c64(const da_range *r, int64_t i, void *p)
{
    da_c64 v;
    v.re = da_range_f32(r->first.c64.re, r->second.c64.re, r->delta.c64.re, i);
    v.im = da_range_f32(r->first.c64.im, r->second.c64.im, r->delta.c64.im, i);
    da_store_c64(p, r->typenum, v);
}

DA_HD void
da_range_store_c128(const da_range *r, int64_t i, void *p)
{
    da_c128 v;
    v.re = da_range_f64(r->first.c128.re, r->second.c128.re, r->delta.c128.re, i);
    v.im = da_range_f64(r->first.c128.im, r->second.c128.im, r->delta.c128.im, i);
    da_store_c128(p, r->typenum, v);
}

/* ---- linspace: element i of a da_linspace, stored at p ------------------ */

DA_HD double
da_linspace_floor(double v, int floor_it)
{
#ifdef __CUDA_ARCH__
    return floor_it ? ::floor(v) : v;
#else
    return floor_it ? floor(v) : v;
#endif
}

/* NumPy: y = arange(num) (float64), then y * step, or y / div * delta when
   the step underflows to zero, or y * delta when there is no step (num 1
   with endpoint); then + start; the last element is stop; floored for
   integer dtypes.  mode and floor_it are l's, passed as constants by a
   kernel that knows them. */
DA_HD double
da_linspace_value(const da_linspace *l, int64_t i, int mode, int floor_it)
{
    double y = (double)i, v;
    if (l->endpoint_last && i == l->n - 1) {
        v = l->stop.re;
    }
    else {
        if (mode == DA_LINSPACE_STEP) {
            y = DA_CR_MUL_F64(y, l->step.re);
        }
        else if (mode == DA_LINSPACE_DIV) {
            y = DA_CR_MUL_F64(y / (double)l->div, l->delta.re);
        }
        else {
            y = DA_CR_MUL_F64(y, l->delta.re);
        }
        v = DA_CR_ADD_F64(y, l->start.re);
    }
    return da_linspace_floor(v, floor_it);
}

DA_HD void
da_linspace_store_real(const da_linspace *l, int64_t i, void *p)
{
    da_store_f64(p, l->typenum, da_linspace_value(l, i, l->mode, l->floor_it));
}

/* (y + 0j) * c with NumPy's complex product, whose zero imaginary part
   still meets c's (an infinite c.im makes the real part NaN). */
DA_HD da_c128
da_linspace_times(double y, da_c128 c)
{
    da_c128 r;
    r.re = DA_CR_ADD_F64(DA_CR_MUL_F64(y, c.re), -DA_CR_MUL_F64(0.0, c.im));
    r.im = DA_CR_ADD_F64(DA_CR_MUL_F64(y, c.im), DA_CR_MUL_F64(0.0, c.re));
    return r;
}

DA_HD void
da_linspace_store_complex(const da_linspace *l, int64_t i, void *p)
{
    da_c128 v;
    if (l->endpoint_last && i == l->n - 1) {
        v = l->stop;
    }
    else {
        double y = (double)i;
        if (l->mode == DA_LINSPACE_STEP) {
            v = da_linspace_times(y, l->step);
        }
        else if (l->mode == DA_LINSPACE_DIV) {
            /* NumPy's complex division by (div + 0j) multiplies by 1/div */
            v = da_linspace_times(DA_CR_MUL_F64(y, 1.0 / (double)l->div), l->delta);
        }
        else {
            v = da_linspace_times(y, l->delta);
        }
        v.re = DA_CR_ADD_F64(v.re, l->start.re);
        v.im = DA_CR_ADD_F64(v.im, l->start.im);
    }
    da_store_c128(p, l->typenum, v);
}

/* ---- tril / triu -------------------------------------------------------- */

/* Whether the element in row i, column j of a matrix is kept. */
DA_HD int
da_tri_keep_at(const da_tri *t, int64_t i, int64_t j)
{
    /* i, j < 2^63 / 2 for any real array, so j - i cannot overflow (as
       i + k could) */
    return t->upper ? j - i >= t->k : j - i <= t->k;
}

/* Whether element `index` (C order) of the stacked matrices is kept. */
DA_HD int
da_tri_keep(const da_tri *t, int64_t index)
{
    return da_tri_keep_at(t, (index / t->cols) % t->rows, index % t->cols);
}

#endif /* DEVARRAY_KERNELS_CREATION_H_ */
