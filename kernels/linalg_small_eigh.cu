/*
 * da_cuda_small_eigh (kernels/linalg_small.h): symmetric eigenvalues and
 * eigenvectors by cyclic Jacobi, one thread per small matrix
 * (kernels/linalg_small.cuh says how).
 */
#include "linalg_small.cuh"

namespace {

/* Jacobi converges quadratically, in a handful of sweeps at these sizes;
   the limit is only a guard */
constexpr int kMaxSweeps = 30;

/* ---- eigh --------------------------------------------------------------- */

/* Element (i, j) of a symmetric matrix kept in the upper triangle of m:
   for compile-time i and j this folds to one fixed element. */
template <typename T, int C>
__device__ __forceinline__ T &
sym(T (&m)[C][C], int i, int j)
{
    return i <= j ? m[i][j] : m[j][i];
}

/* NaN-last strict weak order, so that ranks form a permutation. */
template <typename T>
__device__ __forceinline__ bool
before(T x, T y)
{
    return x < y || (!real<T>::nan_(x) && real<T>::nan_(y));
}

/*
 * Cyclic Jacobi (Golub & Van Loan, Algorithm 8.4.3, with the rotations of
 * 8.4.2) on the symmetric matrix, scaled first by a power of two so that
 * its largest element is in [1, 2): exact (but for elements far below the
 * tolerance that become subnormal), and the sums of squares below can
 * neither overflow nor underflow to nothing.  An Inf or NaN makes the
 * result NaN with info 1 rather than 30 sweeps of NaN.  Converged when
 * the off-diagonal norm off(A) <= eps ||A||_F.  Within a sweep a rotation
 * is skipped when |a_pq| <= eps ||A||_F / n: such elements change the
 * eigenvalues by less than the tolerance, and once they are all that is
 * left, off(A)^2 < n (n - 1) (eps ||A||_F / n)^2 < (eps ||A||_F)^2, so the
 * test passes and skipping can never stall the iteration.
 */
template <typename T, bool Vectors>
struct eigh_op {
    T *w;
    int32_t *info;
    static constexpr bool compute_bound = true;

    __device__ bool writes_a() const { return Vectors; }

    template <int N>
    __device__ __forceinline__ void run(T *src, int64_t i, int n_rt) const
    {
        typedef real<T> R;
        constexpr int C = cap<N>::value;
        const int n = order<N>(n_rt);
        const int lim = bound<N>(n);
        T *wi = w + i * n;
        if (n == 1) {
            wi[0] = src[0];
            if constexpr (Vectors) {
                src[0] = T(1);
            }
            info[i] = 0;
            return;
        }
        /* m[c][r] (c <= r) = a[r][c]: the lower triangle, kept as upper */
        T m[C][C];
        T amax = T(0);
        bool finite = true;
#pragma unroll
        for (int r = 0; r < lim; ++r) {
            if (r >= n) {
                break;
            }
#pragma unroll
            for (int c = 0; c <= r; ++c) {
                const T v = src[r * n + c];
                m[c][r] = v;
                finite = finite && R::finite_(v);
                amax = R::abs_(v) > amax ? R::abs_(v) : amax;
            }
        }
        if (!finite) {
            info[i] = 1;
            for (int r = 0; r < n; ++r) {
                wi[r] = R::nan();
                if constexpr (Vectors) {
                    for (int c = 0; c < n; ++c) {
                        src[r * n + c] = R::nan();
                    }
                }
            }
            return;
        }
        const int scale = amax > T(0) ? R::ilogb_(amax) : 0;
        T norm2 = T(0);
#pragma unroll
        for (int p = 0; p < lim; ++p) {
            if (p >= n) {
                break;
            }
#pragma unroll
            for (int q = p; q < lim; ++q) {
                if (q >= n) {
                    break;
                }
                const T v = R::scalbn_(m[p][q], -scale);
                m[p][q] = v;
                norm2 += (p == q ? T(1) : T(2)) * v * v;
            }
        }
        T v[Vectors ? C : 1][Vectors ? C : 1];
        if constexpr (Vectors) {
#pragma unroll
            for (int r = 0; r < lim; ++r) {
                if (r >= n) {
                    break;
                }
#pragma unroll
                for (int c = 0; c < lim; ++c) {
                    if (c >= n) {
                        break;
                    }
                    v[r][c] = r == c ? T(1) : T(0);
                }
            }
        }
        const T tol = R::eps() * R::sqrt_(norm2);
        const T skip = tol / T(n);
        /* beyond this |tau|, 1 + tau^2 rounds to tau^2 (and would
           overflow further on): then t = 1 / (2 tau) */
        const T big = T(1) / R::eps();
        int32_t inf = 1;
#pragma unroll 1
        for (int sweep = 0; sweep <= kMaxSweeps; ++sweep) {
            T off2 = T(0);
#pragma unroll
            for (int p = 0; p < lim; ++p) {
                if (p >= n) {
                    break;
                }
#pragma unroll
                for (int q = p + 1; q < lim; ++q) {
                    if (q >= n) {
                        break;
                    }
                    off2 += m[p][q] * m[p][q];
                }
            }
            if (T(2) * off2 <= tol * tol) {
                inf = 0;
                break;
            }
            if (sweep == kMaxSweeps) {
                break;
            }
#pragma unroll
            for (int p = 0; p < lim; ++p) {
                if (p >= n) {
                    break;
                }
#pragma unroll
                for (int q = p + 1; q < lim; ++q) {
                    if (q >= n) {
                        break;
                    }
                    const T apq = m[p][q];
                    if (!(R::abs_(apq) > skip)) {
                        continue;
                    }
                    const T app = m[p][p], aqq = m[q][q];
                    const T tau = (aqq - app) / (T(2) * apq);
                    const T atau = R::abs_(tau);
                    T t;
                    if (atau < big) {
                        t = T(1) / (atau + R::sqrt_(T(1) + tau * tau));
                        t = tau >= T(0) ? t : -t;
                    }
                    else {
                        t = T(0.5) / tau; /* 0 for an infinite tau */
                    }
                    const T cs = T(1) / R::sqrt_(T(1) + t * t);
                    const T sn = t * cs;
                    m[p][p] = app - t * apq;
                    m[q][q] = aqq + t * apq;
                    m[p][q] = T(0);
#pragma unroll
                    for (int r = 0; r < lim; ++r) {
                        if (r >= n) {
                            break;
                        }
                        if (r == p || r == q) {
                            continue;
                        }
                        T &xp = sym(m, r, p);
                        T &xq = sym(m, r, q);
                        const T x = xp, y = xq;
                        xp = cs * x - sn * y;
                        xq = sn * x + cs * y;
                    }
                    if constexpr (Vectors) {
#pragma unroll
                        for (int r = 0; r < lim; ++r) {
                            if (r >= n) {
                                break;
                            }
                            const T x = v[r][p], y = v[r][q];
                            v[r][p] = cs * x - sn * y;
                            v[r][q] = sn * x + cs * y;
                        }
                    }
                }
            }
        }
        info[i] = inf;
        /* ascending: eigenvalue j (and its vector) goes to its rank's place,
           ties kept in their order; the computed index addresses memory,
           never m or v */
#pragma unroll
        for (int j = 0; j < lim; ++j) {
            if (j >= n) {
                break;
            }
            const T ej = m[j][j];
            int rank = 0;
#pragma unroll
            for (int k = 0; k < lim; ++k) {
                if (k >= n) {
                    break;
                }
                const T ek = m[k][k];
                rank += before(ek, ej) || (k < j && !before(ej, ek)) ? 1 : 0;
            }
            wi[rank] = R::scalbn_(ej, scale);
            if constexpr (Vectors) {
#pragma unroll
                for (int r = 0; r < lim; ++r) {
                    if (r >= n) {
                        break;
                    }
                    src[r * n + rank] = v[r][j];
                }
            }
        }
    }
};
/* ---- launcher ------------------------------------------------------------ */

template <typename T, int N>
struct eigh_launch {
    static cudaError_t
    run(int n, T *a, T *w, int vectors, int64_t batch, int32_t *info, cudaStream_t stream)
    {
        if (vectors) {
            return launch_op<T, N>(a, n, batch, eigh_op<T, true>{w, info}, stream);
        }
        return launch_op<T, N>(a, n, batch, eigh_op<T, false>{w, info}, stream);
    }
};

}  // namespace

extern "C" cudaError_t
da_cuda_small_eigh(int typenum, void *a, void *w, int64_t n, int64_t batch, int vectors,
                   int32_t *info, cudaStream_t stream)
{
    if (!small_arguments_valid(typenum, n, batch)) {
        return cudaErrorInvalidValue;
    }
    if (batch == 0) {
        return cudaSuccess;
    }
    if (typenum == DA_FLOAT32) {
        return dispatch_n<eigh_launch, float>((int)n, (float *)a, (float *)w, vectors, batch,
                                              info, stream);
    }
    return dispatch_n<eigh_launch, double>((int)n, (double *)a, (double *)w, vectors, batch,
                                           info, stream);
}
