/*
 * Backends: see backend.h.
 *
 * Ownership: this file owns the scratch block of the reductions (pool
 * memory, kept for the process), global for the reason the CUDA state is
 * (device.c) and touched with the GIL held.  The choice of the default
 * backend and the Python functions are backend_choice.c's.
 */
#include "runtime/backend.h"

#include "runtime/cublas.h"
#include "base/cuda_error.h"
#include "runtime/pool.h"
#include "runtime/stream.h"
#include "runtime/device.h"
#include "runtime/jit.h"
#include "runtime/transfer.h"

static int
host_contract_error(const char *what)
{
    PyErr_Format(PyExc_SystemError, "devarray internal error: %s outside the "
                                    "kernel contract", what);
    return -1;
}

int
backend_elementwise(int backend, int op, int cls, const da_elementwise *e)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        cudaError_t err = da_cuda_elementwise(op, cls, e, stream_current());
        return err == cudaSuccess ? 0 : cuda_error_raise(err, "elementwise kernel");
    }
#else
    (void)backend;
#endif
    if (da_host_elementwise(op, cls, e) != 0) {
        return host_contract_error("elementwise op");
    }
    return 0;
}

int
backend_where(int backend, const da_where *w)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        cudaError_t err = da_cuda_where(w, stream_current());
        return err == cudaSuccess ? 0 : cuda_error_raise(err, "where kernel");
    }
#else
    (void)backend;
#endif
    if (da_host_where(w) != 0) {
        return host_contract_error("where");
    }
    return 0;
}

int
backend_clip(int backend, const da_clip *c)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA && da_clip_has_kernel(c->typenum)) {
        cudaError_t err = da_cuda_clip(c, stream_current());
        return err == cudaSuccess ? 1 : cuda_error_raise(err, "clip kernel");
    }
#else
    (void)backend;
    (void)c;
#endif
    return 0;
}

#ifdef DEVARRAY_HAVE_CUDA
/* Reductions' temporary storage up to this size comes from one block per
   device, kept for the process and used only on that device's legacy
   default stream: reductions queued there never overlap, and such a
   reduction costs no allocation. */
#define REDUCE_SCRATCH_BYTES ((size_t)1 << 20)
static void *reduce_scratch[DA_DEVICE_MAX];
#endif

int
backend_reduce(int backend, const da_reduce *r)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        size_t temp_bytes = 0, temp_alloc = 0;
        void *temp = NULL;
        /* the operand's device, made active by the caller */
        void **scratch = &reduce_scratch[device_active(DA_BACKEND_CUDA)];
        cudaStream_t stream = stream_current();
        cudaError_t err = da_cuda_reduce(NULL, &temp_bytes, r, stream);
        if (err != cudaSuccess) {
            return cuda_error_raise(err, "reduction (temporary storage query)");
        }
        if (temp_bytes <= REDUCE_SCRATCH_BYTES && stream == (cudaStream_t)0) {
            if (*scratch == NULL &&
                (*scratch = pool_malloc(DA_BACKEND_CUDA, REDUCE_SCRATCH_BYTES)) == NULL) {
                return -1;
            }
            temp = *scratch;
        }
        else if ((temp = pool_malloc(DA_BACKEND_CUDA, temp_bytes)) == NULL) {
            return -1;
        }
        temp_alloc = temp_bytes;
        err = da_cuda_reduce(temp, &temp_bytes, r, stream);
        if (temp != *scratch) {
            /* stream-ordered free: the reduction finishes first */
            pool_free(DA_BACKEND_CUDA, temp, temp_alloc);
        }
        return err == cudaSuccess ? 0 : cuda_error_raise(err, "reduction kernel");
    }
#else
    (void)backend;
#endif
    if (da_host_reduce(r) != 0) {
        return host_contract_error("reduction");
    }
    return 0;
}

int
backend_nonzero_reduce(int backend, const da_nonzero_reduce *r)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        cudaError_t err = da_cuda_nonzero_reduce(r, stream_current());
        return err == cudaSuccess ? 0 : cuda_error_raise(err, "count_nonzero/any/all kernel");
    }
#else
    (void)backend;
#endif
    return da_host_nonzero_reduce(r) != 0 ? host_contract_error("count_nonzero/any/all") : 0;
}

int
backend_range(int backend, const da_range *r)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        cudaError_t err = da_cuda_range(r, stream_current());
        return err == cudaSuccess ? 0 : cuda_error_raise(err, "arange kernel");
    }
#else
    (void)backend;
#endif
    return da_host_range(r) != 0 ? host_contract_error("arange") : 0;
}

int
backend_linspace(int backend, const da_linspace *l)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        cudaError_t err = da_cuda_linspace(l, stream_current());
        return err == cudaSuccess ? 0 : cuda_error_raise(err, "linspace kernel");
    }
#else
    (void)backend;
#endif
    return da_host_linspace(l) != 0 ? host_contract_error("linspace") : 0;
}

int
backend_tri(int backend, const da_tri *t)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        cudaError_t err = da_cuda_tri(t, stream_current());
        return err == cudaSuccess ? 0 : cuda_error_raise(err, "tril/triu kernel");
    }
#else
    (void)backend;
#endif
    return da_host_tri(t) != 0 ? host_contract_error("tril/triu") : 0;
}

int
backend_random(int backend, const da_random *r)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        cudaError_t err = da_cuda_random(r, stream_current());
        return err == cudaSuccess ? 0 : cuda_error_raise(err, "random kernel");
    }
#else
    (void)backend;
#endif
    return da_host_random(r) != 0 ? host_contract_error("random draw") : 0;
}

/* ---- scan: cumulative sums and products, argmax/argmin, searchsorted ---- */

#ifdef DEVARRAY_HAVE_CUDA
/* A CUDA launcher of CUB's two-phase form: with temp NULL it only sets
   *temp_bytes; `args` is its descriptor. */
typedef cudaError_t (*backend_two_phase_fn)(void *temp, size_t *temp_bytes,
                                            const void *args, cudaStream_t stream);

/* Size, allocate from the pool (freed in stream order, so the block is
   back for the next call), run.  0, or -1 with an exception. */
static int
backend_two_phase(backend_two_phase_fn fn, const void *args, const char *what)
{
    size_t temp_bytes = 0, temp_alloc;
    void *temp;
    cudaStream_t stream = stream_current();
    cudaError_t err = fn(NULL, &temp_bytes, args, stream);

    if (err != cudaSuccess) {
        return cuda_error_raise(err, what);
    }
    /* never NULL, even for 0 bytes: a NULL temp would be a sizing call */
    temp_alloc = temp_bytes;
    if ((temp = pool_malloc(DA_BACKEND_CUDA, temp_alloc)) == NULL) {
        return -1;
    }
    err = fn(temp, &temp_bytes, args, stream);
    pool_free(DA_BACKEND_CUDA, temp, temp_alloc);
    return err == cudaSuccess ? 0 : cuda_error_raise(err, what);
}

/* The arguments of da_cuda_scan and da_cuda_argreduce. */
typedef struct {
    int op, typenum;
    const void *in;
    void *out;
    int64_t nsegments, seglen;
} backend_segments;

static cudaError_t
backend_scan_call(void *temp, size_t *temp_bytes, const void *args, cudaStream_t stream)
{
    const backend_segments *a = (const backend_segments *)args;
    return da_cuda_scan(temp, temp_bytes, a->op, a->typenum, a->in, a->out, a->nsegments,
                        a->seglen, stream);
}

static cudaError_t
backend_argreduce_call(void *temp, size_t *temp_bytes, const void *args,
                       cudaStream_t stream)
{
    const backend_segments *a = (const backend_segments *)args;
    return da_cuda_argreduce(temp, temp_bytes, a->op, a->typenum, a->in,
                             (int64_t *)a->out, a->nsegments, a->seglen, stream);
}

/* The arguments of da_cuda_argreduce_columns. */
typedef struct {
    int op, typenum;
    const void *in;
    int64_t *out;
    int64_t outer, len, inner;
} backend_columns;

static cudaError_t
backend_argreduce_columns_call(void *temp, size_t *temp_bytes, const void *args,
                               cudaStream_t stream)
{
    const backend_columns *a = (const backend_columns *)args;
    return da_cuda_argreduce_columns(temp, temp_bytes, a->op, a->typenum, a->in, a->out,
                                     a->outer, a->len, a->inner, stream);
}
#endif

#ifdef DEVARRAY_HAVE_CUDA
static cudaError_t
backend_moments_call(void *temp, size_t *temp_bytes, const void *args, cudaStream_t stream)
{
    return da_cuda_moments(temp, temp_bytes, (const da_moments *)args, stream);
}
#endif

int
backend_moments(int backend, const da_moments *m)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        return backend_two_phase(backend_moments_call, m, "moments kernel");
    }
#else
    (void)backend;
    (void)m;
#endif
    return host_contract_error("moments");
}

int
backend_scan(int backend, int op, int typenum, const void *in, void *out,
             int64_t nsegments, int64_t seglen)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        const backend_segments args = {op, typenum, in, out, nsegments, seglen};
        return backend_two_phase(backend_scan_call, &args, "scan kernel");
    }
#else
    (void)backend;
#endif
    return da_host_scan(op, typenum, in, out, nsegments, seglen) != 0
               ? host_contract_error("scan")
               : 0;
}

int
backend_argreduce(int backend, int op, int typenum, const void *in, int64_t *out,
                  int64_t nsegments, int64_t seglen)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        const backend_segments args = {op, typenum, in, out, nsegments, seglen};
        return backend_two_phase(backend_argreduce_call, &args, "argmax/argmin kernel");
    }
#else
    (void)backend;
#endif
    return da_host_argreduce(op, typenum, in, out, nsegments, seglen) != 0
               ? host_contract_error("argmax/argmin")
               : 0;
}

int
backend_argreduce_columns(int backend, int op, int typenum, const void *in,
                          int64_t *out, int64_t outer, int64_t len, int64_t inner)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA && da_argreduce_has_columns(typenum)) {
        const backend_columns args = {op, typenum, in, out, outer, len, inner};
        return backend_two_phase(backend_argreduce_columns_call, &args,
                                 "argmax/argmin kernel") < 0
                   ? -1
                   : 1;
    }
#else
    (void)backend;
    (void)op;
    (void)typenum;
    (void)in;
    (void)out;
    (void)outer;
    (void)len;
    (void)inner;
#endif
    return 0;
}

int
backend_searchsorted(int backend, da_searchsorted *s)
{
    int bad = 0;

#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        cudaError_t err = cudaSuccess;
        int *flag = pool_malloc(DA_BACKEND_CUDA, sizeof(int));
        if (flag == NULL) {
            return -1;
        }
        s->bad = flag;
        cudaStream_t stream = stream_current();
        err = cudaMemsetAsync(flag, 0, sizeof(int), stream);
        if (err == cudaSuccess) {
            err = da_cuda_searchsorted(s, stream);
        }
        if (err == cudaSuccess && s->sorter != NULL) {
            /* the bounds of sorter are known only on the device */
            if (stream_check_sync("searchsorted with a sorter") < 0) {
                pool_free(DA_BACKEND_CUDA, flag, sizeof(int));
                s->bad = NULL;
                return -1;
            }
            Py_BEGIN_ALLOW_THREADS
            err = cudaMemcpyAsync(&bad, flag, sizeof(int), cudaMemcpyDeviceToHost, stream);
            if (err == cudaSuccess) {
                err = cudaStreamSynchronize(stream);
            }
            Py_END_ALLOW_THREADS
        }
        pool_free(DA_BACKEND_CUDA, flag, sizeof(int));
        s->bad = NULL;
        if (err != cudaSuccess) {
            return cuda_error_raise(err, "searchsorted kernel");
        }
        return bad ? 1 : 0;
    }
#else
    (void)backend;
#endif
    s->bad = &bad;
    if (da_host_searchsorted(s) != 0) {
        s->bad = NULL;
        return host_contract_error("searchsorted");
    }
    s->bad = NULL;
    return bad ? 1 : 0;
}


/* ---- indexing by arrays (index) ---- */

/* da_cuda_gather or da_host_gather, errors raised. */
static int
gather_launch(int backend, int mode, const da_gather *g)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        cudaError_t err = da_cuda_gather(mode, g, stream_current());
        return err != cudaSuccess ? cuda_error_raise(err, "indexing kernel") : 0;
    }
#else
    (void)backend;
#endif
    return da_host_gather(mode, g) != 0 ? host_contract_error("indexing") : 0;
}

int
backend_gather(int backend, int mode, da_gather *g, int32_t *bad)
{
    int32_t *word = pool_malloc(backend, sizeof(int32_t));
    int status = -1;

    if (word == NULL) {
        return -1;
    }
    g->bad = word;
    /* a scatter's check is queued before it rather than read back between
       them: the scatter reads the word and writes nothing if it is set */
    if (transfer_memset_zero(backend, word, sizeof(int32_t)) < 0 ||
        (mode == DA_GATHER_WRITE && gather_launch(backend, DA_GATHER_CHECK, g) < 0) ||
        gather_launch(backend, mode, g) < 0) {
        goto done;
    }
    status = transfer_copy(backend, bad, word, sizeof(int32_t), DA_COPY_D2H);
done:
    g->bad = NULL;
    pool_free(backend, word, sizeof(int32_t));
    return status;
}

int
backend_count_true(int backend, const uint8_t *flags, int64_t n, int64_t *count)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        size_t temp_bytes = 0;
        char *temp = NULL;
        int status = -1;
        cudaStream_t stream = stream_current();
        cudaError_t err = da_cuda_count_true(NULL, &temp_bytes, flags, n, NULL, stream);
        if (err != cudaSuccess) {
            return cuda_error_raise(err, "count (temporary storage query)");
        }
        /* the count's word first, CUB's storage after it at 256 bytes */
        const size_t temp_alloc = 256 + temp_bytes;
        if ((temp = pool_malloc(DA_BACKEND_CUDA, temp_alloc)) == NULL) {
            return -1;
        }
        err = da_cuda_count_true(temp + 256, &temp_bytes, flags, n, (int64_t *)temp, stream);
        if (err != cudaSuccess) {
            cuda_error_raise(err, "count kernel");
        }
        else {
            status = transfer_copy(DA_BACKEND_CUDA, count, temp, sizeof(int64_t),
                                   DA_COPY_D2H);
        }
        pool_free(DA_BACKEND_CUDA, temp, temp_alloc);
        return status;
    }
#else
    (void)backend;
#endif
    return da_host_count_true(flags, n, count) != 0 ? host_contract_error("count") : 0;
}

#ifdef DEVARRAY_HAVE_CUDA
/* The arguments of da_cuda_select_flagged. */
typedef struct {
    const void *in;
    int itemsize;
    const uint8_t *flags;
    int64_t n;
    void *out;
} backend_selection;

/* da_cuda_select_flagged in the two-phase form, its selected count's word
   (known already, so never read) at the head of the temporary storage. */
static cudaError_t
backend_select_call(void *temp, size_t *temp_bytes, const void *args, cudaStream_t stream)
{
    const backend_selection *a = args;
    cudaError_t err;
    if (temp == NULL) {
        err = da_cuda_select_flagged(NULL, temp_bytes, a->in, a->itemsize, a->flags, a->n,
                                     a->out, NULL, stream);
        *temp_bytes += 256;
        return err;
    }
    *temp_bytes -= 256;
    return da_cuda_select_flagged((char *)temp + 256, temp_bytes, a->in, a->itemsize,
                                  a->flags, a->n, a->out, (int64_t *)temp, stream);
}
#endif

int
backend_select_flagged(int backend, const void *in, int itemsize, const uint8_t *flags,
                       int64_t n, void *out)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        backend_selection args = {in, itemsize, flags, n, out};
        return backend_two_phase(backend_select_call, &args, "mask selection kernel");
    }
#else
    (void)backend;
#endif
    return da_host_select_flagged(in, itemsize, flags, n, out) != 0
               ? host_contract_error("mask selection")
               : 0;
}

#ifdef DEVARRAY_HAVE_CUDA
static cudaError_t
backend_nonzero_call(void *temp, size_t *temp_bytes, const void *args, cudaStream_t stream)
{
    return da_cuda_nonzero(temp, temp_bytes, (const da_nonzero *)args, stream);
}
#endif

int
backend_nonzero(int backend, const da_nonzero *z)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        return backend_two_phase(backend_nonzero_call, z, "nonzero kernel");
    }
#else
    (void)backend;
#endif
    return da_host_nonzero(z) != 0 ? host_contract_error("nonzero") : 0;
}

/* ---- sort and sets ---- */

#ifdef DEVARRAY_HAVE_CUDA
static cudaError_t
backend_sort_call(void *temp, size_t *temp_bytes, const void *args, cudaStream_t stream)
{
    return da_cuda_sort(temp, temp_bytes, (const da_sort *)args, stream);
}

static cudaError_t
backend_unique_call(void *temp, size_t *temp_bytes, const void *args, cudaStream_t stream)
{
    return da_cuda_unique_groups(temp, temp_bytes, (const da_unique *)args, stream);
}

#endif

int
backend_sort(int backend, const da_sort *s)
{
    int64_t *temp;
    int status;

#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        return backend_two_phase(backend_sort_call, s, "sort kernel");
    }
#else
    (void)backend;
#endif
    temp = pool_malloc(DA_BACKEND_HOST, 2 * (size_t)s->seglen * sizeof(int64_t));
    if (temp == NULL) {
        return -1;
    }
    status = da_host_sort(s, temp);
    pool_free(DA_BACKEND_HOST, temp, 2 * (size_t)s->seglen * sizeof(int64_t));
    return status != 0 ? host_contract_error("sort") : 0;
}

int
backend_unique_groups(int backend, const da_unique *u)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        return backend_two_phase(backend_unique_call, u, "unique kernel");
    }
#else
    (void)backend;
#endif
    return da_host_unique_groups(u) != 0 ? host_contract_error("unique") : 0;
}

int64_t
backend_unique_chunk(int backend)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        return da_cuda_unique_chunk();
    }
#else
    (void)backend;
#endif
    return 1;
}

int
backend_unique_scatter(int backend, const da_unique *u)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        cudaError_t err = da_cuda_unique_scatter(u, stream_current());
        return err == cudaSuccess ? 0 : cuda_error_raise(err, "unique kernel");
    }
#else
    (void)backend;
#endif
    return da_host_unique_scatter(u) != 0 ? host_contract_error("unique") : 0;
}

int
backend_synchronize(int backend)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        cudaError_t err;
        if (stream_check_sync("synchronize()") < 0) {
            return -1;
        }
        /* every device devarray has used (devices) */
        err = device_synchronize_all();
        return err == cudaSuccess ? 0 : cuda_error_raise(err, "cudaDeviceSynchronize");
    }
#else
    (void)backend;
#endif
    return 0;
}

/* linalg */
int
backend_matmul(int backend, int device, const da_matmul *g)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        cudaError_t err;
        switch (g->typenum) {
            case DA_FLOAT32:
            case DA_FLOAT64:
            case DA_COMPLEX64:
            case DA_COMPLEX128:
                return cublas_matmul(device, g);
            default:
                err = da_cuda_matmul(g, stream_current());
                return err == cudaSuccess ? 0 : cuda_error_raise(err, "matmul kernel");
        }
    }
#else
    (void)backend;
#endif
    (void)device;
    if (da_host_matmul(g) != 0) {
        return host_contract_error("matmul");
    }
    return 0;
}

/* ---- fusion (fuse) ---- */

int
backend_fuse(int backend, const da_fuse *f)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        cudaStream_t stream = stream_current();
        const int compiled = jit_fuse(f, -1, -1, NULL, f->out, stream);
        cudaError_t err;
        if (compiled != 0) {
            return compiled < 0 ? -1 : 0;
        }
        err = da_cuda_fuse(f, stream);
        return err == cudaSuccess ? 0 : cuda_error_raise(err, "fused kernel");
    }
#else
    (void)backend;
#endif
    if (da_host_fuse(f) != 0) {
        return host_contract_error("fused program");
    }
    return 0;
}

int
backend_fuse_compiles(int backend)
{
#ifdef DEVARRAY_HAVE_CUDA
    return backend == DA_BACKEND_CUDA && jit_ready();
#else
    (void)backend;
    return 0;
#endif
}

/* A full reduction of a fused program's results in one pass (CUDA only:
   the host runs the program, then the unfused reduction): the compiled
   kernel for float sums and products, else the interpreter's; the
   partials' temporary storage from the pool. */
#ifdef DEVARRAY_HAVE_CUDA
/* The arguments of da_cuda_fuse_reduce. */
typedef struct {
    const da_fuse *f;
    int op, acc_typenum;
    void *out;
} backend_fused_reduction;

static cudaError_t
backend_fuse_reduce_call(void *temp, size_t *temp_bytes, const void *args,
                         cudaStream_t stream)
{
    const backend_fused_reduction *a = args;
    return da_cuda_fuse_reduce(temp, temp_bytes, a->f, a->op, a->acc_typenum, a->out,
                               stream);
}
#endif

int
backend_fuse_reduce(int backend, const da_fuse *f, int op, int acc_typenum, void *out)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        backend_fused_reduction args = {f, op, acc_typenum, out};
        if (da_reduce_in_order(op, f->out_typenum)) {
            /* the compiled kernel, where there is one */
            const size_t bytes = (size_t)da_ordered_blocks(f->size) * da_itemsize(acc_typenum);
            void *partials = pool_malloc(DA_BACKEND_CUDA, bytes);
            int compiled;
            if (partials == NULL) {
                return -1;
            }
            compiled = jit_fuse(f, op, acc_typenum, partials, out, stream_current());
            pool_free(DA_BACKEND_CUDA, partials, bytes);
            if (compiled != 0) {
                return compiled < 0 ? -1 : 0;
            }
        }
        return backend_two_phase(backend_fuse_reduce_call, &args, "fused reduction kernel");
    }
#else
    (void)backend;
    (void)f;
    (void)op;
    (void)acc_typenum;
    (void)out;
#endif
    return host_contract_error("fused reduction");
}
