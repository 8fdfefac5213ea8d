/*
 * cuBLAS, loaded at first use: see cublas.h.
 *
 * Ownership: the dlopen()ed library, its entry points and one handle per
 * CUDA device are process-wide and live until exit (never dlclose()d:
 * a handle's work may still be queued, and unloading CUDA libraries at
 * exit is fragile).  All of it is touched with the GIL held.
 *
 * No cuBLAS header is needed to build: the few entry points are declared
 * here through their C ABI (handles are pointers, enums are ints, the
 * pointer arguments are the same for every precision, so one function
 * type serves S, D, C and Z).  The values used are cuBLAS's stable ones.
 *
 * C order: cuBLAS is column-major, and a C-order m x n matrix is its
 * n x m transpose in column-major, so out = a @ b is computed as
 * out^T = b^T a^T, which needs no copy: a row-major operand is passed as
 * is (CUBLAS_OP_N), a column-major one (e.g. a .mT view) as CUBLAS_OP_T.
 * One product is <t>gemm; a batch is <t>gemmStridedBatched (a batch
 * stride of 0 repeats a broadcast matrix).  The 32-bit entry points run
 * when every extent fits an int, the _64 ones (cuBLAS >= 12) otherwise.
 */
#include "runtime/cublas.h"

#include <stdlib.h>
#include <string.h>

#ifdef DEVARRAY_HAVE_CUDA
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>

#include "base/cuda_error.h"
#include "runtime/dynlib.h"
#include "runtime/stream.h"
#endif

/* The TF32 switch: -1 until first read (then DEVARRAY_ALLOW_TF32). */
static int cublas_tf32 = -1;

static int
cublas_tf32_enabled(void)
{
    if (cublas_tf32 < 0) {
        const char *env = getenv("DEVARRAY_ALLOW_TF32");
        cublas_tf32 = env != NULL && env[0] != '\0' && strcmp(env, "0") != 0;
    }
    return cublas_tf32;
}

#ifdef DEVARRAY_HAVE_CUDA

enum {
    CUBLAS_SUCCESS = 0,
    CUBLAS_OP_NONE = 0,
    CUBLAS_OP_TRANS = 1,
    CUBLAS_MATH_DEFAULT = 0,
    CUBLAS_MATH_TF32 = 3,
    CUBLAS_MAX_DEVICES = 64,
    CUBLAS_PATH_BYTES = 4096,
};

typedef int (*cublas_create_fn)(void **handle);
typedef int (*cublas_set_stream_fn)(void *handle, cudaStream_t stream);
typedef int (*cublas_set_math_fn)(void *handle, int mode);
typedef const char *(*cublas_status_name_fn)(int status);
typedef int (*cublas_gemm_fn)(void *handle, int transa, int transb, int m, int n,
                              int k, const void *alpha, const void *a, int lda,
                              const void *b, int ldb, const void *beta, void *c,
                              int ldc);
typedef int (*cublas_gemm_batched_fn)(void *handle, int transa, int transb, int m,
                                      int n, int k, const void *alpha,
                                      const void *a, int lda, long long stride_a,
                                      const void *b, int ldb, long long stride_b,
                                      const void *beta, void *c, int ldc,
                                      long long stride_c, int batch);
typedef int (*cublas_gemm64_fn)(void *handle, int transa, int transb, int64_t m,
                                int64_t n, int64_t k, const void *alpha,
                                const void *a, int64_t lda, const void *b,
                                int64_t ldb, const void *beta, void *c,
                                int64_t ldc);
typedef int (*cublas_gemm_batched64_fn)(void *handle, int transa, int transb,
                                        int64_t m, int64_t n, int64_t k,
                                        const void *alpha, const void *a,
                                        int64_t lda, long long stride_a,
                                        const void *b, int64_t ldb,
                                        long long stride_b, const void *beta,
                                        void *c, int64_t ldc, long long stride_c,
                                        int64_t batch);

/* Precisions, in the order of the name tables below. */
enum { CUBLAS_S, CUBLAS_D, CUBLAS_C, CUBLAS_Z, CUBLAS_NPREC };

static const char *const cublas_gemm_names[CUBLAS_NPREC] = {
    "cublasSgemm_v2", "cublasDgemm_v2", "cublasCgemm_v2", "cublasZgemm_v2"};
static const char *const cublas_batched_names[CUBLAS_NPREC] = {
    "cublasSgemmStridedBatched", "cublasDgemmStridedBatched",
    "cublasCgemmStridedBatched", "cublasZgemmStridedBatched"};
static const char *const cublas_gemm64_names[CUBLAS_NPREC] = {
    "cublasSgemm_v2_64", "cublasDgemm_v2_64", "cublasCgemm_v2_64",
    "cublasZgemm_v2_64"};
static const char *const cublas_batched64_names[CUBLAS_NPREC] = {
    "cublasSgemmStridedBatched_64", "cublasDgemmStridedBatched_64",
    "cublasCgemmStridedBatched_64", "cublasZgemmStridedBatched_64"};

/* The loaded library (lib == NULL: not loaded yet). */
static struct {
    void *lib;
    char path[CUBLAS_PATH_BYTES];
    cublas_create_fn create;
    cublas_set_stream_fn set_stream;
    cublas_set_math_fn set_math;
    cublas_status_name_fn status_name; /* may be NULL */
    cublas_gemm_fn gemm[CUBLAS_NPREC];
    cublas_gemm_batched_fn batched[CUBLAS_NPREC];
    cublas_gemm64_fn gemm64[CUBLAS_NPREC];                 /* may be NULL */
    cublas_gemm_batched64_fn batched64[CUBLAS_NPREC];      /* may be NULL */
} cublas_api;

static void *cublas_handles[CUBLAS_MAX_DEVICES];
static int cublas_handle_math[CUBLAS_MAX_DEVICES];
/* the stream each handle is bound to: set again when the current one differs */
static cudaStream_t cublas_handle_stream[CUBLAS_MAX_DEVICES];

/* Whether every required entry point was found. */
static int
cublas_complete(void)
{
    int p, ok = cublas_api.create != NULL && cublas_api.set_stream != NULL &&
                cublas_api.set_math != NULL;
    for (p = 0; p < CUBLAS_NPREC; p++) {
        ok = ok && cublas_api.gemm[p] != NULL && cublas_api.batched[p] != NULL;
    }
    return ok;
}

/* dynlib_adopt_fn: take `lib` as the library when it has every entry
   point needed. */
static int
cublas_adopt(void *lib, const char *path, void *Py_UNUSED(ctx))
{
    int p;

    cublas_api.create = (cublas_create_fn)dlsym(lib, "cublasCreate_v2");
    cublas_api.set_stream = (cublas_set_stream_fn)dlsym(lib, "cublasSetStream_v2");
    cublas_api.set_math = (cublas_set_math_fn)dlsym(lib, "cublasSetMathMode");
    cublas_api.status_name = (cublas_status_name_fn)dlsym(lib, "cublasGetStatusName");
    for (p = 0; p < CUBLAS_NPREC; p++) {
        cublas_api.gemm[p] = (cublas_gemm_fn)dlsym(lib, cublas_gemm_names[p]);
        cublas_api.batched[p] =
            (cublas_gemm_batched_fn)dlsym(lib, cublas_batched_names[p]);
        cublas_api.gemm64[p] = (cublas_gemm64_fn)dlsym(lib, cublas_gemm64_names[p]);
        cublas_api.batched64[p] =
            (cublas_gemm_batched64_fn)dlsym(lib, cublas_batched64_names[p]);
    }
    if (!cublas_complete()) {
        return 0;
    }
    cublas_api.lib = lib;
    snprintf(cublas_api.path, sizeof cublas_api.path, "%s", path);
    return 1;
}

/* Load cuBLAS if it is not loaded yet: 0, or -1 with RuntimeError. */
static int
cublas_load(void)
{
    static const char *const sonames[] = {"libcublas.so.13", "libcublas.so.12", NULL};
    static const char *const wheel_dirs[] = {"nvidia/cu13/lib", "nvidia/cublas/lib",
                                             "nvidia/cu12/lib", NULL};
    dynlib_log log = {"", ""};
    const char *env;

    if (cublas_api.lib != NULL) {
        return 0;
    }
    env = getenv("DEVARRAY_CUBLAS");
    if (env != NULL && env[0] != '\0') {
        if (dynlib_try(env, cublas_adopt, NULL, &log)) {
            return 0;
        }
        PyErr_Format(PyExc_RuntimeError,
                     "devarray: DEVARRAY_CUBLAS=%s does not load as cuBLAS "
                     "(%s); point it at a libcublas.so.12 or .13, or unset it "
                     "to search the usual places",
                     env, log.last_error);
        return -1;
    }
    if (dynlib_search(sonames, wheel_dirs, cublas_adopt, NULL, &log)) {
        return 0;
    }
    PyErr_Format(PyExc_RuntimeError,
                 "devarray: matmul of float32, float64, complex64 and "
                 "complex128 on CUDA needs cuBLAS, and no libcublas was found "
                 "(tried %s). Install it with `pip install devarray[cublas]` "
                 "(the nvidia-cublas wheel), or set DEVARRAY_CUBLAS to the path "
                 "of a libcublas.so.12 or .13.",
                 log.tried);
    return -1;
}

/* devarray.CUDAError for a failed cuBLAS call: -1. */
static int
cublas_fail(int status, const char *call)
{
    char message[256];
    const char *name = cublas_api.status_name != NULL
                           ? cublas_api.status_name(status)
                           : "CUBLAS_STATUS";
    snprintf(message, sizeof message, "cuBLAS %s failed: %s (%d)", call,
             name != NULL ? name : "CUBLAS_STATUS", status);
    return cuda_error_message(message);
}

/* The handle of `device`, created on first use, bound to the calling
   thread's current stream; NULL with an exception. */
static void *
cublas_handle(int device)
{
    void *handle = NULL;
    cudaStream_t stream = stream_current();
    int status;

    if (device < 0 || device >= CUBLAS_MAX_DEVICES) {
        PyErr_Format(PyExc_ValueError, "devarray: cuBLAS handles cover devices "
                     "0..%d, not %d", CUBLAS_MAX_DEVICES - 1, device);
        return NULL;
    }
    if (cublas_handles[device] != NULL) {
        if (cublas_handle_stream[device] != stream) {
            status = cublas_api.set_stream(cublas_handles[device], stream);
            if (status != CUBLAS_SUCCESS) {
                cublas_fail(status, "cublasSetStream");
                return NULL;
            }
            cublas_handle_stream[device] = stream;
        }
        return cublas_handles[device];
    }
    if (cublas_load() < 0) {
        return NULL;
    }
    status = cublas_api.create(&handle);
    if (status != CUBLAS_SUCCESS) {
        cublas_fail(status, "cublasCreate");
        return NULL;
    }
    status = cublas_api.set_stream(handle, stream);
    if (status != CUBLAS_SUCCESS) {
        /* the handle is kept (destroying it needs one more entry point and
           this failure means cuBLAS is unusable anyway) */
        cublas_fail(status, "cublasSetStream");
        return NULL;
    }
    cublas_handles[device] = handle;
    cublas_handle_stream[device] = stream;
    cublas_handle_math[device] = CUBLAS_MATH_DEFAULT;
    return handle;
}

/* Whether every value fits a cuBLAS int. */
static int
cublas_fits_int(const int64_t *values, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        if (values[i] > INT_MAX) {
            return 0;
        }
    }
    return 1;
}

int
cublas_matmul(int device, const da_matmul *g)
{
    static const float one_f[2] = {1.0f, 0.0f}, zero_f[2] = {0.0f, 0.0f};
    static const double one_d[2] = {1.0, 0.0}, zero_d[2] = {0.0, 0.0};
    void *handle;
    int prec, status, math, trans_x, trans_y;
    int64_t ld_x, ld_y, extents[7];
    const void *one, *zero;

    switch (g->typenum) {
        case DA_FLOAT32:
            prec = CUBLAS_S;
            break;
        case DA_FLOAT64:
            prec = CUBLAS_D;
            break;
        case DA_COMPLEX64:
            prec = CUBLAS_C;
            break;
        case DA_COMPLEX128:
            prec = CUBLAS_Z;
            break;
        default:
            PyErr_SetString(PyExc_SystemError,
                            "devarray internal error: cuBLAS matmul of a dtype "
                            "it does not have");
            return -1;
    }
    one = prec == CUBLAS_S || prec == CUBLAS_C ? (const void *)one_f : (const void *)one_d;
    zero = prec == CUBLAS_S || prec == CUBLAS_C ? (const void *)zero_f
                                                : (const void *)zero_d;
    handle = cublas_handle(device);
    if (handle == NULL) {
        return -1;
    }
    math = (prec == CUBLAS_S || prec == CUBLAS_C) && cublas_tf32_enabled()
               ? CUBLAS_MATH_TF32
               : CUBLAS_MATH_DEFAULT;
    if (math != cublas_handle_math[device]) {
        status = cublas_api.set_math(handle, math);
        if (status != CUBLAS_SUCCESS) {
            return cublas_fail(status, "cublasSetMathMode");
        }
        cublas_handle_math[device] = math;
    }

    /* out^T (n x m) = x (n x k) . y (k x m), x = b^T and y = a^T */
    trans_x = g->b_col == 1 ? CUBLAS_OP_NONE : CUBLAS_OP_TRANS;
    ld_x = g->b_col == 1 ? g->b_row : g->b_col;
    trans_y = g->a_col == 1 ? CUBLAS_OP_NONE : CUBLAS_OP_TRANS;
    ld_y = g->a_col == 1 ? g->a_row : g->a_col;
    extents[0] = g->m;
    extents[1] = g->n;
    extents[2] = g->k;
    extents[3] = ld_x;
    extents[4] = ld_y;
    extents[5] = g->batch;
    extents[6] = g->n;

    if (cublas_fits_int(extents, 7)) {
        if (g->batch == 1) {
            status = cublas_api.gemm[prec](handle, trans_x, trans_y, (int)g->n,
                                           (int)g->m, (int)g->k, one, g->b, (int)ld_x,
                                           g->a, (int)ld_y, zero, g->out, (int)g->n);
        }
        else {
            status = cublas_api.batched[prec](
                handle, trans_x, trans_y, (int)g->n, (int)g->m, (int)g->k, one,
                g->b, (int)ld_x, g->b_batch, g->a, (int)ld_y, g->a_batch, zero,
                g->out, (int)g->n, g->m * g->n, (int)g->batch);
        }
        return status == CUBLAS_SUCCESS ? 0 : cublas_fail(status, cublas_gemm_names[prec]);
    }
    if (cublas_api.gemm64[prec] == NULL || cublas_api.batched64[prec] == NULL) {
        PyErr_Format(PyExc_ValueError,
                     "matmul: an extent above 2^31 - 1 needs the 64-bit entry "
                     "points of cuBLAS >= 12, which %s lacks",
                     cublas_api.path);
        return -1;
    }
    status = cublas_api.batched64[prec](handle, trans_x, trans_y, g->n, g->m, g->k,
                                        one, g->b, ld_x, g->b_batch, g->a, ld_y,
                                        g->a_batch, zero, g->out, g->n,
                                        g->m * g->n, g->batch);
    return status == CUBLAS_SUCCESS ? 0 : cublas_fail(status, cublas_batched64_names[prec]);
}

#endif /* DEVARRAY_HAVE_CUDA */

/* devarray.set_tf32(enabled): returns the previous setting. */
static PyObject *
cublas_set_tf32(PyObject *Py_UNUSED(module), PyObject *arg)
{
    int previous = cublas_tf32_enabled(), enabled = PyObject_IsTrue(arg);
    if (enabled < 0) {
        return NULL;
    }
    cublas_tf32 = enabled;
    return PyBool_FromLong(previous);
}

/* devarray._core._cublas_path(): the loaded library's path, or None. */
static PyObject *
cublas_path(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args))
{
#ifdef DEVARRAY_HAVE_CUDA
    if (cublas_api.lib != NULL) {
        return PyUnicode_DecodeFSDefault(cublas_api.path);
    }
#endif
    Py_RETURN_NONE;
}

static PyMethodDef cublas_methods[] = {
    {"set_tf32", cublas_set_tf32, METH_O,
     "set_tf32($module, enabled, /)\n--\n\nLet float32 and complex64 matmuls "
     "on CUDA use TF32 tensor cores (faster, about 10 bits of mantissa in "
     "the products) when enabled is true; off by default, or on from the "
     "start when DEVARRAY_ALLOW_TF32=1.  Returns the previous setting."},
    {"_cublas_path", cublas_path, METH_NOARGS,
     "_cublas_path($module, /)\n--\n\nThe path of the cuBLAS library loaded "
     "by the first CUDA matmul, or None before that."},
    {NULL, NULL, 0, NULL},
};

int
cublas_module_init(PyObject *module)
{
    return PyModule_AddFunctions(module, cublas_methods);
}
