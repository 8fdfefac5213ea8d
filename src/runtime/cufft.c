/*
 * cuFFT, loaded at first use: see cufft.h.
 *
 * Ownership: the dlopen()ed library and its entry points live until exit
 * (never dlclose()d, as cuBLAS).  Plans live in a small cache, each made on
 * its device and destroyed when a newer key evicts it; each execution takes
 * its work area from devarray's pool on the current stream and frees it
 * there (stream-ordered), so a cached plan holds no memory of its own
 * beyond cuFFT's tables.  All of it is touched with the GIL held.
 *
 * No cuFFT header is needed to build: the entry points are declared here
 * through their C ABI (a plan is an int, enums are ints), with cuFFT's
 * stable values.
 */
#include "runtime/cufft.h"

#ifdef DEVARRAY_HAVE_CUDA
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/cuda_error.h"
#include "runtime/device.h"
#include "runtime/dynlib.h"
#include "runtime/pool.h"
#include "runtime/stream.h"

enum {
    CUFFT_SUCCESS = 0,
    CUFFT_DIRECTION_FORWARD = -1,
    CUFFT_DIRECTION_INVERSE = 1,
    /* cufftType, by precision then kind (the order of cufft.h's enum) */
    CUFFT_TYPE_C2C = 0x29,
    CUFFT_TYPE_R2C = 0x2a,
    CUFFT_TYPE_C2R = 0x2c,
    CUFFT_TYPE_Z2Z = 0x69,
    CUFFT_TYPE_D2Z = 0x6a,
    CUFFT_TYPE_Z2D = 0x6c,
    /* plans kept: enough for the shapes a loop alternates between */
    CUFFT_PLAN_CACHE = 32,
};

typedef int (*cufft_create_fn)(int *plan);
typedef int (*cufft_destroy_fn)(int plan);
typedef int (*cufft_set_int_fn)(int plan, int value);
typedef int (*cufft_set_work_area_fn)(int plan, void *area);
typedef int (*cufft_set_stream_fn)(int plan, cudaStream_t stream);
typedef int (*cufft_make_plan_many64_fn)(int plan, int rank, long long *n, long long *inembed,
                                         long long istride, long long idist,
                                         long long *onembed, long long ostride,
                                         long long odist, int type, long long batch,
                                         size_t *work_size);
typedef int (*cufft_exec_c2c_fn)(int plan, void *in, void *out, int direction);
typedef int (*cufft_exec_fn)(int plan, void *in, void *out);

static struct {
    void *lib;
    cufft_create_fn create;
    cufft_destroy_fn destroy;
    cufft_set_int_fn set_auto_allocation;
    cufft_set_work_area_fn set_work_area;
    cufft_set_stream_fn set_stream;
    cufft_make_plan_many64_fn make_plan_many64;
    cufft_exec_c2c_fn exec_c2c, exec_z2z;
    cufft_exec_fn exec_r2c, exec_d2z, exec_c2r, exec_z2d;
} cufft_api;

typedef struct {
    int64_t dims[CUFFT_RANK_MAX], batch;
    size_t work_size;
    uint64_t last_use;
    int used; /* the entry holds a plan */
    int device, kind, is_double, rank;
    int plan;
} cufft_plan_entry;

static cufft_plan_entry cufft_plans[CUFFT_PLAN_CACHE];
static uint64_t cufft_clock;

/* dynlib_adopt_fn: take `lib` when it has every entry point needed. */
static int
cufft_adopt(void *lib, const char *Py_UNUSED(path), void *Py_UNUSED(ctx))
{
    cufft_api.create = (cufft_create_fn)dlsym(lib, "cufftCreate");
    cufft_api.destroy = (cufft_destroy_fn)dlsym(lib, "cufftDestroy");
    cufft_api.set_auto_allocation = (cufft_set_int_fn)dlsym(lib, "cufftSetAutoAllocation");
    cufft_api.set_work_area = (cufft_set_work_area_fn)dlsym(lib, "cufftSetWorkArea");
    cufft_api.set_stream = (cufft_set_stream_fn)dlsym(lib, "cufftSetStream");
    cufft_api.make_plan_many64 = (cufft_make_plan_many64_fn)dlsym(lib, "cufftMakePlanMany64");
    cufft_api.exec_c2c = (cufft_exec_c2c_fn)dlsym(lib, "cufftExecC2C");
    cufft_api.exec_z2z = (cufft_exec_c2c_fn)dlsym(lib, "cufftExecZ2Z");
    cufft_api.exec_r2c = (cufft_exec_fn)dlsym(lib, "cufftExecR2C");
    cufft_api.exec_d2z = (cufft_exec_fn)dlsym(lib, "cufftExecD2Z");
    cufft_api.exec_c2r = (cufft_exec_fn)dlsym(lib, "cufftExecC2R");
    cufft_api.exec_z2d = (cufft_exec_fn)dlsym(lib, "cufftExecZ2D");
    if (cufft_api.create == NULL || cufft_api.destroy == NULL ||
        cufft_api.set_auto_allocation == NULL || cufft_api.set_work_area == NULL ||
        cufft_api.set_stream == NULL || cufft_api.make_plan_many64 == NULL ||
        cufft_api.exec_c2c == NULL || cufft_api.exec_z2z == NULL ||
        cufft_api.exec_r2c == NULL || cufft_api.exec_d2z == NULL ||
        cufft_api.exec_c2r == NULL || cufft_api.exec_z2d == NULL) {
        return 0;
    }
    cufft_api.lib = lib;
    return 1;
}

/* Load cuFFT if it is not loaded yet: 0, or -1 with RuntimeError. */
static int
cufft_load(void)
{
    /* cuFFT 12 ships with CUDA 13, cuFFT 11 with CUDA 12 */
    static const char *const sonames[] = {"libcufft.so.12", "libcufft.so.11", NULL};
    static const char *const wheel_dirs[] = {"nvidia/cu13/lib", "nvidia/cufft/lib",
                                             "nvidia/cu12/lib", NULL};
    dynlib_log log = {"", ""};
    const char *env;

    if (cufft_api.lib != NULL) {
        return 0;
    }
    env = getenv("DEVARRAY_CUFFT");
    if (env != NULL && env[0] != '\0') {
        if (dynlib_try(env, cufft_adopt, NULL, &log)) {
            return 0;
        }
        PyErr_Format(PyExc_RuntimeError,
                     "devarray: DEVARRAY_CUFFT=%s does not load as cuFFT (%s); point it "
                     "at a libcufft.so.11 or .12, or unset it to search the usual places",
                     env, log.last_error);
        return -1;
    }
    if (dynlib_search(sonames, wheel_dirs, cufft_adopt, NULL, &log)) {
        return 0;
    }
    PyErr_Format(PyExc_RuntimeError,
                 "devarray: devarray.fft on CUDA needs cuFFT, and no libcufft was found "
                 "(tried %s). Install it with `pip install devarray[fft]` (the "
                 "nvidia-cufft wheel), or set DEVARRAY_CUFFT to the path of a "
                 "libcufft.so.11 or .12.",
                 log.tried);
    return -1;
}

/* devarray.CUDAError for a failed cuFFT call (cuFFT has no status names):
   -1. */
static int
cufft_fail(int status, const char *call)
{
    static const char *const names[] = {
        "CUFFT_SUCCESS",       "CUFFT_INVALID_PLAN",   "CUFFT_ALLOC_FAILED",
        "CUFFT_INVALID_TYPE",  "CUFFT_INVALID_VALUE",  "CUFFT_INTERNAL_ERROR",
        "CUFFT_EXEC_FAILED",   "CUFFT_SETUP_FAILED",   "CUFFT_INVALID_SIZE",
        "CUFFT_UNALIGNED_DATA"};
    char message[256];
    snprintf(message, sizeof message, "cuFFT %s failed: %s (%d)", call,
             status >= 0 && status < (int)(sizeof names / sizeof names[0]) ? names[status]
                                                                           : "CUFFT_STATUS",
             status);
    return cuda_error_message(message);
}

static int
cufft_type(int kind, int is_double)
{
    switch (kind) {
        case CUFFT_KIND_R2C:
            return is_double ? CUFFT_TYPE_D2Z : CUFFT_TYPE_R2C;
        case CUFFT_KIND_C2R:
            return is_double ? CUFFT_TYPE_Z2D : CUFFT_TYPE_C2R;
        default:
            return is_double ? CUFFT_TYPE_Z2Z : CUFFT_TYPE_C2C;
    }
}

/* Whether entry holds the plan of the key (C2C forward and inverse share
   one: the direction is the execution's). */
static int
cufft_plan_matches(const cufft_plan_entry *entry, int device, int kind, int is_double, int rank,
                   const int64_t *dims, int64_t batch)
{
    int d;
    if (!entry->used || entry->device != device || entry->is_double != is_double ||
        entry->rank != rank || entry->batch != batch ||
        !(entry->kind == kind || (entry->kind < CUFFT_KIND_R2C && kind < CUFFT_KIND_R2C))) {
        return 0;
    }
    for (d = 0; d < rank; d++) {
        if (entry->dims[d] != dims[d]) {
            return 0;
        }
    }
    return 1;
}

/* The cached plan for the key, made (on the active device) when missing,
   evicting the least recently used; NULL with an exception. */
static cufft_plan_entry *
cufft_plan(int device, int kind, int is_double, int rank, const int64_t *dims, int64_t batch)
{
    cufft_plan_entry *entry, *oldest = &cufft_plans[0];
    long long extents[CUFFT_RANK_MAX];
    int i, status, plan = 0;
    size_t work_size = 0;

    for (i = 0; i < CUFFT_PLAN_CACHE; i++) {
        entry = &cufft_plans[i];
        if (cufft_plan_matches(entry, device, kind, is_double, rank, dims, batch)) {
            entry->last_use = ++cufft_clock;
            return entry;
        }
        if (!entry->used || (oldest->used && entry->last_use < oldest->last_use)) {
            oldest = entry;
        }
    }
    for (i = 0; i < rank; i++) {
        extents[i] = (long long)dims[i];
    }
    status = cufft_api.create(&plan);
    if (status != CUFFT_SUCCESS) {
        cufft_fail(status, "cufftCreate");
        return NULL;
    }
    status = cufft_api.set_auto_allocation(plan, 0);
    if (status == CUFFT_SUCCESS) {
        /* NULL embeds: the basic layout, dense transforms one after another */
        status = cufft_api.make_plan_many64(plan, rank, extents, NULL, 1, 0, NULL, 1, 0,
                                            cufft_type(kind, is_double), (long long)batch,
                                            &work_size);
    }
    if (status != CUFFT_SUCCESS) {
        cufft_api.destroy(plan);
        cufft_fail(status, "cufftMakePlanMany64");
        return NULL;
    }
    if (oldest->used) {
        /* cuFFT frees the plan's tables with cudaFree, which waits for the
           work queued on the device, this plan's included */
        (void)device_activate(DA_BACKEND_CUDA, oldest->device);
        cufft_api.destroy(oldest->plan);
        oldest->used = 0;
        if (device_activate(DA_BACKEND_CUDA, device) < 0) {
            cufft_api.destroy(plan);
            return NULL;
        }
    }
    oldest->used = 1;
    oldest->device = device;
    oldest->kind = kind;
    oldest->is_double = is_double;
    oldest->rank = rank;
    for (i = 0; i < rank; i++) {
        oldest->dims[i] = dims[i];
    }
    oldest->batch = batch;
    oldest->plan = plan;
    oldest->work_size = work_size;
    oldest->last_use = ++cufft_clock;
    return oldest;
}

int
cufft_exec(int device, int kind, int is_double, int rank, const int64_t *dims, int64_t batch,
           void *in, void *out)
{
    cufft_plan_entry *entry;
    cudaStream_t stream;
    void *work = NULL;
    const char *call = "cufftSetWorkArea";
    int status;

    if (cufft_load() < 0) {
        return -1;
    }
    entry = cufft_plan(device, kind, is_double, rank, dims, batch);
    if (entry == NULL) {
        return -1;
    }
    stream = stream_current();
    status = cufft_api.set_stream(entry->plan, stream);
    if (status != CUFFT_SUCCESS) {
        return cufft_fail(status, "cufftSetStream");
    }
    if (entry->work_size > 0) {
        work = pool_malloc(DA_BACKEND_CUDA, entry->work_size);
        if (work == NULL) {
            return -1;
        }
    }
    status = cufft_api.set_work_area(entry->plan, work);
    if (status != CUFFT_SUCCESS) {
        goto error_status;
    }
    call = "cufftExec";
    switch (kind) {
        case CUFFT_KIND_FORWARD:
        case CUFFT_KIND_INVERSE:
            status = (is_double ? cufft_api.exec_z2z : cufft_api.exec_c2c)(
                entry->plan, in, out,
                kind == CUFFT_KIND_FORWARD ? CUFFT_DIRECTION_FORWARD : CUFFT_DIRECTION_INVERSE);
            break;
        case CUFFT_KIND_R2C:
            status = (is_double ? cufft_api.exec_d2z : cufft_api.exec_r2c)(entry->plan, in, out);
            break;
        default:
            status = (is_double ? cufft_api.exec_z2d : cufft_api.exec_c2r)(entry->plan, in, out);
            break;
    }
    if (status != CUFFT_SUCCESS) {
        goto error_status;
    }
    if (work != NULL) {
        pool_free(DA_BACKEND_CUDA, work, entry->work_size);
    }
    return 0;

error_status:
    if (work != NULL) {
        pool_free(DA_BACKEND_CUDA, work, entry->work_size);
    }
    return cufft_fail(status, call);
}
#endif
