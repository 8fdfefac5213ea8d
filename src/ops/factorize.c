/*
 * _linalg_lu, _linalg_det, _linalg_inv, _linalg_solve, _linalg_cholesky,
 * _linalg_eigh, _linalg_svd, _linalg_geqrf, _linalg_orgqr, _linalg_geev:
 * see factorize.h.
 *
 * Each takes C-contiguous, writable CUDA arrays of a floating dtype whose
 * last two axes are the matrices (read as LAPACK reads them, column-major:
 * a row-major array of shape (..., r, c) holds c x r matrices), factors
 * them in place, and returns what the routine adds (pivots, eigenvalues,
 * ...) and `info`, an int32 array over the batch (0, or LAPACK's failing
 * step).  devarray/linalg.py makes the copies, reads the layout back and
 * turns info into LinAlgError.  These are private: their checks guard the
 * memory, not the user's arguments, which linalg.py checked.
 *
 * Ownership: every result is a new reference; temporaries are released at
 * the one exit.
 */
#include "ops/factorize.h"

#include "base/cuda_error.h"
#include "base/dtype.h"
#include "core/array.h"
#include "core/copy.h"
#include "runtime/cusolver.h"
#include "runtime/device.h"
#include "runtime/stream.h"

#ifdef DEVARRAY_HAVE_CUDA
#include "../../kernels/linalg_small.h"
#endif

/* A parsed operand: its batch (product of the leading axes) and the
   extents of its last two axes. */
typedef struct {
    DeviceArrayObject *array;
    int64_t batch, rows, cols;
} factor_operand;

static int
factor_parse(PyObject *obj, const char *func, int square, factor_operand *op)
{
    DeviceArrayObject *a;
    int d;

    if (!DeviceArray_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s takes a DeviceArray, not %s", func,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    a = (DeviceArrayObject *)obj;
    if (a->backend != DA_BACKEND_CUDA || a->ndim < 2 || !array_is_c_contiguous(a) ||
        (a->flags & DA_FLAG_READONLY) ||
        (a->typenum != DA_FLOAT32 && a->typenum != DA_FLOAT64 && a->typenum != DA_COMPLEX64 &&
         a->typenum != DA_COMPLEX128) ||
        (square && DA_SHAPE(a)[a->ndim - 1] != DA_SHAPE(a)[a->ndim - 2])) {
        PyErr_Format(PyExc_ValueError,
                     "%s takes a writable C-contiguous CUDA array of %smatrices of a "
                     "floating dtype, not a %d-d %s array",
                     func, square ? "square " : "", a->ndim, dtype_table[a->typenum].name);
        return -1;
    }
    op->array = a;
    op->rows = DA_SHAPE(a)[a->ndim - 2];
    op->cols = DA_SHAPE(a)[a->ndim - 1];
    op->batch = 1;
    for (d = 0; d < a->ndim - 2; d++) {
        op->batch *= DA_SHAPE(a)[d];
    }
    return array_activate(a);
}

#ifdef DEVARRAY_HAVE_CUDA
/* A new array of `typenum` over op's batch, followed by `extra` axes of
   extents e0, e1. */
static DeviceArrayObject *
factor_batch_array(const factor_operand *op, int typenum, int extra, int64_t e0, int64_t e1)
{
    int64_t shape[DA_MAXDIMS];
    int batch_ndim = op->array->ndim - 2, d;

    for (d = 0; d < batch_ndim; d++) {
        shape[d] = DA_SHAPE(op->array)[d];
    }
    if (extra > 0) {
        shape[batch_ndim] = e0;
    }
    if (extra > 1) {
        shape[batch_ndim + 1] = e1;
    }
    return array_new(DA_BACKEND_CUDA, typenum, batch_ndim + extra, shape);
}

static int
real_typenum(int typenum)
{
    return typenum == DA_FLOAT32 || typenum == DA_COMPLEX64 ? DA_FLOAT32 : DA_FLOAT64;
}

/* A zeroed int32 info array over op's batch; NULL with an exception. */
static DeviceArrayObject *
factor_info(const factor_operand *op)
{
    DeviceArrayObject *info = factor_batch_array(op, DA_INT32, 0, 0, 0);
    cudaError_t err;

    if (info == NULL) {
        return NULL;
    }
    err = cudaMemsetAsync(info->data, 0, (size_t)DA_NBYTES(info), stream_current());
    if (err != cudaSuccess) {
        cuda_error_raise(err, "cudaMemsetAsync");
        Py_DECREF(info);
        return NULL;
    }
    return info;
}

/* Whether the one-thread-per-matrix kernels take n x n matrices of op. */
static int
factor_small(const factor_operand *op)
{
    return (op->array->typenum == DA_FLOAT32 || op->array->typenum == DA_FLOAT64) &&
           op->rows <= DA_SMALL_N_MAX;
}

/* 0, or -1 with CUDAError when a launch failed. */
static int
factor_launched(cudaError_t err, const char *launcher)
{
    return err == cudaSuccess ? 0 : cuda_error_raise(err, launcher);
}

/* The C-contiguous copy of a with its last two axes swapped. */
static DeviceArrayObject *
factor_transposed_copy(DeviceArrayObject *a)
{
    DeviceArrayObject *view, *copy;
    int axes[DA_MAXDIMS], d;

    for (d = 0; d < a->ndim; d++) {
        axes[d] = d;
    }
    axes[a->ndim - 2] = a->ndim - 1;
    axes[a->ndim - 1] = a->ndim - 2;
    view = array_transposed(a, axes);
    if (view == NULL) {
        return NULL;
    }
    copy = copy_contiguous_as(view, a->typenum);
    Py_DECREF(view);
    return copy;
}
#endif

#define FACTOR_NO_CUDA() \
    PyErr_Format(PyExc_RuntimeError, "devarray's linalg primitives need CUDA, and devarray " \
                 "was built without it")

/* _linalg_lu(a) -> (pivots, info): LU with partial pivoting in place; for
   every matrix, det = (-1)^(pivots != 1..n) * prod(diagonal). */
static PyObject *
factor_lu(PyObject *Py_UNUSED(module), PyObject *arg)
{
    factor_operand op;
    DeviceArrayObject *pivots = NULL, *info = NULL;

    if (factor_parse(arg, "_linalg_lu", 1, &op) < 0) {
        return NULL;
    }
#ifdef DEVARRAY_HAVE_CUDA
    pivots = factor_batch_array(&op, DA_INT64, 1, op.rows, 0);
    info = pivots == NULL ? NULL : factor_info(&op);
    if (info == NULL) {
        goto error;
    }
    if (op.batch > 0 && op.rows > 0) {
        if (factor_small(&op)) {
            if (factor_launched(da_cuda_small_lu(op.array->typenum, op.array->data, op.rows,
                                                 op.batch, (int64_t *)pivots->data,
                                                 (int32_t *)info->data, stream_current()),
                                "da_cuda_small_lu") < 0) {
                goto error;
            }
        } else if (cusolver_getrf(op.array->device, op.array->typenum, op.rows, op.batch,
                                  op.array->data, (int64_t *)pivots->data,
                                  (int32_t *)info->data) < 0) {
            goto error;
        }
    }
    return Py_BuildValue("(NN)", pivots, info);

error:
    Py_XDECREF(pivots);
    Py_XDECREF(info);
    return NULL;
#else
    (void)pivots;
    (void)info;
    return FACTOR_NO_CUDA();
#endif
}

/* _linalg_det(a) -> det or None: the determinants of a's real matrices
   where the one-thread-per-matrix kernels take them, in one pass that
   leaves a as it was; None for empty, larger or complex ones, whose
   determinant linalg.py composes from _linalg_lu. */
static PyObject *
factor_det(PyObject *Py_UNUSED(module), PyObject *arg)
{
    factor_operand op;
    DeviceArrayObject *det = NULL;

    if (factor_parse(arg, "_linalg_det", 1, &op) < 0) {
        return NULL;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (!factor_small(&op) || op.rows == 0) {
        Py_RETURN_NONE;
    }
    det = factor_batch_array(&op, op.array->typenum, 0, 0, 0);
    if (det == NULL ||
        factor_launched(da_cuda_small_det(op.array->typenum, op.array->data, det->data, op.rows,
                                          op.batch, stream_current()),
                        "da_cuda_small_det") < 0) {
        goto error;
    }
    return (PyObject *)det;

error:
    Py_XDECREF(det);
    return NULL;
#else
    (void)det;
    return FACTOR_NO_CUDA();
#endif
}

/* _linalg_inv(a) -> (a, info) or None: the inverses of a's real matrices in
   place where the one-thread-per-matrix kernels take them; None for
   empty, larger or complex ones, which linalg.py inverts with
   _linalg_solve. */
static PyObject *
factor_inv(PyObject *Py_UNUSED(module), PyObject *arg)
{
    factor_operand op;
    DeviceArrayObject *info = NULL;

    if (factor_parse(arg, "_linalg_inv", 1, &op) < 0) {
        return NULL;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (!factor_small(&op) || op.rows == 0) {
        Py_RETURN_NONE;
    }
    info = factor_info(&op);
    if (info == NULL ||
        factor_launched(da_cuda_small_inv(op.array->typenum, op.array->data, op.rows, op.batch,
                                          (int32_t *)info->data, stream_current()),
                        "da_cuda_small_inv") < 0) {
        goto error;
    }
    return Py_BuildValue("(ON)", op.array, info);

error:
    Py_XDECREF(info);
    return NULL;
#else
    (void)info;
    return FACTOR_NO_CUDA();
#endif
}

/* _linalg_solve(a, b, identity) -> (x, info): X with A X = B for the n x n
   matrices A that a holds row-major and b's n x k right-hand sides
   (row-major, shape (..., n, k)); identity says b holds identity matrices
   (X is A's inverse).  a and b are destroyed, x is b or a new array. */
static PyObject *
factor_solve(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *a_obj, *b_obj;
    int identity;
    factor_operand op, rhs;
    DeviceArrayObject *info = NULL, *pivots = NULL, *bt = NULL, *x = NULL;

    if (!PyArg_ParseTuple(args, "OOp:_linalg_solve", &a_obj, &b_obj, &identity) ||
        factor_parse(a_obj, "_linalg_solve", 1, &op) < 0 ||
        factor_parse(b_obj, "_linalg_solve", 0, &rhs) < 0) {
        return NULL;
    }
    if (rhs.array->typenum != op.array->typenum || rhs.batch != op.batch ||
        rhs.rows != op.rows || rhs.array->device != op.array->device ||
        (identity && rhs.cols != rhs.rows)) {
        return PyErr_Format(PyExc_ValueError, "_linalg_solve: b must be of a's dtype, batch, "
                            "rows and device (and square for identity)");
    }
#ifdef DEVARRAY_HAVE_CUDA
    info = factor_info(&op);
    if (info == NULL) {
        goto error;
    }
    if (op.batch == 0 || op.rows == 0 || rhs.cols == 0) {
        Py_INCREF(rhs.array);
        return Py_BuildValue("(NN)", rhs.array, info);
    }
    if (factor_small(&op)) {
        if (factor_launched(da_cuda_small_solve(op.array->typenum, op.array->data,
                                                rhs.array->data, op.rows, rhs.cols, op.batch,
                                                (int32_t *)info->data, stream_current()),
                            "da_cuda_small_solve") < 0) {
            goto error;
        }
        Py_INCREF(rhs.array);
        return Py_BuildValue("(NN)", rhs.array, info);
    }
    /* a row-major holds A^T column-major, which getrf factors.  An inverse:
       solve A^T Y = I, whose Y^T = A^-1 is Y read row-major.  Otherwise
       solve (A^T)^T X = B with B column-major, i.e. b transposed (a
       vector is its own). */
    pivots = factor_batch_array(&op, DA_INT64, 1, op.rows, 0);
    bt = pivots == NULL ? NULL
         : identity || rhs.cols == 1 ? (Py_INCREF(rhs.array), rhs.array)
                                     : factor_transposed_copy(rhs.array);
    if (bt == NULL ||
        cusolver_getrf(op.array->device, op.array->typenum, op.rows, op.batch, op.array->data,
                       (int64_t *)pivots->data, (int32_t *)info->data) < 0 ||
        cusolver_getrs(op.array->device, op.array->typenum, op.rows, rhs.cols, op.batch,
                       !identity, op.array->data, (int64_t *)pivots->data, bt->data) < 0) {
        goto error;
    }
    x = identity || rhs.cols == 1 ? (Py_INCREF(bt), bt) : factor_transposed_copy(bt);
    if (x == NULL) {
        goto error;
    }
    Py_DECREF(pivots);
    Py_DECREF(bt);
    return Py_BuildValue("(NN)", x, info);

error:
    Py_XDECREF(info);
    Py_XDECREF(pivots);
    Py_XDECREF(bt);
    return NULL;
#else
    (void)info;
    (void)pivots;
    (void)bt;
    (void)x;
    return FACTOR_NO_CUDA();
#endif
}

/* _linalg_cholesky(a) -> (factor, info): the lower Cholesky factor L
   (A = L L^H) of the Hermitian matrices whose lower triangle a holds
   row-major, in factor's lower triangle (its upper one undefined); factor
   is a or a new array, a is destroyed. */
static PyObject *
factor_cholesky(PyObject *Py_UNUSED(module), PyObject *arg)
{
    factor_operand op;
    DeviceArrayObject *info = NULL, *t = NULL, *factor = NULL;

    if (factor_parse(arg, "_linalg_cholesky", 1, &op) < 0) {
        return NULL;
    }
#ifdef DEVARRAY_HAVE_CUDA
    info = factor_info(&op);
    if (info == NULL) {
        return NULL;
    }
    if (op.batch == 0 || op.rows == 0 || factor_small(&op)) {
        if (op.batch > 0 && op.rows > 0 &&
            factor_launched(da_cuda_small_cholesky(op.array->typenum, op.array->data, op.rows,
                                                   op.batch, (int32_t *)info->data,
                                                   stream_current()),
                            "da_cuda_small_cholesky") < 0) {
            goto error;
        }
        Py_INCREF(op.array);
        return Py_BuildValue("(NN)", op.array, info);
    }
    /* A^T row-major is A column-major: potrf's lower variant reads A's
       lower triangle and leaves L column-major, i.e. L^T row-major */
    t = factor_transposed_copy(op.array);
    if (t == NULL || cusolver_potrf(op.array->device, op.array->typenum, op.rows, op.batch,
                                    t->data, (int32_t *)info->data) < 0) {
        goto error;
    }
    factor = factor_transposed_copy(t);
    if (factor == NULL) {
        goto error;
    }
    Py_DECREF(t);
    return Py_BuildValue("(NN)", factor, info);

error:
    Py_XDECREF(info);
    Py_XDECREF(t);
    return NULL;
#else
    (void)info;
    (void)t;
    (void)factor;
    return FACTOR_NO_CUDA();
#endif
}

/* _linalg_eigh(a, vectors) -> (w, info, as_rows): the eigenvalues,
   ascending, of the Hermitian matrices whose lower triangle a holds
   row-major; with vectors, a then holds the eigenvectors as columns, or,
   where as_rows (cuSOLVER's column-major output), their conjugates as
   rows. */
static PyObject *
factor_eigh(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *a_obj;
    int vectors;
    factor_operand op;
    DeviceArrayObject *w = NULL, *info = NULL;
    int small;

    if (!PyArg_ParseTuple(args, "Op:_linalg_eigh", &a_obj, &vectors) ||
        factor_parse(a_obj, "_linalg_eigh", 1, &op) < 0) {
        return NULL;
    }
#ifdef DEVARRAY_HAVE_CUDA
    w = factor_batch_array(&op, real_typenum(op.array->typenum), 1, op.rows, 0);
    info = w == NULL ? NULL : factor_info(&op);
    if (info == NULL) {
        goto error;
    }
    small = factor_small(&op);
    if (op.batch > 0 && op.rows > 0) {
        if (small) {
            if (factor_launched(da_cuda_small_eigh(op.array->typenum, op.array->data, w->data,
                                                   op.rows, op.batch, vectors,
                                                   (int32_t *)info->data, stream_current()),
                                "da_cuda_small_eigh") < 0) {
                goto error;
            }
        } else if (cusolver_syevd(op.array->device, op.array->typenum, op.rows, op.batch,
                                  vectors, op.array->data, w->data,
                                  (int32_t *)info->data) < 0) {
            goto error;
        }
    }
    return Py_BuildValue("(NNO)", w, info, small ? Py_False : Py_True);

error:
    Py_XDECREF(w);
    Py_XDECREF(info);
    return NULL;
#else
    (void)vectors;
    (void)w;
    (void)info;
    (void)small;
    return FACTOR_NO_CUDA();
#endif
}

/* _linalg_svd(a, job) -> (s, u, vt, info): the SVD of the m x n matrices
   (m >= n) that a holds column-major (shape (..., n, m)), destroying them;
   job "A": u (..., m, m) and vt (..., n, n); "S": u (..., n, m) and vt
   (..., n, n); "N": u and vt None.  u and vt hold U and V^H column-major. */
static PyObject *
factor_svd(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *a_obj;
    const char *job;
    factor_operand op;
    DeviceArrayObject *s = NULL, *u = NULL, *vt = NULL, *info = NULL;
    int64_t m, n;

    if (!PyArg_ParseTuple(args, "Os:_linalg_svd", &a_obj, &job) ||
        factor_parse(a_obj, "_linalg_svd", 0, &op) < 0) {
        return NULL;
    }
    m = op.cols;
    n = op.rows;
    if ((job[0] != 'A' && job[0] != 'S' && job[0] != 'N') || job[1] != '\0' || m < n) {
        return PyErr_Format(PyExc_ValueError, "_linalg_svd: job must be 'A', 'S' or 'N' and "
                            "the matrices no wider than tall, not %s for %lld x %lld",
                            job, (long long)m, (long long)n);
    }
#ifdef DEVARRAY_HAVE_CUDA
    s = factor_batch_array(&op, real_typenum(op.array->typenum), 1, n, 0);
    info = s == NULL ? NULL : factor_info(&op);
    if (info == NULL) {
        goto error;
    }
    if (job[0] != 'N') {
        u = factor_batch_array(&op, op.array->typenum, 2, job[0] == 'A' ? m : n, m);
        vt = u == NULL ? NULL : factor_batch_array(&op, op.array->typenum, 2, n, n);
        if (vt == NULL) {
            goto error;
        }
    }
    if (op.batch > 0 && n > 0 &&
        cusolver_gesvd(op.array->device, op.array->typenum, m, n, op.batch, job[0],
                       op.array->data, s->data, u == NULL ? NULL : u->data,
                       vt == NULL ? NULL : vt->data, (int32_t *)info->data) < 0) {
        goto error;
    }
    if (u == NULL) {
        return Py_BuildValue("(NOON)", s, Py_None, Py_None, info);
    }
    return Py_BuildValue("(NNNN)", s, u, vt, info);

error:
    Py_XDECREF(s);
    Py_XDECREF(u);
    Py_XDECREF(vt);
    Py_XDECREF(info);
    return NULL;
#else
    (void)s;
    (void)u;
    (void)vt;
    (void)info;
    return FACTOR_NO_CUDA();
#endif
}

/* _linalg_svdj(a, vectors, econ) -> (s, u, v, info): the SVD by Jacobi
   rotations of the m x n matrices that a holds column-major (shape (...,
   n, m)), destroying them: u and v hold U and V (not V^H) column-major, of
   k = min(m, n) columns where econ and the matrices exceed 32 x 32, else
   full (their shapes say which); without vectors they hold nothing. */
static PyObject *
factor_svdj(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *a_obj;
    int vectors, econ;
    factor_operand op;
    DeviceArrayObject *s = NULL, *u = NULL, *v = NULL, *info = NULL;
    int64_t m, n, k;
    int full;

    if (!PyArg_ParseTuple(args, "Opp:_linalg_svdj", &a_obj, &vectors, &econ) ||
        factor_parse(a_obj, "_linalg_svdj", 0, &op) < 0) {
        return NULL;
    }
    m = op.cols;
    n = op.rows;
    k = m < n ? m : n;
    full = !econ || (m <= 32 && n <= 32);
#ifdef DEVARRAY_HAVE_CUDA
    s = factor_batch_array(&op, real_typenum(op.array->typenum), 1, k, 0);
    info = s == NULL ? NULL : factor_info(&op);
    u = info == NULL ? NULL : factor_batch_array(&op, op.array->typenum, 2, full ? m : k, m);
    v = u == NULL ? NULL : factor_batch_array(&op, op.array->typenum, 2, full ? n : k, n);
    if (v == NULL) {
        goto error;
    }
    if (op.batch > 0 && k > 0 &&
        cusolver_gesvdj(op.array->device, op.array->typenum, m, n, op.batch, vectors, econ,
                        op.array->data, s->data, u->data, v->data, (int32_t *)info->data) < 0) {
        goto error;
    }
    return Py_BuildValue("(NNNN)", s, u, v, info);

error:
    Py_XDECREF(s);
    Py_XDECREF(u);
    Py_XDECREF(v);
    Py_XDECREF(info);
    return NULL;
#else
    (void)vectors;
    (void)full;
    (void)k;
    (void)s;
    (void)u;
    (void)v;
    (void)info;
    return FACTOR_NO_CUDA();
#endif
}

/* _linalg_geqrf(a) -> (tau, info): QR of the m x n matrices that a holds
   column-major (shape (..., n, m)) in place, LAPACK's geqrf. */
static PyObject *
factor_geqrf(PyObject *Py_UNUSED(module), PyObject *arg)
{
    factor_operand op;
    DeviceArrayObject *tau = NULL, *info = NULL;
    int64_t m, n;

    if (factor_parse(arg, "_linalg_geqrf", 0, &op) < 0) {
        return NULL;
    }
    m = op.cols;
    n = op.rows;
#ifdef DEVARRAY_HAVE_CUDA
    tau = factor_batch_array(&op, op.array->typenum, 1, m < n ? m : n, 0);
    info = tau == NULL ? NULL : factor_info(&op);
    if (info == NULL) {
        goto error;
    }
    if (op.batch > 0 && m > 0 && n > 0 &&
        cusolver_geqrf(op.array->device, op.array->typenum, m, n, op.batch, op.array->data,
                       tau->data, (int32_t *)info->data) < 0) {
        goto error;
    }
    return Py_BuildValue("(NN)", tau, info);

error:
    Py_XDECREF(tau);
    Py_XDECREF(info);
    return NULL;
#else
    (void)m;
    (void)n;
    (void)tau;
    (void)info;
    return FACTOR_NO_CUDA();
#endif
}

/* _linalg_orgqr(q, tau) -> info: in place of q, which holds m x n
   matrices column-major (shape (..., n, m), m >= n) with geqrf's first
   k = tau.shape[-1] <= n reflectors in their first columns, the Q of
   orthonormal columns they make. */
static PyObject *
factor_orgqr(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *q_obj, *tau_obj;
    factor_operand op;
    DeviceArrayObject *tau, *info;
    int64_t m, n, k;

    if (!PyArg_ParseTuple(args, "OO!:_linalg_orgqr", &q_obj, &DeviceArray_Type, &tau_obj) ||
        factor_parse(q_obj, "_linalg_orgqr", 0, &op) < 0) {
        return NULL;
    }
    tau = (DeviceArrayObject *)tau_obj;
    m = op.cols;
    n = op.rows;
    k = tau->ndim > 0 ? DA_SHAPE(tau)[tau->ndim - 1] : -1;
    if (tau->backend != DA_BACKEND_CUDA || tau->device != op.array->device ||
        tau->typenum != op.array->typenum || !array_is_c_contiguous(tau) || k < 0 || k > n ||
        n > m || (k > 0 && tau->size / k != op.batch)) {
        return PyErr_Format(PyExc_ValueError, "_linalg_orgqr: tau must be a C-contiguous "
                            "array of q's dtype and device with a row of at most n reflector "
                            "scalars per matrix, and q's matrices no wider than tall");
    }
#ifdef DEVARRAY_HAVE_CUDA
    info = factor_info(&op);
    if (info == NULL) {
        return NULL;
    }
    if (op.batch > 0 && n > 0 &&
        cusolver_orgqr(op.array->device, op.array->typenum, m, n, k, op.batch, op.array->data,
                       tau->data, (int32_t *)info->data) < 0) {
        Py_DECREF(info);
        return NULL;
    }
    return (PyObject *)info;
#else
    (void)info;
    return FACTOR_NO_CUDA();
#endif
}

/* _linalg_geev(a, vectors) -> (w, vr, info): the eigenvalues and (with
   vectors, else vr None) right eigenvectors, column-major, of the general
   complex matrices that a holds column-major, destroying them. */
static PyObject *
factor_geev(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *a_obj;
    int vectors;
    factor_operand op;
    DeviceArrayObject *w = NULL, *vr = NULL, *info = NULL;

    if (!PyArg_ParseTuple(args, "Op:_linalg_geev", &a_obj, &vectors) ||
        factor_parse(a_obj, "_linalg_geev", 1, &op) < 0) {
        return NULL;
    }
    if (op.array->typenum != DA_COMPLEX64 && op.array->typenum != DA_COMPLEX128) {
        return PyErr_Format(PyExc_ValueError, "_linalg_geev takes complex matrices");
    }
#ifdef DEVARRAY_HAVE_CUDA
    w = factor_batch_array(&op, op.array->typenum, 1, op.rows, 0);
    info = w == NULL ? NULL : factor_info(&op);
    if (info == NULL) {
        goto error;
    }
    if (vectors) {
        vr = factor_batch_array(&op, op.array->typenum, 2, op.rows, op.rows);
        if (vr == NULL) {
            goto error;
        }
    }
    if (op.batch > 0 && op.rows > 0 &&
        cusolver_geev(op.array->device, op.array->typenum, op.rows, op.batch, vectors,
                      op.array->data, w->data, vr == NULL ? NULL : vr->data,
                      (int32_t *)info->data) < 0) {
        goto error;
    }
    if (vr == NULL) {
        return Py_BuildValue("(NON)", w, Py_None, info);
    }
    return Py_BuildValue("(NNN)", w, vr, info);

error:
    Py_XDECREF(w);
    Py_XDECREF(vr);
    Py_XDECREF(info);
    return NULL;
#else
    (void)vectors;
    (void)w;
    (void)vr;
    (void)info;
    return FACTOR_NO_CUDA();
#endif
}

static PyMethodDef factorize_functions[] = {
    {"_linalg_lu", factor_lu, METH_O,
     "_linalg_lu(a)\n--\n\nLU with partial pivoting of a's square matrices in place: "
     "(pivots, info)."},
    {"_linalg_det", factor_det, METH_O,
     "_linalg_det(a)\n--\n\nThe determinants of a's real matrices of at most 16 rows, a "
     "unchanged; None for other matrices."},
    {"_linalg_inv", factor_inv, METH_O,
     "_linalg_inv(a)\n--\n\nThe inverses of a's real matrices of at most 16 rows in place: "
     "(a, info); None for other matrices."},
    {"_linalg_solve", factor_solve, METH_VARARGS,
     "_linalg_solve(a, b, identity)\n--\n\nX with A X = B, A row-major in a, B (..., n, k) "
     "row-major in b (identity matrices where identity), both destroyed: (x, info)."},
    {"_linalg_cholesky", factor_cholesky, METH_O,
     "_linalg_cholesky(a)\n--\n\nThe lower Cholesky factor of a's matrices (lower triangle "
     "read, row-major), a destroyed: (factor, info)."},
    {"_linalg_eigh", factor_eigh, METH_VARARGS,
     "_linalg_eigh(a, vectors)\n--\n\nEigenvalues of a's Hermitian matrices (lower triangle "
     "read), ascending; with vectors, a then holds the eigenvectors as columns, or where "
     "as_rows their conjugates as rows: (w, info, as_rows)."},
    {"_linalg_svd", factor_svd, METH_VARARGS,
     "_linalg_svd(a, job)\n--\n\nThe SVD of the column-major m x n (m >= n) matrices of a: "
     "(s, u, vt, info), u and vt column-major."},
    {"_linalg_svdj", factor_svdj, METH_VARARGS,
     "_linalg_svdj(a, vectors, econ)\n--\n\nThe SVD by Jacobi rotations of a's column-major "
     "matrices: (s, u, v, info), u and v column-major, full or of min(m, n) columns."},
    {"_linalg_geqrf", factor_geqrf, METH_O,
     "_linalg_geqrf(a)\n--\n\nLAPACK's geqrf of a's column-major matrices in place: "
     "(tau, info)."},
    {"_linalg_orgqr", factor_orgqr, METH_VARARGS,
     "_linalg_orgqr(q, tau)\n--\n\nLAPACK's orgqr/ungqr in place of q's column-major "
     "matrices: info."},
    {"_linalg_geev", factor_geev, METH_VARARGS,
     "_linalg_geev(a, vectors)\n--\n\nEigenvalues and right eigenvectors (column-major) of "
     "a's complex column-major matrices: (w, vr, info)."},
    {NULL, NULL, 0, NULL},
};

int
factorize_module_init(PyObject *module)
{
    return PyModule_AddFunctions(module, factorize_functions);
}
