/*
 * matmul, @, matrix_transpose, tensordot, vecdot: see linalg.h.
 *
 * matmul: both operands are cast to NumPy's result_type (only when their
 * dtype differs), a 1-D operand becomes a 1 x k row (left) or a k x 1
 * column (right) through a stride-0 axis, the batch dimensions broadcast,
 * and the product is written to a new C-contiguous array whose shape
 * leaves out the added axes.  The launchers (kernels/launch.h, da_matmul)
 * take each operand as one batch stride plus a matrix that is row-major or
 * column-major with a leading dimension, which is what cuBLAS takes
 * without copying: C-contiguous stacks, their .mT views, a broadcast
 * matrix (batch stride 0) and sliced rows all qualify.  Any other layout
 * (a stride-0 or negative matrix axis, batch dimensions that do not
 * collapse to one stride) is copied C-contiguous first, broadcast to the
 * full batch.
 *
 * tensordot permutes the contracted axes of x1 last and those of x2 first,
 * reshapes both to matrices (a view where strides allow) and multiplies
 * them: one matmul.  vecdot is sum(conj(x1) * x2, axis) through the
 * elementwise and reduction machinery, in the promoted dtype (the sum of
 * an integer dtype wraps in it, as NumPy's vecdot; bool gives or-of-ands).
 *
 * Every temporary is a DeviceArray released before return.
 */
#include "ops/linalg.h"

#include "core/array.h"
#include "runtime/backend.h"
#include "core/copy.h"
#include "base/dtype.h"
#include "core/elementwise.h"
#include "core/reduce.h"
#include "runtime/transfer.h"
#include "ops/ufunc.h"
#include "core/view_ops.h"

#define LINALG_SIGNATURE "(n?,k),(k,m?)->(n?,m?)"

/* One operand of a product, as the launcher takes it. */
typedef struct {
    DeviceArrayObject *keep; /* the array whose memory `data` points into */
    const char *data;
    int64_t batch, row, col; /* element strides */
} linalg_operand;

/* The stacked product of a (m x k) and b (k x n), already of one dtype,
   with a and b at least 2-D after promotion: shapes and byte strides of
   each (batch axes first), as linalg_matmul_arrays builds them. */
typedef struct {
    int nbatch;
    int64_t batch_shape[DA_MAXDIMS];
    int64_t shape[2][DA_MAXDIMS];   /* nbatch + 2 extents, broadcast batch */
    int64_t strides[2][DA_MAXDIMS]; /* bytes; 0 along broadcast axes */
} linalg_problem;

/* Leading dimensions BLAS accepts for a rows x cols matrix with element
   strides (sr, sc): row-major (col stride 1, row stride >= cols) or
   column-major (row stride 1, col stride >= rows); an axis of extent 1 may
   have any stride.  Sets *row, *col and returns 1, or 0 for neither. */
static int
linalg_blas_layout(int64_t rows, int64_t cols, int64_t sr, int64_t sc,
                   int64_t *row, int64_t *col)
{
    const int64_t min_rows = rows > 1 ? rows : 1, min_cols = cols > 1 ? cols : 1;
    if ((cols == 1 || sc == 1) && (rows == 1 || sr >= min_cols)) {
        *row = rows == 1 ? min_cols : sr;
        *col = 1;
        return 1;
    }
    if ((rows == 1 || sr == 1) && (cols == 1 || sc >= min_rows)) {
        *row = 1;
        *col = cols == 1 ? min_rows : sc;
        return 1;
    }
    return 0;
}

/* The one byte stride that walks the broadcast batch axes of operand `w`
   in C order, or 0 (with *stride unset) when they do not collapse. */
static int
linalg_batch_stride(const linalg_problem *pr, int w, int64_t *stride)
{
    int64_t found = 0, span = 1;
    int d, seen = 0;
    for (d = pr->nbatch - 1; d >= 0; d--) {
        const int64_t extent = pr->batch_shape[d], s = pr->strides[w][d];
        if (extent == 1) {
            continue;
        }
        if (!seen) {
            found = s;
            seen = 1;
        }
        else if (s != found * span) {
            return 0;
        }
        span *= extent;
    }
    *stride = found;
    return found >= 0;
}

/* Operand `w` (0: a, 1: b) of pr over array x (its memory) as the launcher
   takes it, copied C-contiguous and broadcast to the whole batch when its
   layout does not fit.  0, or -1 with an exception. */
static int
linalg_prepare(const linalg_problem *pr, int w, DeviceArrayObject *x,
               linalg_operand *op)
{
    const int nd = pr->nbatch + 2;
    const int64_t size = DA_ITEMSIZE(x), rows = pr->shape[w][nd - 2],
                  cols = pr->shape[w][nd - 1];
    const int64_t sr = pr->strides[w][nd - 2], sc = pr->strides[w][nd - 1];
    int64_t batch_bytes, full[DA_MAXDIMS];
    DeviceArrayObject *view;
    int d;

    if (sr % size == 0 && sc % size == 0 &&
        linalg_batch_stride(pr, w, &batch_bytes) && batch_bytes % size == 0 &&
        linalg_blas_layout(rows, cols, sr / size, sc / size, &op->row, &op->col)) {
        op->keep = x;
        Py_INCREF(x);
        op->data = x->data;
        op->batch = batch_bytes / size;
        return 0;
    }
    for (d = 0; d < nd; d++) {
        full[d] = d < pr->nbatch ? pr->batch_shape[d] : pr->shape[w][d];
    }
    view = array_view_of(x, nd, full, pr->strides[w], x->data);
    if (view == NULL) {
        return -1;
    }
    op->keep = copy_contiguous_as(view, x->typenum);
    Py_DECREF(view);
    if (op->keep == NULL) {
        return -1;
    }
    op->data = op->keep->data;
    op->row = cols;
    op->col = 1;
    op->batch = rows * cols;
    return 0;
}

/* ValueError for an operand with too few dimensions (NumPy's words). */
static PyObject *
linalg_too_few_dims(int which)
{
    PyErr_Format(PyExc_ValueError,
                 "matmul: Input operand %d does not have enough dimensions "
                 "(has 0, gufunc core with signature " LINALG_SIGNATURE
                 " requires 1)",
                 which);
    return NULL;
}

/* The operands as stacks of matrices (1-D promoted), the k check and the
   batch broadcast into pr; the result's shape into out_shape.  Returns the
   result's ndim, or -1 with ValueError. */
static int
linalg_shapes(const DeviceArrayObject *a, const DeviceArrayObject *b,
              linalg_problem *pr, int64_t *out_shape)
{
    const DeviceArrayObject *x[2] = {a, b};
    int64_t shape[2][DA_MAXDIMS], strides[2][DA_MAXDIMS];
    int nd[2], w, d, ndim = 0;

    for (w = 0; w < 2; w++) {
        if (x[w]->ndim >= 2) {
            nd[w] = x[w]->ndim;
            for (d = 0; d < nd[w]; d++) {
                shape[w][d] = DA_SHAPE(x[w])[d];
                strides[w][d] = DA_STRIDES(x[w])[d];
            }
        }
        else {
            /* a vector: a row on the left, a column on the right */
            nd[w] = 2;
            shape[w][1 - w] = DA_SHAPE(x[w])[0];
            strides[w][1 - w] = DA_STRIDES(x[w])[0];
            shape[w][w] = 1;
            strides[w][w] = 0;
        }
    }
    if (shape[0][nd[0] - 1] != shape[1][nd[1] - 2]) {
        PyErr_Format(PyExc_ValueError,
                     "matmul: Input operand 1 has a mismatch in its core "
                     "dimension 0, with gufunc signature " LINALG_SIGNATURE
                     " (size %lld is different from %lld)",
                     (long long)shape[1][nd[1] - 2], (long long)shape[0][nd[0] - 1]);
        return -1;
    }
    pr->nbatch = (nd[0] > nd[1] ? nd[0] : nd[1]) - 2;
    for (d = 0; d < pr->nbatch; d++) {
        int64_t extent = 1;
        for (w = 0; w < 2; w++) {
            const int src = d - (pr->nbatch - (nd[w] - 2));
            const int64_t e = src >= 0 ? shape[w][src] : 1;
            pr->shape[w][d] = e;
            pr->strides[w][d] = src >= 0 && e != 1 ? strides[w][src] : 0;
            if (e != 1 && extent != 1 && e != extent) {
                PyErr_SetString(PyExc_ValueError,
                                "matmul: the batch dimensions of the operands "
                                "(all but the last two) do not broadcast "
                                "together");
                return -1;
            }
            extent = e != 1 ? e : extent;
        }
        pr->batch_shape[d] = extent;
        out_shape[ndim++] = extent;
    }
    for (w = 0; w < 2; w++) {
        for (d = 0; d < 2; d++) {
            pr->shape[w][pr->nbatch + d] = shape[w][nd[w] - 2 + d];
            pr->strides[w][pr->nbatch + d] = strides[w][nd[w] - 2 + d];
        }
    }
    if (a->ndim >= 2) {
        out_shape[ndim++] = shape[0][nd[0] - 2];
    }
    if (b->ndim >= 2) {
        out_shape[ndim++] = shape[1][nd[1] - 1];
    }
    return ndim;
}

/* a @ b for two DeviceArrays: a new array. */
static PyObject *
linalg_matmul_arrays(DeviceArrayObject *a, DeviceArrayObject *b)
{
    linalg_problem pr;
    linalg_operand ops[2] = {{NULL, NULL, 0, 0, 0}, {NULL, NULL, 0, 0, 0}};
    DeviceArrayObject *cast[2] = {NULL, NULL}, *in[2] = {a, b}, *out = NULL;
    int64_t out_shape[DA_MAXDIMS];
    da_matmul g;
    int typenum, ndim, w, d;

    if (a->ndim == 0 || b->ndim == 0) {
        return linalg_too_few_dims(a->ndim == 0 ? 0 : 1);
    }
    if (array_check_same_place("matmul", a, b) < 0) {
        return NULL;
    }
    typenum = dtype_promote(a->typenum, b->typenum);
    if (typenum < 0) {
        return NULL;
    }
    ndim = linalg_shapes(a, b, &pr, out_shape);
    if (ndim < 0) {
        return NULL;
    }
    out = array_new(a->backend, typenum, ndim, out_shape);
    if (out == NULL || out->size == 0) {
        return (PyObject *)out;
    }
    g.k = pr.shape[0][pr.nbatch + 1];
    if (g.k == 0) {
        if (transfer_memset_zero(out->backend, out->data, (size_t)DA_NBYTES(out)) < 0) {
            goto error;
        }
        return (PyObject *)out;
    }
    for (w = 0; w < 2; w++) {
        if (in[w]->typenum != typenum) {
            cast[w] = copy_cast(in[w], typenum);
            if (cast[w] == NULL) {
                goto error;
            }
            in[w] = cast[w];
        }
    }
    /* again, for the strides of the cast copies (the shapes are the same) */
    if ((cast[0] != NULL || cast[1] != NULL) &&
        linalg_shapes(in[0], in[1], &pr, out_shape) < 0) {
        goto error;
    }
    for (w = 0; w < 2; w++) {
        if (linalg_prepare(&pr, w, in[w], &ops[w]) < 0) {
            goto error;
        }
    }
    g.typenum = typenum;
    g.batch = 1;
    for (d = 0; d < pr.nbatch; d++) {
        g.batch *= pr.batch_shape[d];
    }
    g.m = pr.shape[0][pr.nbatch];
    g.n = pr.shape[1][pr.nbatch + 1];
    g.a = ops[0].data;
    g.b = ops[1].data;
    g.out = out->data;
    g.a_batch = ops[0].batch;
    g.a_row = ops[0].row;
    g.a_col = ops[0].col;
    g.b_batch = ops[1].batch;
    g.b_row = ops[1].row;
    g.b_col = ops[1].col;
    if (backend_matmul(out->backend, out->device, &g) < 0) {
        goto error;
    }
    for (w = 0; w < 2; w++) {
        Py_DECREF(ops[w].keep);
        Py_XDECREF(cast[w]);
    }
    return (PyObject *)out;

error:
    for (w = 0; w < 2; w++) {
        Py_XDECREF(ops[w].keep);
        Py_XDECREF(cast[w]);
    }
    Py_XDECREF(out);
    return NULL;
}

/* Whether obj is a Python scalar that NumPy's matmul would see as 0-d. */
static int
linalg_is_python_scalar(PyObject *obj)
{
    return PyLong_Check(obj) || PyFloat_Check(obj) || PyComplex_Check(obj);
}

/* a @= b: the product copied into a (see linalg.h). */
static PyObject *
linalg_matmul_into(DeviceArrayObject *a, DeviceArrayObject *b)
{
    DeviceArrayObject *product = (DeviceArrayObject *)linalg_matmul_arrays(a, b);
    int d, same = 1;

    if (product == NULL) {
        return NULL;
    }
    same = product->ndim == a->ndim;
    for (d = 0; same && d < a->ndim; d++) {
        same = DA_SHAPE(product)[d] == DA_SHAPE(a)[d];
    }
    if (!same) {
        PyErr_SetString(PyExc_ValueError,
                        "matmul: a @= b needs a product of a's shape (NumPy's "
                        "rule: the output operand's core dimensions must match)");
        goto error;
    }
    if (!dtype_can_cast_same_kind(product->typenum, a->typenum)) {
        PyErr_Format(PyExc_TypeError,
                     "Cannot cast ufunc 'matmul' output from dtype('%s') to "
                     "dtype('%s') with casting rule 'same_kind'",
                     dtype_table[product->typenum].name, dtype_table[a->typenum].name);
        goto error;
    }
    if (a->flags & DA_FLAG_READONLY) {
        PyErr_SetString(PyExc_ValueError, "output array is read-only");
        goto error;
    }
    if (elementwise_copy(a, product) < 0) {
        goto error;
    }
    Py_DECREF(product);
    Py_INCREF(a);
    return (PyObject *)a;

error:
    Py_DECREF(product);
    return NULL;
}

PyObject *
linalg_matmul_operator(PyObject *a, PyObject *b, int inplace)
{
    if (DeviceArray_Check(a) && DeviceArray_Check(b)) {
        return inplace ? linalg_matmul_into((DeviceArrayObject *)a, (DeviceArrayObject *)b)
                       : linalg_matmul_arrays((DeviceArrayObject *)a,
                                              (DeviceArrayObject *)b);
    }
    if ((DeviceArray_Check(a) || linalg_is_python_scalar(a)) &&
        (DeviceArray_Check(b) || linalg_is_python_scalar(b))) {
        return linalg_too_few_dims(DeviceArray_Check(a) ? 1 : 0);
    }
    Py_INCREF(Py_NotImplemented);
    return Py_NotImplemented;
}

/* ---- module functions ---------------------------------------------------- */

/* TypeError unless obj is a DeviceArray; `name` and `arg` for the text. */
static int
linalg_check_array(PyObject *obj, const char *name, const char *arg)
{
    if (DeviceArray_Check(obj)) {
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "%s() argument %s must be a DeviceArray, not %.200s",
                 name, arg, Py_TYPE(obj)->tp_name);
    return -1;
}

static PyObject *
linalg_matmul(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "matmul() takes 2 positional arguments "
                     "but %zd were given", nargs);
        return NULL;
    }
    if (linalg_check_array(args[0], "matmul", "x1") < 0 ||
        linalg_check_array(args[1], "matmul", "x2") < 0) {
        return NULL;
    }
    return linalg_matmul_arrays((DeviceArrayObject *)args[0],
                                (DeviceArrayObject *)args[1]);
}

static PyObject *
linalg_matrix_transpose(PyObject *Py_UNUSED(module), PyObject *x)
{
    DeviceArrayObject *a = (DeviceArrayObject *)x;
    int axes[DA_MAXDIMS], d;

    if (linalg_check_array(x, "matrix_transpose", "x") < 0) {
        return NULL;
    }
    if (a->ndim < 2) {
        PyErr_Format(PyExc_ValueError,
                     "matrix_transpose: x must have at least 2 dimensions, "
                     "but it has %d",
                     a->ndim);
        return NULL;
    }
    for (d = 0; d < a->ndim; d++) {
        axes[d] = d;
    }
    axes[a->ndim - 2] = a->ndim - 1;
    axes[a->ndim - 1] = a->ndim - 2;
    return (PyObject *)array_transposed(a, axes);
}

/* tensordot's `axes` into the contracted axes of each operand: returns
   their count, or -1 with an exception. */
static int
linalg_tensordot_axes(PyObject *axes, const DeviceArrayObject *x1,
                      const DeviceArrayObject *x2, int *ax1, int *ax2)
{
    static const char repeated[] = "tensordot: repeated axis in axes";
    PyObject *pair = NULL, *side;
    int n[2], w, i;

    if (PyIndex_Check(axes) && !PyBool_Check(axes)) {
        Py_ssize_t count = PyNumber_AsSsize_t(axes, PyExc_OverflowError);
        if (count == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (count < 0 || count > x1->ndim || count > x2->ndim) {
            PyErr_Format(PyExc_ValueError,
                         "tensordot: axes=%zd must be between 0 and the "
                         "smaller ndim of x1 and x2 (%d and %d)",
                         count, x1->ndim, x2->ndim);
            return -1;
        }
        for (i = 0; i < (int)count; i++) {
            ax1[i] = x1->ndim - (int)count + i;
            ax2[i] = i;
        }
        return (int)count;
    }
    if (!PyTuple_Check(axes) && !PyList_Check(axes)) {
        PyErr_Format(PyExc_TypeError,
                     "tensordot: axes must be an int or a pair of sequences "
                     "of ints, not %.200s",
                     Py_TYPE(axes)->tp_name);
        return -1;
    }
    pair = PySequence_Fast(axes, "tensordot: axes must be a pair");
    if (pair == NULL) {
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(pair) != 2) {
        PyErr_SetString(PyExc_ValueError,
                        "tensordot: axes must be an int or a pair (axes of "
                        "x1, axes of x2)");
        goto error;
    }
    for (w = 0; w < 2; w++) {
        const DeviceArrayObject *x = w == 0 ? x1 : x2;
        int *out = w == 0 ? ax1 : ax2;
        side = PySequence_Fast_GET_ITEM(pair, w);
        if (PyIndex_Check(side) && !PyBool_Check(side)) {
            n[w] = array_normalize_axis(side, x->ndim, &out[0]) < 0 ? -1 : 1;
        }
        else if (PyTuple_Check(side) || PyList_Check(side)) {
            n[w] = PySequence_Size(side) > DA_MAXDIMS
                       ? -1
                       : array_normalize_axes(side, x->ndim, repeated, out);
            if (n[w] < 0 && !PyErr_Occurred()) {
                PyErr_SetString(PyExc_ValueError, repeated);
            }
        }
        else {
            PyErr_SetString(PyExc_TypeError,
                            "tensordot: each side of axes must be an int or a "
                            "sequence of ints");
            n[w] = -1;
        }
        if (n[w] < 0) {
            goto error;
        }
    }
    if (n[0] != n[1]) {
        PyErr_SetString(PyExc_ValueError,
                        "tensordot: axes of x1 and axes of x2 must have the "
                        "same length");
        goto error;
    }
    Py_DECREF(pair);
    return n[0];

error:
    Py_XDECREF(pair);
    return -1;
}

/* x permuted so that `contracted` (n axes, in order) come last (first when
   `leading`), reshaped to a matrix: the other axes' product by the
   contracted axes' product (or the transpose). */
static DeviceArrayObject *
linalg_tensordot_matrix(DeviceArrayObject *x, const int *contracted, int n,
                        int leading, int64_t *free_shape, int *nfree)
{
    int perm[DA_MAXDIMS], is_contracted[DA_MAXDIMS] = {0}, d, j = 0;
    int64_t rows = 1, inner = 1, shape[2];
    DeviceArrayObject *permuted, *matrix;

    for (d = 0; d < n; d++) {
        is_contracted[contracted[d]] = 1;
        inner *= DA_SHAPE(x)[contracted[d]];
    }
    *nfree = 0;
    if (leading) {
        for (d = 0; d < n; d++) {
            perm[j++] = contracted[d];
        }
    }
    for (d = 0; d < x->ndim; d++) {
        if (!is_contracted[d]) {
            perm[j++] = d;
            free_shape[(*nfree)++] = DA_SHAPE(x)[d];
            rows *= DA_SHAPE(x)[d];
        }
    }
    if (!leading) {
        for (d = 0; d < n; d++) {
            perm[j++] = contracted[d];
        }
    }
    permuted = array_transposed(x, perm);
    if (permuted == NULL) {
        return NULL;
    }
    shape[0] = leading ? inner : rows;
    shape[1] = leading ? rows : inner;
    matrix = view_ops_reshape(permuted, 2, shape, -1);
    Py_DECREF(permuted);
    return matrix;
}

static PyObject *
linalg_tensordot(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "", "axes", NULL};
    PyObject *o1, *o2, *axes = NULL, *product = NULL, *result = NULL;
    DeviceArrayObject *x1, *x2, *m1 = NULL, *m2 = NULL;
    int ax1[DA_MAXDIMS], ax2[DA_MAXDIMS], n, i, nfree1, nfree2;
    int64_t shape[2 * DA_MAXDIMS];

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|$O:tensordot", kwlist, &o1,
                                     &o2, &axes) ||
        linalg_check_array(o1, "tensordot", "x1") < 0 ||
        linalg_check_array(o2, "tensordot", "x2") < 0) {
        return NULL;
    }
    x1 = (DeviceArrayObject *)o1;
    x2 = (DeviceArrayObject *)o2;
    if (axes == NULL) {
        n = x1->ndim < 2 || x2->ndim < 2 ? -2 : 2;
        if (n == -2) {
            PyErr_SetString(PyExc_ValueError,
                            "tensordot: the default axes=2 needs x1 and x2 of "
                            "at least 2 dimensions");
            return NULL;
        }
        for (i = 0; i < 2; i++) {
            ax1[i] = x1->ndim - 2 + i;
            ax2[i] = i;
        }
    }
    else if ((n = linalg_tensordot_axes(axes, x1, x2, ax1, ax2)) < 0) {
        return NULL;
    }
    if (array_check_same_place("tensordot", x1, x2) < 0) {
        return NULL;
    }
    for (i = 0; i < n; i++) {
        if (DA_SHAPE(x1)[ax1[i]] != DA_SHAPE(x2)[ax2[i]]) {
            PyErr_Format(PyExc_ValueError,
                         "tensordot: shape-mismatch for sum: axis %d of x1 has "
                         "size %lld, axis %d of x2 has size %lld",
                         ax1[i], (long long)DA_SHAPE(x1)[ax1[i]], ax2[i],
                         (long long)DA_SHAPE(x2)[ax2[i]]);
            return NULL;
        }
    }
    if (x1->ndim + x2->ndim - 2 * n > DA_MAXDIMS) {
        PyErr_Format(PyExc_ValueError,
                     "tensordot: the result would have %d dimensions; the most "
                     "an array has is %d",
                     x1->ndim + x2->ndim - 2 * n, DA_MAXDIMS);
        return NULL;
    }
    m1 = linalg_tensordot_matrix(x1, ax1, n, 0, shape, &nfree1);
    if (m1 == NULL) {
        goto error;
    }
    m2 = linalg_tensordot_matrix(x2, ax2, n, 1, shape + nfree1, &nfree2);
    if (m2 == NULL) {
        goto error;
    }
    product = linalg_matmul_arrays(m1, m2);
    if (product == NULL) {
        goto error;
    }
    result = (PyObject *)view_ops_reshape((DeviceArrayObject *)product,
                                          nfree1 + nfree2, shape, -1);
error:
    Py_XDECREF(product);
    Py_XDECREF(m1);
    Py_XDECREF(m2);
    return result;
}

/* The size of the vector axis `axis` (negative) of x, 1 where x has too
   few dimensions to reach it (it broadcasts there). */
static int64_t
linalg_vector_size(const DeviceArrayObject *x, int axis)
{
    return -axis <= x->ndim ? DA_SHAPE(x)[x->ndim + axis] : 1;
}

static PyObject *
linalg_vecdot(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"", "", "axis", NULL};
    PyObject *o1, *o2, *axis_obj = NULL, *conj = NULL, *product = NULL,
             *axis_neg = NULL, *result = NULL, *operands[2];
    DeviceArrayObject *x1, *x2;
    int ndim, axis, typenum;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|$O:vecdot", kwlist, &o1, &o2,
                                     &axis_obj) ||
        linalg_check_array(o1, "vecdot", "x1") < 0 ||
        linalg_check_array(o2, "vecdot", "x2") < 0) {
        return NULL;
    }
    x1 = (DeviceArrayObject *)o1;
    x2 = (DeviceArrayObject *)o2;
    ndim = x1->ndim > x2->ndim ? x1->ndim : x2->ndim;
    if (x1->ndim == 0 || x2->ndim == 0) {
        PyErr_SetString(PyExc_ValueError,
                        "vecdot: x1 and x2 must have at least one dimension");
        return NULL;
    }
    if (axis_obj == NULL) {
        axis = ndim - 1;
    }
    else if (array_normalize_axis(axis_obj, ndim, &axis) < 0) {
        return NULL;
    }
    axis -= ndim; /* counted from the end, in x1, x2 and the product alike */
    if (linalg_vector_size(x1, axis) != linalg_vector_size(x2, axis)) {
        PyErr_Format(PyExc_ValueError,
                     "vecdot: the vectors of x1 (size %lld) and x2 (size %lld) "
                     "along axis %d differ in size",
                     (long long)linalg_vector_size(x1, axis),
                     (long long)linalg_vector_size(x2, axis), axis);
        return NULL;
    }
    if (array_check_same_place("vecdot", x1, x2) < 0) {
        return NULL;
    }
    typenum = dtype_promote(x1->typenum, x2->typenum);
    if (typenum < 0) {
        return NULL;
    }
    if (dtype_table[x1->typenum].kind == 'c') {
        conj = ufunc_apply(DA_OP_CONJ, &o1, 0, 0);
        if (conj == NULL) {
            goto error;
        }
    }
    operands[0] = conj != NULL ? conj : o1;
    operands[1] = o2;
    product = ufunc_apply(DA_OP_MUL, operands, 0, 0);
    if (product == NULL) {
        goto error;
    }
    axis_neg = PyLong_FromLong(axis);
    if (axis_neg == NULL) {
        goto error;
    }
    result = reduce_sum((DeviceArrayObject *)product, axis_neg, typenum, 0);
error:
    Py_XDECREF(axis_neg);
    Py_XDECREF(product);
    Py_XDECREF(conj);
    return result;
}

static PyMethodDef linalg_methods[] = {
    {"matmul", (PyCFunction)(void (*)(void))linalg_matmul, METH_FASTCALL,
     "matmul($module, x1, x2, /)\n--\n\nThe matrix product x1 @ x2 (NumPy's "
     "matmul): stacks of matrices broadcast over their leading dimensions; a "
     "1-D x1 is a row and a 1-D x2 a column, whose added axis is removed "
     "from the result.  The dtype is result_type(x1, x2); integers wrap.  "
     "On CUDA, float32/float64/complex64/complex128 run on cuBLAS (loaded "
     "at first use; see set_tf32)."},
    {"matrix_transpose", linalg_matrix_transpose, METH_O,
     "matrix_transpose($module, x, /)\n--\n\nThe view of x with its last two "
     "axes swapped (x.mT); x needs at least 2 dimensions."},
    {"tensordot", (PyCFunction)(void (*)(void))linalg_tensordot,
     METH_VARARGS | METH_KEYWORDS,
     "tensordot($module, x1, x2, /, *, axes=2)\n--\n\nThe tensor contraction "
     "of x1 and x2 over `axes`: an int N (the last N axes of x1 with the "
     "first N of x2) or a pair of sequences (axes of x1, axes of x2) of equal "
     "sizes.  The result has x1's other axes, then x2's."},
    {"vecdot", (PyCFunction)(void (*)(void))linalg_vecdot,
     METH_VARARGS | METH_KEYWORDS,
     "vecdot($module, x1, x2, /, *, axis=-1)\n--\n\nThe dot product of the "
     "vectors of x1 and x2 along `axis` (conj(x1) for complex), the other "
     "dimensions broadcast.  The vector axis must have one size in both."},
    {NULL, NULL, 0, NULL},
};

int
linalg_module_init(PyObject *module)
{
    return PyModule_AddFunctions(module, linalg_methods);
}
