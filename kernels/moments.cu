/*
 * da_cuda_moments (kernels/launch.h): the variance over `len` of an
 * (outer, len, inner) input, reading it once.
 *
 * The moments of a set of elements are its count n, mean m and sum of
 * squared deviations from the mean q.  Two sets merge by Chan, Golub and
 * LeVeque's formula
 *     n = na + nb,  d = mb - ma,  m = ma + d nb / n,  q = qa + qb + d^2 na nb / n
 * (Welford's update when b is one element).  Each thread keeps the moments
 * of the elements it reads: a batch of rows at a time (their loads issued
 * together), the batch's own mean and q taken from the registers (two
 * passes over the loaded values, so a large mean cancels exactly as in
 * NumPy's x - mean) and merged into the running moments; the rows left
 * over merge one by one.  The threads of a block merge along a tree in
 * shared memory.  When len is split over blockIdx.y, each split stores its
 * mean and q per output in temporary storage and a second launch of the
 * same kernel, in its combining mode, reads them as rows (each of its
 * split's count of elements) and merges them the same way.  No atomics:
 * the order of the merges depends on the shape and the device's SM count
 * only, so results are reproducible.
 *
 * Geometry (moments_plan): the input is `rows` = len rows of `width` =
 * inner elements per outer index.  A block of 256 threads is bx threads
 * along a row (adjacent elements: a warp reads whole rows, coalesced, as
 * reduce.cuh's columns route does) by `by` along the rows by bz outer
 * indices; inner == 1 is bx == 1 (a block's threads read consecutive
 * elements of a segment), and short reductions put several outer indices
 * in a block.  As in reduce.cuh, len is split over blockIdx.y when the
 * blocks along outer and the row alone cannot fill the device, each
 * thread keeping at least kMomentsMinSplitRows rows.
 *
 * Machine code per architecture is the budget here (the wheel's size), so
 * there is one kernel per accumulator, float32 (float16 and float32 input)
 * and float64 (float64, bool and integers), each loading elements of any
 * dtype of its class (the dtype tested once per batch), with one element
 * per thread and load (no vectors: 32 bytes of a thread's rows in flight
 * instead), one site for loads and one call for merges, and weights from
 * a refined hardware reciprocal rather than IEEE division (a subroutine of
 * its own).
 */
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "dispatch.cuh"

namespace da {

/* log2(kBlockThreads): bz = 2^(kLogBlockThreads - log2 bx - log2 by). */
constexpr int kLogBlockThreads = 8;
static_assert(kBlockThreads == 1 << kLogBlockThreads, "blocks of 2^kLogBlockThreads threads");
/* bx at most a warp, so that threads remain along the rows to split. */
constexpr int kMomentsLogRowThreads = 5;
/* Split geometry, as reduce.cuh's columns route: the grid aims at
   kMomentsWaves waves of kMomentsResident 256-thread blocks per SM, and a
   split gets at least kMomentsMinSplitRows rows per thread. */
constexpr int64_t kMomentsResident = 8;
constexpr int64_t kMomentsWaves = 4;
constexpr int64_t kMomentsMinSplitRows = 16;
constexpr int64_t kMomentsMaxSplits = 65535; /* gridDim.y */
constexpr int64_t kMomentsMaxTiles = 65535;  /* gridDim.z */

/* Rows a thread loads at once: 32 bytes of float32 or float64 (a power of
   2, so the batch mean's scaling is exact). */
template <typename A>
struct moments_batch {
    static constexpr int value = 32 / (int)sizeof(A);
};

/* How an element's bits become a class value (moments_args::kind): bits,
   tested one at a time (sequential values would become a jump table,
   whose relocations cost bytes in every architecture's code). */
enum {
    kMomentsBits = 1, /* the accumulator's own float (float32, float64) */
    kMomentsHalf = 2, /* float16 */
    kMomentsSint = 4, /* signed integers, sign-extended from the itemsize */
    kMomentsUint = 8, /* unsigned integers */
    kMomentsBool = 16
};

/* One launch of moments_kernel.  Element (o, r, c) is at byte offset
   o * outer_bytes + r * row_bytes + c * itemsize of `in` (and of in_q in
   the combining mode).  Block (group, split, tile - tile0) reads rows
   [split * split_rows, +split_rows) of outer indices group * bz + tz,
   columns tile * bx + tx (gridDim.z is at most 65535: a wider row takes
   several launches, from tile0). */
template <typename A>
struct moments_args {
    const char *in;     /* the input; in the combining mode the splits' means */
    const char *in_q;   /* combining mode: the splits' q; else NULL */
    A *out;             /* the results; with splits, the splits' means */
    A *out_q;           /* with splits, the splits' q */
    A inverse;          /* 1 / max(len - correction, 0) */
    A count;            /* elements per row: 1, or a split's in the combining mode */
    A last_count;       /* elements of the last row */
    int itemsize;       /* of `in`'s elements */
    int kind;           /* kMoments*: how they convert */
    int lbx, lby;       /* log2 of bx and by */
    int64_t outer, rows, width;
    int64_t tiles;      /* blocks along a row */
    int64_t tile0;      /* the launch's first */
    int64_t split_rows; /* rows per split (the last may have fewer) */
    int64_t nout;       /* outer * width: a split's results */
    int64_t row_bytes, outer_bytes;
};

/* ---- merging moments ------------------------------------------------------- */

/* 1 / x for a count x >= 1: the hardware's approximate reciprocal
   refined by Newton's iteration to within an ulp or two, which the merge
   weights need and no more. */
static __device__ __forceinline__ float
moments_recip(float x)
{
    const float r = __fdividef(1.0f, x);
    return r + r * (1.0f - x * r);
}

static __device__ __forceinline__ double
moments_recip(double x)
{
    double r = (double)__fdividef(1.0f, (float)x);
    r = r + r * (1.0 - x * r);
    return r + r * (1.0 - x * r);
}

/* The moments of a set: count (in the accumulator: exact in float64, and
   in float32 up to 2^24, beyond which only the weights round), mean and
   sum of squared deviations. */
template <typename A>
struct moments_state {
    A n, mean, q;
};

/* a merged with (nb, mb, qb); a itself when nb == 0, b's moments exactly
   when a is empty (so constant input gives 0).  A call: one copy of its
   machine code serves the batches, the single rows and the tree. */
template <typename A>
static __device__ __noinline__ moments_state<A>
moments_merged(moments_state<A> a, A nb, A mb, A qb)
{
    if (nb > (A)0) {
        if (a.n == (A)0) {
            a.mean = mb;
            a.q = qb;
        }
        else {
            const A wb = nb * moments_recip(a.n + nb);
            const A d = mb - a.mean;
            a.mean = a.mean + d * wb;
            a.q = a.q + qb + d * d * (a.n * wb);
        }
        a.n = a.n + nb;
    }
    return a;
}

/* The mean and q of U single elements x (U a power of 2, so the mean's
   scaling is exact): the mean, then q from the registers. */
template <typename A, int U>
static __device__ __forceinline__ void
moments_of_batch(const A (&x)[U], A &mean, A &q)
{
    A s[U];

#pragma unroll
    for (int u = 0; u < U; u++) {
        s[u] = x[u];
    }
#pragma unroll
    for (int half = U / 2; half > 0; half /= 2) {
#pragma unroll
        for (int u = 0; u < half; u++) {
            s[u] = s[u] + s[u + half];
        }
    }
    mean = s[0] * ((A)1 / (A)U);
    q = (A)0;
#pragma unroll
    for (int u = 0; u < U; u++) {
        const A d = x[u] - mean;
        q = q + d * d;
    }
}

/* ---- loads --------------------------------------------------------------- */

/* U elements of T at p[u] as raw bits. */
template <typename T, typename Bits, int U>
static __device__ __forceinline__ void
moments_load_bits(const char *const (&p)[U], Bits (&bits)[U])
{
#pragma unroll
    for (int u = 0; u < U; u++) {
        bits[u] = (Bits) * reinterpret_cast<const T *>(p[u]);
    }
}

/* The U elements at in + offset + u * step (of itemsize bytes, converted
   as kind says) as values of accumulator A; the loads are issued before
   any conversion. */
template <typename A, int U>
static __device__ __forceinline__ void
moments_load(const char *in, int itemsize, int kind, int64_t offset, int64_t step,
             A (&x)[U])
{
    constexpr bool kF32 = sizeof(A) == sizeof(float);
    typedef typename std::conditional<kF32, uint32_t, uint64_t>::type Bits;
    const char *p[U];
    Bits bits[U];

#pragma unroll
    for (int u = 0; u < U; u++) {
        p[u] = in + offset + u * step;
    }
    /* ifs, not a switch: no jump table (see kMomentsBits) */
    if (!kF32 && itemsize == 8) {
        moments_load_bits<uint64_t>(p, bits);
    }
    else if (itemsize == 4) {
        moments_load_bits<uint32_t>(p, bits);
    }
    else if (kF32 || itemsize == 2) {
        moments_load_bits<uint16_t>(p, bits);
    }
    else {
        moments_load_bits<uint8_t>(p, bits);
    }
    if (kind & kMomentsBits) {
#pragma unroll
        for (int u = 0; u < U; u++) {
            memcpy(&x[u], &bits[u], sizeof(A));
        }
    }
    else if (kF32) {
        /* the float32 accumulator's other dtype */
#pragma unroll
        for (int u = 0; u < U; u++) {
            x[u] = (A)da_half_to_float((uint16_t)bits[u]);
        }
    }
    else if (kind & kMomentsSint) {
        const int shift = 64 - 8 * itemsize;
#pragma unroll
        for (int u = 0; u < U; u++) {
            x[u] = (A)da_sint_to_f64((int64_t)((uint64_t)bits[u] << shift) >> shift);
        }
    }
    else if (kind & kMomentsUint) {
#pragma unroll
        for (int u = 0; u < U; u++) {
            x[u] = (A)da_uint_to_f64(bits[u]);
        }
    }
    else {
#pragma unroll
        for (int u = 0; u < U; u++) {
            x[u] = (A)da_bool_to_f64((uint8_t)(bits[u] != 0));
        }
    }
}

/* ---- the kernel -------------------------------------------------------------- */

/* The kernel of accumulator A, float or double (a template over the type
   rather than the class: shorter symbol names, which every architecture's
   code repeats). */
template <typename A>
static __global__ void __launch_bounds__(kBlockThreads)
moments_kernel(const moments_args<A> a)
{
    constexpr int kBatch = moments_batch<A>::value;
    __shared__ moments_state<A> shared[kBlockThreads];
    const int k = threadIdx.x;
    const int lxy = a.lbx + a.lby;
    const int bx = 1 << a.lbx, by = 1 << a.lby;
    const int tx = k & (bx - 1);
    const int ty = (k >> a.lbx) & (by - 1);
    const int64_t o = ((int64_t)blockIdx.x << (kLogBlockThreads - lxy)) + (k >> lxy);
    const int64_t c = (a.tile0 + blockIdx.z) * bx + tx;
    const int64_t r0 = (int64_t)blockIdx.y * a.split_rows;
    const int64_t r1 = r0 + a.split_rows < a.rows ? r0 + a.split_rows : a.rows;
    const bool active = o < a.outer && c < a.width;
    moments_state<A> st = {(A)0, (A)0, (A)0};

    if (active) {
        /* Rows ty, ty + by, ...: kBatch at a time while they last
           (elements only), then one by one.  One site loads both (a
           single row is loaded kBatch times, from the cache) and one call
           merges both, so their machine code is not duplicated.  The
           first round loads the output's row 0, whose value is
           subtracted from every element (the variance does not change):
           the means then stay near 0, where float32 keeps the deviations
           of data far from 0 (1e4 + small noise) as exactly as NumPy's
           x - mean does. */
        const int64_t step = a.row_bytes << a.lby;
        /* batches of elements only: none in the combining mode */
        const int64_t batch_end = a.in_q == nullptr ? r1 : r0;
        const int64_t column = o * a.outer_bytes + c * a.itemsize;
        int64_t offset = column;
        int64_t r = r0 + ty;
        bool first = true;
        A shift = (A)0;
#pragma unroll 1
        while (r < r1) {
            const bool full = !first && r + (kBatch - 1) * by < batch_end;
            const int taken = full ? kBatch : 1;
            int itemsize = a.itemsize, kind = a.kind;
            A x[kBatch], nb, mb, qb;
            /* as if they changed each time round: the compilers for sm_100
               and later would otherwise make a copy of the loop per dtype
               (unswitching) or peel the first round */
            asm volatile("" : "+r"(itemsize), "+r"(kind));
            moments_load(a.in, itemsize, kind, offset, full ? step : 0, x);
            if (first) {
                shift = x[0];
                first = false;
                offset = column + r * a.row_bytes;
                continue;
            }
            if (full) {
#pragma unroll
                for (int u = 0; u < kBatch; u++) {
                    x[u] = x[u] - shift;
                }
                moments_of_batch(x, mb, qb);
                nb = (A)kBatch;
            }
            else {
                /* an element (count 1, q 0) or a split's moments */
                mb = x[0] - shift;
                qb = a.in_q == nullptr ? (A)0 : *reinterpret_cast<const A *>(a.in_q + offset);
                nb = r == a.rows - 1 ? a.last_count : a.count;
            }
            st = moments_merged(st, nb, mb, qb);
            r += taken * by;
            offset += taken * step;
        }
    }
    if (by > 1) {
        /* the tree along ty: threads k and k + half * bx */
        shared[k] = st;
        __syncthreads();
#pragma unroll 1
        for (int half = by / 2; half > 0; half /= 2) {
            if (ty < half) {
                const moments_state<A> other = shared[k + half * bx];
                st = moments_merged(st, other.n, other.mean, other.q);
                shared[k] = st;
            }
            __syncthreads();
        }
    }
    if (ty == 0 && active) {
        const int64_t j = o * a.width + c;
        if (gridDim.y == 1) {
            /* q / divisor as q * (1 / divisor): a divisor of 0 gives inf,
               or NaN for q == 0, as NumPy's division does */
            a.out[j] = st.q * a.inverse;
        }
        else {
            a.out[blockIdx.y * a.nout + j] = st.mean;
            a.out_q[blockIdx.y * a.nout + j] = st.q;
        }
    }
}

/* ---- launch -------------------------------------------------------------------- */

/* How elements of dtype typenum load (moments_args::kind). */
static int
moments_kind(int typenum)
{
    switch (da_class_of(typenum)) {
        case DA_CLASS_BOOL:
            return kMomentsBool;
        case DA_CLASS_SINT:
            return kMomentsSint;
        case DA_CLASS_UINT:
            return kMomentsUint;
        default:
            return typenum == DA_FLOAT16 ? kMomentsHalf : kMomentsBits;
    }
}

/* The smallest l with 2^l >= v (v >= 1), at most `most`. */
static int
moments_log2_up(int64_t v, int most)
{
    int l = 0;
    while (l < most && ((int64_t)1 << l) < v) {
        l++;
    }
    return l;
}

/* The geometry of `a` (outer, rows, width and itemsize set): threads along
   the row up to a warp, then along the rows, then outer indices, and any
   left over along the row again; the rows split when `split` and the
   blocks are too few.  The number of splits, or 0 with *err set. */
template <typename A>
static int64_t
moments_plan(moments_args<A> *a, bool split, cudaError_t *err)
{
    int lbz, device, sms;
    int64_t bz, blocks_xy, want, max_splits;

    a->lbx = moments_log2_up(a->width, kMomentsLogRowThreads);
    a->lby = moments_log2_up(a->rows, kLogBlockThreads - a->lbx);
    lbz = moments_log2_up(a->outer, kLogBlockThreads - a->lbx - a->lby);
    while (a->lbx + a->lby + lbz < kLogBlockThreads && ((int64_t)1 << a->lbx) < a->width) {
        a->lbx++;
    }
    bz = (int64_t)1 << (kLogBlockThreads - a->lbx - a->lby);
    a->tiles = (a->width + ((int64_t)1 << a->lbx) - 1) >> a->lbx;
    a->split_rows = a->rows;
    a->nout = a->outer * a->width;
    a->row_bytes = a->width * a->itemsize;
    a->outer_bytes = a->rows * a->row_bytes;
    blocks_xy = (a->outer + bz - 1) / bz * a->tiles;
    *err = (a->outer + bz - 1) / bz > kMaxBlocks ? cudaErrorInvalidConfiguration : cudaSuccess;
    if (*err != cudaSuccess || !split) {
        return *err == cudaSuccess ? 1 : 0;
    }
    *err = cudaGetDevice(&device);
    if (*err == cudaSuccess) {
        *err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    }
    if (*err != cudaSuccess) {
        return 0;
    }
    want = ((int64_t)sms * kMomentsResident * kMomentsWaves + blocks_xy - 1) / blocks_xy;
    max_splits = a->rows / (kMomentsMinSplitRows << a->lby);
    want = want < max_splits ? want : max_splits;
    want = want < kMomentsMaxSplits ? want : kMomentsMaxSplits;
    want = want > 1 ? want : 1;
    a->split_rows = (a->rows + want - 1) / want;
    return (a->rows + a->split_rows - 1) / a->split_rows;
}

/* The launches of `a`: blocks along outer x splits x tiles, at most
   kMomentsMaxTiles tiles each. */
template <typename A>
static cudaError_t
moments_launch(moments_args<A> a, int64_t splits, cudaStream_t stream)
{
    const int64_t bz = (int64_t)1 << (kLogBlockThreads - a.lbx - a.lby);
    cudaError_t err = cudaSuccess;

    for (a.tile0 = 0; a.tile0 < a.tiles && err == cudaSuccess; a.tile0 += kMomentsMaxTiles) {
        const int64_t tiles =
            a.tiles - a.tile0 < kMomentsMaxTiles ? a.tiles - a.tile0 : kMomentsMaxTiles;
        const dim3 grid((unsigned int)((a.outer + bz - 1) / bz), (unsigned int)splits,
                        (unsigned int)tiles);
        moments_kernel<A><<<grid, kBlockThreads, 0, stream>>>(a);
        err = cudaGetLastError();
    }
    return err;
}

/* The launches with accumulator A; with temp == NULL, the sizing. */
template <typename A>
static cudaError_t
moments_run(void *temp, size_t *temp_bytes, const da_moments *m, cudaStream_t stream)
{
    const double divisor = (double)m->len - m->correction;
    moments_args<A> a;
    int64_t splits;
    cudaError_t err;

    memset(&a, 0, sizeof a);
    a.in = static_cast<const char *>(m->in);
    a.out = static_cast<A *>(m->out);
    a.inverse = (A)(1.0 / (divisor > 0 ? divisor : 0.0));
    a.count = a.last_count = (A)1;
    a.itemsize = da_itemsize(m->in_typenum);
    a.kind = moments_kind(m->in_typenum);
    a.outer = m->outer;
    a.rows = m->len;
    a.width = m->inner;
    splits = moments_plan(&a, true, &err);
    if (err != cudaSuccess) {
        return err;
    }
    if (temp == nullptr) {
        *temp_bytes = splits > 1 ? (size_t)(2 * splits * a.nout) * sizeof(A) : 1;
        return cudaSuccess;
    }
    if (splits == 1) {
        return moments_launch(a, 1, stream);
    }
    /* the splits' means and q, then one combining launch over them */
    a.out = static_cast<A *>(temp);
    a.out_q = a.out + splits * a.nout;
    err = moments_launch(a, splits, stream);
    if (err == cudaSuccess) {
        moments_args<A> b = a;
        b.in = reinterpret_cast<const char *>(a.out);
        b.in_q = reinterpret_cast<const char *>(a.out_q);
        b.out = static_cast<A *>(m->out);
        b.out_q = nullptr;
        b.count = (A)a.split_rows;
        b.last_count = (A)(a.rows - (splits - 1) * a.split_rows);
        b.itemsize = (int)sizeof(A);
        b.kind = kMomentsBits;
        b.outer = 1;
        b.rows = splits;
        b.width = a.nout;
        moments_plan(&b, false, &err);
        if (err == cudaSuccess) {
            err = moments_launch(b, 1, stream);
        }
    }
    return err;
}

}  // namespace da

extern "C" cudaError_t
da_cuda_moments(void *temp, size_t *temp_bytes, const da_moments *m, cudaStream_t stream)
{
    const int acc = m != nullptr ? da_moments_accumulator(m->in_typenum) : -1;

    if (temp_bytes == nullptr || acc < 0 || m->acc_typenum != acc || m->outer < 1 ||
        m->len < 1 || m->inner < 1) {
        return cudaErrorInvalidValue;
    }
    return acc == DA_FLOAT32 ? da::moments_run<float>(temp, temp_bytes, m, stream)
                             : da::moments_run<double>(temp, temp_bytes, m, stream);
}
