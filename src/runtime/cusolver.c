/*
 * cuSOLVER, loaded at first use: see cusolver.h.
 *
 * Ownership: the dlopen()ed library, its entry points and one handle and
 * parameter object per device live until exit (never freed, as cuBLAS's).
 * Each call takes its workspaces (device memory from devarray's pool on
 * the current stream, host memory from PyMem) and gives them back before
 * it returns; all of it with the GIL held.
 *
 * A batch is a loop of the 64-bit API's single-matrix routines, except
 * batched eigh, which is one cusolverDnXsyevBatched (CUDA 12.6 and later)
 * where the library has it.  No cuSOLVER header is needed to build: the
 * entry points are declared here through their C ABI with cuSOLVER's and
 * CUDA's stable enum values.
 */
#include "runtime/cusolver.h"

#ifdef DEVARRAY_HAVE_CUDA
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/cuda_error.h"
#include "base/dtype.h"
#include "runtime/dynlib.h"
#include "runtime/pool.h"
#include "runtime/stream.h"

enum {
    CUSOLVER_SUCCESS = 0,
    CUSOLVER_MAX_DEVICES = 64,
    /* cudaDataType */
    CUDA_TYPE_R_32F = 0,
    CUDA_TYPE_R_64F = 1,
    CUDA_TYPE_C_32F = 4,
    CUDA_TYPE_C_64F = 5,
    FILL_LOWER = 0,        /* cublasFillMode_t */
    FILL_UPPER = 1,
    OP_N = 0,              /* cublasOperation_t */
    OP_T = 1,
    EIG_NOVECTOR = 0,      /* cusolverEigMode_t */
    EIG_VECTOR = 1,
};

typedef void *cusolver_handle_t;
typedef void *cusolver_params_t;
typedef int (*create_fn)(void **out);
typedef int (*set_stream_fn)(void *handle, cudaStream_t stream);
typedef int (*getrf_size_fn)(void *, void *, int64_t, int64_t, int, const void *, int64_t, int,
                             size_t *, size_t *);
typedef int (*getrf_fn)(void *, void *, int64_t, int64_t, int, void *, int64_t, int64_t *, int,
                        void *, size_t, void *, size_t, int *);
typedef int (*getrs_fn)(void *, void *, int, int64_t, int64_t, int, const void *, int64_t,
                        const int64_t *, int, void *, int64_t, int *);
typedef int (*potrf_size_fn)(void *, void *, int, int64_t, int, const void *, int64_t, int,
                             size_t *, size_t *);
typedef int (*potrf_fn)(void *, void *, int, int64_t, int, void *, int64_t, int, void *, size_t,
                        void *, size_t, int *);
typedef int (*syevd_size_fn)(void *, void *, int, int, int64_t, int, const void *, int64_t, int,
                             const void *, int, size_t *, size_t *);
typedef int (*syevd_fn)(void *, void *, int, int, int64_t, int, void *, int64_t, int, void *,
                        int, void *, size_t, void *, size_t, int *);
typedef int (*syev_batched_size_fn)(void *, void *, int, int, int64_t, int, const void *,
                                    int64_t, int, const void *, int, size_t *, size_t *,
                                    int64_t);
typedef int (*syev_batched_fn)(void *, void *, int, int, int64_t, int, void *, int64_t, int,
                               void *, int, void *, size_t, void *, size_t, int *, int64_t);
typedef int (*gesvd_size_fn)(void *, void *, signed char, signed char, int64_t, int64_t, int,
                             const void *, int64_t, int, const void *, int, const void *,
                             int64_t, int, const void *, int64_t, int, size_t *, size_t *);
typedef int (*gesvd_fn)(void *, void *, signed char, signed char, int64_t, int64_t, int, void *,
                        int64_t, int, void *, int, void *, int64_t, int, void *, int64_t, int,
                        void *, size_t, void *, size_t, int *);
typedef int (*geqrf_size_fn)(void *, void *, int64_t, int64_t, int, const void *, int64_t, int,
                             const void *, int, size_t *, size_t *);
typedef int (*geqrf_fn)(void *, void *, int64_t, int64_t, int, void *, int64_t, int, void *,
                        int, void *, size_t, void *, size_t, int *);
typedef int (*orgqr_size_fn)(void *, int, int, int, const void *, int, const void *, int *);
typedef int (*orgqr_fn)(void *, int, int, int, void *, int, const void *, void *, int, int *);
typedef int (*gesvdj_batched_size_fn)(void *, int, int, int, const void *, int, const void *,
                                      const void *, int, const void *, int, int *, void *, int);
typedef int (*gesvdj_batched_fn)(void *, int, int, int, void *, int, void *, void *, int, void *,
                                 int, void *, int, int *, void *, int);
typedef int (*gesvdj_size_fn)(void *, int, int, int, int, const void *, int, const void *,
                              const void *, int, const void *, int, int *, void *);
typedef int (*gesvdj_fn)(void *, int, int, int, int, void *, int, void *, void *, int, void *, int,
                         void *, int, int *, void *);
typedef int (*geev_size_fn)(void *, void *, int, int, int64_t, int, const void *, int64_t, int,
                            const void *, int, const void *, int64_t, int, const void *,
                            int64_t, int, size_t *, size_t *);
typedef int (*geev_fn)(void *, void *, int, int, int64_t, int, void *, int64_t, int, void *,
                       int, void *, int64_t, int, void *, int64_t, int, void *, size_t, void *,
                       size_t, int *);

static struct {
    void *lib;
    create_fn create, create_params;
    set_stream_fn set_stream;
    getrf_size_fn getrf_size;
    getrf_fn getrf;
    getrs_fn getrs;
    potrf_size_fn potrf_size;
    potrf_fn potrf;
    syevd_size_fn syevd_size;
    syevd_fn syevd;
    syev_batched_size_fn syev_batched_size; /* NULL before CUDA 12.6 */
    syev_batched_fn syev_batched;
    gesvd_size_fn gesvd_size;
    gesvd_fn gesvd;
    geqrf_size_fn geqrf_size;
    geqrf_fn geqrf;
    orgqr_size_fn orgqr_size[4]; /* S, D, C, Z: the 64-bit API has none */
    orgqr_fn orgqr[4];
    create_fn create_gesvdj_info;
    gesvdj_batched_size_fn gesvdj_batched_size[4]; /* S, D, C, Z */
    gesvdj_batched_fn gesvdj_batched[4];
    gesvdj_size_fn gesvdj_size[4];
    gesvdj_fn gesvdj[4];
    geev_size_fn geev_size; /* NULL before CUDA 12.6 */
    geev_fn geev;
} cusolver_api;

static cusolver_handle_t cusolver_handles[CUSOLVER_MAX_DEVICES];
static cusolver_params_t cusolver_params[CUSOLVER_MAX_DEVICES];
static void *cusolver_gesvdj_info; /* the default tolerance and sweeps: one serves all */

#define CUSOLVER_SYMBOL(field, name) \
    (cusolver_api.field = (__typeof__(cusolver_api.field))dlsym(lib, name))

/* dynlib_adopt_fn: take `lib` when it has every required entry point. */
static int
cusolver_adopt(void *lib, const char *Py_UNUSED(path), void *Py_UNUSED(ctx))
{
    static const char *const orgqr_names[4][2] = {
        {"cusolverDnSorgqr_bufferSize", "cusolverDnSorgqr"},
        {"cusolverDnDorgqr_bufferSize", "cusolverDnDorgqr"},
        {"cusolverDnCungqr_bufferSize", "cusolverDnCungqr"},
        {"cusolverDnZungqr_bufferSize", "cusolverDnZungqr"}};
    static const char *const gesvdj_names[4][2] = {
        {"cusolverDnSgesvdjBatched_bufferSize", "cusolverDnSgesvdjBatched"},
        {"cusolverDnDgesvdjBatched_bufferSize", "cusolverDnDgesvdjBatched"},
        {"cusolverDnCgesvdjBatched_bufferSize", "cusolverDnCgesvdjBatched"},
        {"cusolverDnZgesvdjBatched_bufferSize", "cusolverDnZgesvdjBatched"}};
    static const char *const gesvdj_single_names[4][2] = {
        {"cusolverDnSgesvdj_bufferSize", "cusolverDnSgesvdj"},
        {"cusolverDnDgesvdj_bufferSize", "cusolverDnDgesvdj"},
        {"cusolverDnCgesvdj_bufferSize", "cusolverDnCgesvdj"},
        {"cusolverDnZgesvdj_bufferSize", "cusolverDnZgesvdj"}};
    int i, complete = 1;

    complete &= CUSOLVER_SYMBOL(create, "cusolverDnCreate") != NULL;
    complete &= CUSOLVER_SYMBOL(create_params, "cusolverDnCreateParams") != NULL;
    complete &= CUSOLVER_SYMBOL(set_stream, "cusolverDnSetStream") != NULL;
    complete &= CUSOLVER_SYMBOL(getrf_size, "cusolverDnXgetrf_bufferSize") != NULL;
    complete &= CUSOLVER_SYMBOL(getrf, "cusolverDnXgetrf") != NULL;
    complete &= CUSOLVER_SYMBOL(getrs, "cusolverDnXgetrs") != NULL;
    complete &= CUSOLVER_SYMBOL(potrf_size, "cusolverDnXpotrf_bufferSize") != NULL;
    complete &= CUSOLVER_SYMBOL(potrf, "cusolverDnXpotrf") != NULL;
    complete &= CUSOLVER_SYMBOL(syevd_size, "cusolverDnXsyevd_bufferSize") != NULL;
    complete &= CUSOLVER_SYMBOL(syevd, "cusolverDnXsyevd") != NULL;
    complete &= CUSOLVER_SYMBOL(gesvd_size, "cusolverDnXgesvd_bufferSize") != NULL;
    complete &= CUSOLVER_SYMBOL(gesvd, "cusolverDnXgesvd") != NULL;
    complete &= CUSOLVER_SYMBOL(geqrf_size, "cusolverDnXgeqrf_bufferSize") != NULL;
    complete &= CUSOLVER_SYMBOL(geqrf, "cusolverDnXgeqrf") != NULL;
    for (i = 0; i < 4; i++) {
        complete &= CUSOLVER_SYMBOL(orgqr_size[i], orgqr_names[i][0]) != NULL;
        complete &= CUSOLVER_SYMBOL(orgqr[i], orgqr_names[i][1]) != NULL;
        complete &= CUSOLVER_SYMBOL(gesvdj_batched_size[i], gesvdj_names[i][0]) != NULL;
        complete &= CUSOLVER_SYMBOL(gesvdj_batched[i], gesvdj_names[i][1]) != NULL;
        complete &= CUSOLVER_SYMBOL(gesvdj_size[i], gesvdj_single_names[i][0]) != NULL;
        complete &= CUSOLVER_SYMBOL(gesvdj[i], gesvdj_single_names[i][1]) != NULL;
    }
    complete &= CUSOLVER_SYMBOL(create_gesvdj_info, "cusolverDnCreateGesvdjInfo") != NULL;
    if (!complete) {
        return 0;
    }
    CUSOLVER_SYMBOL(syev_batched_size, "cusolverDnXsyevBatched_bufferSize");
    CUSOLVER_SYMBOL(syev_batched, "cusolverDnXsyevBatched");
    CUSOLVER_SYMBOL(geev_size, "cusolverDnXgeev_bufferSize");
    CUSOLVER_SYMBOL(geev, "cusolverDnXgeev");
    cusolver_api.lib = lib;
    return 1;
}

/* Load cuSOLVER if it is not loaded yet: 0, or -1 with RuntimeError. */
static int
cusolver_load(void)
{
    /* cuSOLVER 12 ships with CUDA 13, cuSOLVER 11 with CUDA 12 */
    static const char *const sonames[] = {"libcusolver.so.12", "libcusolver.so.11", NULL};
    static const char *const wheel_dirs[] = {"nvidia/cu13/lib", "nvidia/cusolver/lib",
                                             "nvidia/cu12/lib", NULL};
    dynlib_log log = {"", ""};
    const char *env;

    if (cusolver_api.lib != NULL) {
        return 0;
    }
    env = getenv("DEVARRAY_CUSOLVER");
    if (env != NULL && env[0] != '\0') {
        if (dynlib_try(env, cusolver_adopt, NULL, &log)) {
            return 0;
        }
        PyErr_Format(PyExc_RuntimeError,
                     "devarray: DEVARRAY_CUSOLVER=%s does not load as cuSOLVER (%s); point "
                     "it at a libcusolver.so.11 or .12, or unset it to search the usual "
                     "places",
                     env, log.last_error);
        return -1;
    }
    if (dynlib_search(sonames, wheel_dirs, cusolver_adopt, NULL, &log)) {
        return 0;
    }
    PyErr_Format(PyExc_RuntimeError,
                 "devarray: devarray.linalg on CUDA needs cuSOLVER, and no libcusolver was "
                 "found (tried %s). Install it with `pip install devarray[linalg]` (the "
                 "nvidia-cusolver wheel), or set DEVARRAY_CUSOLVER to the path of a "
                 "libcusolver.so.11 or .12.",
                 log.tried);
    return -1;
}

/* devarray.CUDAError for a failed cuSOLVER call: -1. */
static int
cusolver_fail(int status, const char *call)
{
    static const char *const names[] = {
        "CUSOLVER_STATUS_SUCCESS",          "CUSOLVER_STATUS_NOT_INITIALIZED",
        "CUSOLVER_STATUS_ALLOC_FAILED",     "CUSOLVER_STATUS_INVALID_VALUE",
        "CUSOLVER_STATUS_ARCH_MISMATCH",    "CUSOLVER_STATUS_MAPPING_ERROR",
        "CUSOLVER_STATUS_EXECUTION_FAILED", "CUSOLVER_STATUS_INTERNAL_ERROR",
        "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED", "CUSOLVER_STATUS_NOT_SUPPORTED"};
    char message[256];
    snprintf(message, sizeof message, "cuSOLVER %s failed: %s (%d)", call,
             status >= 0 && status < (int)(sizeof names / sizeof names[0]) ? names[status]
                                                                           : "CUSOLVER_STATUS",
             status);
    return cuda_error_message(message);
}

/* The handle of `device` (created on first use) bound to the calling
   thread's current stream, and its parameter object; -1 with an
   exception. */
static int
cusolver_handle(int device, cusolver_handle_t *handle, cusolver_params_t *params)
{
    int status;

    if (cusolver_load() < 0) {
        return -1;
    }
    if (device < 0 || device >= CUSOLVER_MAX_DEVICES) {
        PyErr_Format(PyExc_ValueError, "devarray: cuSOLVER handles cover devices 0..%d, not %d",
                     CUSOLVER_MAX_DEVICES - 1, device);
        return -1;
    }
    if (cusolver_handles[device] == NULL) {
        status = cusolver_api.create(&cusolver_handles[device]);
        if (status != CUSOLVER_SUCCESS) {
            cusolver_handles[device] = NULL;
            return cusolver_fail(status, "cusolverDnCreate");
        }
    }
    if (cusolver_params[device] == NULL) {
        status = cusolver_api.create_params(&cusolver_params[device]);
        if (status != CUSOLVER_SUCCESS) {
            cusolver_params[device] = NULL;
            return cusolver_fail(status, "cusolverDnCreateParams");
        }
    }
    /* set on every call: the current stream is per thread and changes */
    status = cusolver_api.set_stream(cusolver_handles[device], stream_current());
    if (status != CUSOLVER_SUCCESS) {
        return cusolver_fail(status, "cusolverDnSetStream");
    }
    *handle = cusolver_handles[device];
    *params = cusolver_params[device];
    return 0;
}

static int
cusolver_type(int typenum)
{
    return typenum == DA_FLOAT32   ? CUDA_TYPE_R_32F
           : typenum == DA_FLOAT64 ? CUDA_TYPE_R_64F
           : typenum == DA_COMPLEX64 ? CUDA_TYPE_C_32F
                                   : CUDA_TYPE_C_64F;
}

/* The cudaDataType of typenum's real part (eigenvalues, singular values). */
static int
cusolver_real_type(int typenum)
{
    return typenum == DA_FLOAT32 || typenum == DA_COMPLEX64 ? CUDA_TYPE_R_32F : CUDA_TYPE_R_64F;
}

static int64_t
cusolver_real_size(int typenum)
{
    return typenum == DA_FLOAT32 || typenum == DA_COMPLEX64 ? 4 : 8;
}

/* A call's workspaces: device bytes from the pool, host bytes from PyMem. */
typedef struct {
    void *device, *host;
    size_t device_bytes, host_bytes;
} cusolver_workspace;

static int
workspace_take(cusolver_workspace *ws, size_t device_bytes, size_t host_bytes)
{
    ws->device_bytes = device_bytes;
    ws->host_bytes = host_bytes;
    ws->device = NULL;
    ws->host = NULL;
    if (device_bytes > 0) {
        ws->device = pool_malloc(DA_BACKEND_CUDA, device_bytes);
        if (ws->device == NULL) {
            return -1;
        }
    }
    if (host_bytes > 0) {
        ws->host = PyMem_Malloc(host_bytes);
        if (ws->host == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return 0;
}

/* Give back what workspace_take got (also after it failed half way). */
static void
workspace_give(cusolver_workspace *ws)
{
    if (ws->device != NULL) {
        pool_free(DA_BACKEND_CUDA, ws->device, ws->device_bytes);
        ws->device = NULL;
    }
    PyMem_Free(ws->host);
    ws->host = NULL;
}

#define AT(p, i, bytes) ((char *)(p) + (size_t)(i) * (size_t)(bytes))

int
cusolver_getrf(int device, int typenum, int64_t n, int64_t batch, void *a, int64_t *pivots,
               int32_t *info)
{
    cusolver_workspace ws = {NULL, NULL, 0, 0};
    cusolver_handle_t handle = NULL;
    cusolver_params_t params = NULL;
    int type = cusolver_type(typenum), status;
    int64_t i, matrix = n * n * dtype_table[typenum].itemsize;
    size_t device_bytes = 0, host_bytes = 0;
    const char *call = "cusolverDnXgetrf_bufferSize";

    if (cusolver_handle(device, &handle, &params) < 0) {
        return -1;
    }
    status = cusolver_api.getrf_size(handle, params, n, n, type, a, n, type, &device_bytes,
                                     &host_bytes);
    if (status != CUSOLVER_SUCCESS) {
        goto error_status;
    }
    if (workspace_take(&ws, device_bytes, host_bytes) < 0) {
        goto error;
    }
    call = "cusolverDnXgetrf";
    for (i = 0; i < batch; i++) {
        status = cusolver_api.getrf(handle, params, n, n, type, AT(a, i, matrix), n,
                                    pivots + i * n, type, ws.device, device_bytes, ws.host,
                                    host_bytes, info + i);
        if (status != CUSOLVER_SUCCESS) {
            goto error_status;
        }
    }
    workspace_give(&ws);
    return 0;

error_status:
    cusolver_fail(status, call);
error:
    workspace_give(&ws);
    return -1;
}

int
cusolver_getrs(int device, int typenum, int64_t n, int64_t nrhs, int64_t batch, int transpose,
               const void *lu, const int64_t *pivots, void *b)
{
    cusolver_workspace ws = {NULL, NULL, 0, 0};
    cusolver_handle_t handle = NULL;
    cusolver_params_t params = NULL;
    int type = cusolver_type(typenum), status = CUSOLVER_SUCCESS;
    int64_t i, itemsize = dtype_table[typenum].itemsize;

    /* getrs's info reports only arguments, which are right: one scratch
       int serves the whole (stream-ordered) loop */
    if (cusolver_handle(device, &handle, &params) < 0 || workspace_take(&ws, sizeof(int), 0) < 0) {
        goto error;
    }
    for (i = 0; i < batch; i++) {
        status = cusolver_api.getrs(handle, params, transpose ? OP_T : OP_N, n, nrhs, type,
                                    AT(lu, i, n * n * itemsize), n, pivots + i * n, type,
                                    AT(b, i, n * nrhs * itemsize), n, (int *)ws.device);
        if (status != CUSOLVER_SUCCESS) {
            cusolver_fail(status, "cusolverDnXgetrs");
            goto error;
        }
    }
    workspace_give(&ws);
    return 0;

error:
    workspace_give(&ws);
    return -1;
}

int
cusolver_potrf(int device, int typenum, int64_t n, int64_t batch, void *a, int32_t *info)
{
    cusolver_workspace ws = {NULL, NULL, 0, 0};
    cusolver_handle_t handle = NULL;
    cusolver_params_t params = NULL;
    int type = cusolver_type(typenum), status;
    int64_t i, matrix = n * n * dtype_table[typenum].itemsize;
    size_t device_bytes = 0, host_bytes = 0;
    const char *call = "cusolverDnXpotrf_bufferSize";

    if (cusolver_handle(device, &handle, &params) < 0) {
        return -1;
    }
    status = cusolver_api.potrf_size(handle, params, FILL_LOWER, n, type, a, n, type,
                                     &device_bytes, &host_bytes);
    if (status != CUSOLVER_SUCCESS) {
        goto error_status;
    }
    if (workspace_take(&ws, device_bytes, host_bytes) < 0) {
        goto error;
    }
    call = "cusolverDnXpotrf";
    for (i = 0; i < batch; i++) {
        status = cusolver_api.potrf(handle, params, FILL_LOWER, n, type, AT(a, i, matrix), n,
                                    type, ws.device, device_bytes, ws.host, host_bytes,
                                    info + i);
        if (status != CUSOLVER_SUCCESS) {
            goto error_status;
        }
    }
    workspace_give(&ws);
    return 0;

error_status:
    cusolver_fail(status, call);
error:
    workspace_give(&ws);
    return -1;
}

int
cusolver_syevd(int device, int typenum, int64_t n, int64_t batch, int vectors, void *a, void *w,
               int32_t *info)
{
    cusolver_workspace ws = {NULL, NULL, 0, 0};
    cusolver_handle_t handle = NULL;
    cusolver_params_t params = NULL;
    int type = cusolver_type(typenum), wtype = cusolver_real_type(typenum), status;
    int job = vectors ? EIG_VECTOR : EIG_NOVECTOR;
    int64_t i, matrix = n * n * dtype_table[typenum].itemsize;
    int64_t values = n * cusolver_real_size(typenum);
    size_t device_bytes = 0, host_bytes = 0;
    const char *call;
    /* one batched call where the library has it: a loop of syevd costs a
       launch sequence per matrix */
    int batched = batch > 1 && cusolver_api.syev_batched != NULL;

    if (cusolver_handle(device, &handle, &params) < 0) {
        return -1;
    }
    if (batched) {
        call = "cusolverDnXsyevBatched_bufferSize";
        status = cusolver_api.syev_batched_size(handle, params, job, FILL_UPPER, n, type, a, n,
                                                wtype, w, type, &device_bytes, &host_bytes,
                                                batch);
    } else {
        call = "cusolverDnXsyevd_bufferSize";
        status = cusolver_api.syevd_size(handle, params, job, FILL_UPPER, n, type, a, n, wtype,
                                         w, type, &device_bytes, &host_bytes);
    }
    if (status != CUSOLVER_SUCCESS) {
        goto error_status;
    }
    if (workspace_take(&ws, device_bytes, host_bytes) < 0) {
        goto error;
    }
    if (batched) {
        call = "cusolverDnXsyevBatched";
        status = cusolver_api.syev_batched(handle, params, job, FILL_UPPER, n, type, a, n, wtype,
                                           w, type, ws.device, device_bytes, ws.host,
                                           host_bytes, info, batch);
        if (status != CUSOLVER_SUCCESS) {
            goto error_status;
        }
    } else {
        call = "cusolverDnXsyevd";
        for (i = 0; i < batch; i++) {
            status = cusolver_api.syevd(handle, params, job, FILL_UPPER, n, type,
                                        AT(a, i, matrix), n, wtype, AT(w, i, values), type,
                                        ws.device, device_bytes, ws.host, host_bytes, info + i);
            if (status != CUSOLVER_SUCCESS) {
                goto error_status;
            }
        }
    }
    workspace_give(&ws);
    return 0;

error_status:
    cusolver_fail(status, call);
error:
    workspace_give(&ws);
    return -1;
}

int
cusolver_gesvd(int device, int typenum, int64_t m, int64_t n, int64_t batch, char job, void *a,
               void *s, void *u, void *vt, int32_t *info)
{
    cusolver_workspace ws = {NULL, NULL, 0, 0};
    cusolver_handle_t handle = NULL;
    cusolver_params_t params = NULL;
    int type = cusolver_type(typenum), stype = cusolver_real_type(typenum), status;
    int64_t i, itemsize = dtype_table[typenum].itemsize;
    int64_t u_columns = job == 'A' ? m : n, ldu = job == 'N' ? 1 : m, ldvt = job == 'N' ? 1 : n;
    size_t device_bytes = 0, host_bytes = 0;
    const char *call = "cusolverDnXgesvd_bufferSize";

    if (cusolver_handle(device, &handle, &params) < 0) {
        return -1;
    }
    status = cusolver_api.gesvd_size(handle, params, (signed char)job, (signed char)job, m, n,
                                     type, a, m, stype, s, type, u, ldu, type, vt, ldvt, type,
                                     &device_bytes, &host_bytes);
    if (status != CUSOLVER_SUCCESS) {
        goto error_status;
    }
    if (workspace_take(&ws, device_bytes, host_bytes) < 0) {
        goto error;
    }
    call = "cusolverDnXgesvd";
    for (i = 0; i < batch; i++) {
        status = cusolver_api.gesvd(
            handle, params, (signed char)job, (signed char)job, m, n, type,
            AT(a, i, m * n * itemsize), m, stype, AT(s, i, n * cusolver_real_size(typenum)),
            type, job == 'N' ? NULL : AT(u, i, m * u_columns * itemsize), ldu, type,
            job == 'N' ? NULL : AT(vt, i, n * n * itemsize), ldvt, type, ws.device,
            device_bytes, ws.host, host_bytes, info + i);
        if (status != CUSOLVER_SUCCESS) {
            goto error_status;
        }
    }
    workspace_give(&ws);
    return 0;

error_status:
    cusolver_fail(status, call);
error:
    workspace_give(&ws);
    return -1;
}

/* Index of typenum in the S, D, C, Z tables of the legacy API. */
static int
cusolver_legacy_index(int typenum)
{
    return typenum == DA_FLOAT32 ? 0 : typenum == DA_FLOAT64 ? 1 : typenum == DA_COMPLEX64 ? 2 : 3;
}

int
cusolver_gesvdj(int device, int typenum, int64_t m, int64_t n, int64_t batch, int vectors,
                int econ, void *a, void *s, void *u, void *v, int32_t *info)
{
    cusolver_workspace ws = {NULL, NULL, 0, 0};
    cusolver_handle_t handle = NULL;
    cusolver_params_t params = NULL;
    int which = cusolver_legacy_index(typenum), job = vectors ? EIG_VECTOR : EIG_NOVECTOR;
    int status, lwork = 0, count, batched = m <= 32 && n <= 32;
    int64_t done, itemsize = dtype_table[typenum].itemsize, k = m < n ? m : n;
    int64_t u_columns = batched || !econ ? m : k, v_columns = batched || !econ ? n : k;
    /* the batched routine's batch is an int: chunks of at most 2**30 */
    const int64_t chunk = batched ? (int64_t)1 << 30 : 1;
    const char *call = "cusolverDnCreateGesvdjInfo";

    if (m > INT32_MAX || n > INT32_MAX || m * n > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "devarray: cuSOLVER's gesvdj takes matrices of at most "
                     "2**31 - 1 elements, not %lld x %lld", (long long)m, (long long)n);
        return -1;
    }
    if (cusolver_handle(device, &handle, &params) < 0) {
        return -1;
    }
    if (cusolver_gesvdj_info == NULL) {
        status = cusolver_api.create_gesvdj_info(&cusolver_gesvdj_info);
        if (status != CUSOLVER_SUCCESS) {
            cusolver_gesvdj_info = NULL;
            return cusolver_fail(status, call);
        }
    }
    count = (int)(batch < chunk ? batch : chunk);
    if (batched) {
        call = "cusolverDn<t>gesvdjBatched_bufferSize";
        status = cusolver_api.gesvdj_batched_size[which](handle, job, (int)m, (int)n, a, (int)m,
                                                         s, u, (int)m, v, (int)n, &lwork,
                                                         cusolver_gesvdj_info, count);
    } else {
        call = "cusolverDn<t>gesvdj_bufferSize";
        status = cusolver_api.gesvdj_size[which](handle, job, econ, (int)m, (int)n, a, (int)m, s,
                                                 u, (int)m, v, (int)n, &lwork,
                                                 cusolver_gesvdj_info);
    }
    if (status != CUSOLVER_SUCCESS) {
        goto error_status;
    }
    if (workspace_take(&ws, (size_t)lwork * (size_t)itemsize, 0) < 0) {
        goto error;
    }
    call = batched ? "cusolverDn<t>gesvdjBatched" : "cusolverDn<t>gesvdj";
    for (done = 0; done < batch; done += count) {
        char *a_at = AT(a, done, m * n * itemsize);
        char *s_at = AT(s, done, k * cusolver_real_size(typenum));
        char *u_at = AT(u, done, m * u_columns * itemsize);
        char *v_at = AT(v, done, n * v_columns * itemsize);
        count = (int)(batch - done < chunk ? batch - done : chunk);
        status = batched
                     ? cusolver_api.gesvdj_batched[which](
                           handle, job, (int)m, (int)n, a_at, (int)m, s_at, u_at, (int)m, v_at,
                           (int)n, ws.device, lwork, info + done, cusolver_gesvdj_info, count)
                     : cusolver_api.gesvdj[which](handle, job, econ, (int)m, (int)n, a_at,
                                                  (int)m, s_at, u_at, (int)m, v_at, (int)n,
                                                  ws.device, lwork, info + done,
                                                  cusolver_gesvdj_info);
        if (status != CUSOLVER_SUCCESS) {
            goto error_status;
        }
    }
    workspace_give(&ws);
    return 0;

error_status:
    cusolver_fail(status, call);
error:
    workspace_give(&ws);
    return -1;
}

int
cusolver_geqrf(int device, int typenum, int64_t m, int64_t n, int64_t batch, void *a, void *tau,
               int32_t *info)
{
    cusolver_workspace ws = {NULL, NULL, 0, 0};
    cusolver_handle_t handle = NULL;
    cusolver_params_t params = NULL;
    int type = cusolver_type(typenum), status;
    int64_t i, itemsize = dtype_table[typenum].itemsize, k = m < n ? m : n;
    size_t device_bytes = 0, host_bytes = 0;
    const char *call = "cusolverDnXgeqrf_bufferSize";

    if (cusolver_handle(device, &handle, &params) < 0) {
        return -1;
    }
    status = cusolver_api.geqrf_size(handle, params, m, n, type, a, m, type, tau, type,
                                     &device_bytes, &host_bytes);
    if (status != CUSOLVER_SUCCESS) {
        goto error_status;
    }
    if (workspace_take(&ws, device_bytes, host_bytes) < 0) {
        goto error;
    }
    call = "cusolverDnXgeqrf";
    for (i = 0; i < batch; i++) {
        status = cusolver_api.geqrf(handle, params, m, n, type, AT(a, i, m * n * itemsize), m,
                                    type, AT(tau, i, k * itemsize), type, ws.device,
                                    device_bytes, ws.host, host_bytes, info + i);
        if (status != CUSOLVER_SUCCESS) {
            goto error_status;
        }
    }
    workspace_give(&ws);
    return 0;

error_status:
    cusolver_fail(status, call);
error:
    workspace_give(&ws);
    return -1;
}

int
cusolver_orgqr(int device, int typenum, int64_t m, int64_t n, int64_t k, int64_t batch, void *a,
               const void *tau, int32_t *info)
{
    cusolver_workspace ws = {NULL, NULL, 0, 0};
    cusolver_handle_t handle = NULL;
    cusolver_params_t params = NULL;
    int which = cusolver_legacy_index(typenum), status, lwork = 0;
    int64_t i, itemsize = dtype_table[typenum].itemsize;
    const char *call = "cusolverDn<t>orgqr_bufferSize";

    if (m > INT32_MAX || m * n > INT32_MAX) {
        /* the legacy API is all a cuSOLVER orgqr has */
        PyErr_Format(PyExc_ValueError, "devarray: cuSOLVER's orgqr takes matrices of at most "
                     "2**31 - 1 elements, not %lld x %lld", (long long)m, (long long)n);
        return -1;
    }
    if (cusolver_handle(device, &handle, &params) < 0) {
        return -1;
    }
    status = cusolver_api.orgqr_size[which](handle, (int)m, (int)n, (int)k, a, (int)m, tau,
                                            &lwork);
    if (status != CUSOLVER_SUCCESS) {
        goto error_status;
    }
    if (workspace_take(&ws, (size_t)lwork * (size_t)itemsize, 0) < 0) {
        goto error;
    }
    call = "cusolverDn<t>orgqr";
    for (i = 0; i < batch; i++) {
        status = cusolver_api.orgqr[which](handle, (int)m, (int)n, (int)k,
                                           AT(a, i, m * n * itemsize), (int)m,
                                           AT(tau, i, k * itemsize), ws.device, lwork, info + i);
        if (status != CUSOLVER_SUCCESS) {
            goto error_status;
        }
    }
    workspace_give(&ws);
    return 0;

error_status:
    cusolver_fail(status, call);
error:
    workspace_give(&ws);
    return -1;
}

int
cusolver_geev(int device, int typenum, int64_t n, int64_t batch, int vectors, void *a, void *w,
              void *vr, int32_t *info)
{
    cusolver_workspace ws = {NULL, NULL, 0, 0};
    cusolver_handle_t handle = NULL;
    cusolver_params_t params = NULL;
    int type = cusolver_type(typenum), status;
    int jobvr = vectors ? EIG_VECTOR : EIG_NOVECTOR;
    int64_t i, itemsize = dtype_table[typenum].itemsize, ldvr = vectors ? n : 1;
    size_t device_bytes = 0, host_bytes = 0;
    const char *call = "cusolverDnXgeev_bufferSize";

    if (cusolver_handle(device, &handle, &params) < 0) {
        return -1;
    }
    if (cusolver_api.geev == NULL || cusolver_api.geev_size == NULL) {
        PyErr_SetString(PyExc_RuntimeError,
                        "devarray: eig and eigvals on CUDA need cusolverDnXgeev, which the "
                        "cuSOLVER found lacks (it came with CUDA 12.6); install a newer one "
                        "with `pip install devarray[linalg]`");
        return -1;
    }
    status = cusolver_api.geev_size(handle, params, EIG_NOVECTOR, jobvr, n, type, a, n, type, w,
                                    type, NULL, 1, type, vr, ldvr, type, &device_bytes,
                                    &host_bytes);
    if (status != CUSOLVER_SUCCESS) {
        goto error_status;
    }
    if (workspace_take(&ws, device_bytes, host_bytes) < 0) {
        goto error;
    }
    call = "cusolverDnXgeev";
    for (i = 0; i < batch; i++) {
        status = cusolver_api.geev(handle, params, EIG_NOVECTOR, jobvr, n, type,
                                   AT(a, i, n * n * itemsize), n, type, AT(w, i, n * itemsize),
                                   type, NULL, 1, type,
                                   vectors ? AT(vr, i, n * n * itemsize) : NULL, ldvr, type,
                                   ws.device, device_bytes, ws.host, host_bytes, info + i);
        if (status != CUSOLVER_SUCCESS) {
            goto error_status;
        }
    }
    workspace_give(&ws);
    return 0;

error_status:
    cusolver_fail(status, call);
error:
    workspace_give(&ws);
    return -1;
}
#endif
