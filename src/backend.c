/*
 * Backends and memory: see backend.h.
 *
 * Ownership: this file owns the process-wide CUDA state (the device, its
 * default memory pool) and the choice of default backend.  Both are global
 * on purpose: a CUDA context belongs to the process, not to an interpreter,
 * so per-module state would only pretend to isolate it.  All of it is
 * touched with the GIL held.
 */
#include "backend.h"

#include "pythread.h"

#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#ifdef DEVARRAY_HAVE_CUDA
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>
#endif

PyObject *backend_CUDAError = NULL;

/* -1: not chosen yet */
static int default_backend = -1;

/* Zero-byte allocations return this address, never dereferenced. */
static _Alignas(64) char zero_size_block[64];

#define HOST_ALIGNMENT 64

/* Large host blocks are aligned to 2 MiB and offered to the kernel as huge
   pages (as NumPy does from 4 MiB): a fresh 64 MiB result then takes 32 page
   faults instead of 16384, which otherwise cost more than the arithmetic. */
#define HOST_HUGE_THRESHOLD ((size_t)4 << 20)
#define HOST_HUGE_ALIGNMENT ((size_t)2 << 20)

#ifdef DEVARRAY_HAVE_CUDA

enum { CUDA_UNKNOWN = 0, CUDA_READY, CUDA_ABSENT };

static int cuda_state = CUDA_UNKNOWN;
static int cuda_device = 0;
static cudaMemPool_t cuda_pool = NULL;
/* Why CUDA is absent, for messages. */
static char cuda_absent_reason[256];

/* Errors after which the context cannot run anything again. */
static int
cuda_error_is_sticky(cudaError_t err)
{
    switch (err) {
        case cudaErrorIllegalAddress:
        case cudaErrorLaunchFailure:
        case cudaErrorHardwareStackError:
        case cudaErrorIllegalInstruction:
        case cudaErrorMisalignedAddress:
        case cudaErrorInvalidAddressSpace:
        case cudaErrorInvalidPc:
        case cudaErrorAssert:
        case cudaErrorLaunchTimeout:
        case cudaErrorECCUncorrectable:
        case cudaErrorContextIsDestroyed:
            return 1;
        default:
            return 0;
    }
}

int
backend_cuda_error(cudaError_t err, const char *call)
{
    int sticky = cuda_error_is_sticky(err);
    /* Clear a non-sticky error so it does not resurface in the next check;
       a sticky one cannot be cleared. */
    (void)cudaGetLastError();
    PyErr_Format(backend_CUDAError, "%s failed: %s: %s%s", call,
                 cudaGetErrorName(err), cudaGetErrorString(err),
                 sticky ? " (the CUDA context is no longer usable; restart the "
                          "process)"
                        : "");
    return -1;
}

#define CUDA_CHECK(call)                                \
    do {                                                \
        cudaError_t cuda_check_err_ = (call);           \
        if (cuda_check_err_ != cudaSuccess) {           \
            backend_cuda_error(cuda_check_err_, #call); \
            goto error;                                 \
        }                                               \
    } while (0)

/* Find a device and prepare its memory pool, once.  Failure to find one is
   not an error here (it is recorded); a device that fails to set up is. */
static int
cuda_init(void)
{
    int count = 0, pools_supported = 0;
    uint64_t threshold = UINT64_MAX;
    cudaError_t err;

    if (cuda_state != CUDA_UNKNOWN) {
        return 0;
    }
    err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        snprintf(cuda_absent_reason, sizeof cuda_absent_reason, "%s",
                 err != cudaSuccess ? cudaGetErrorString(err)
                                    : "no CUDA device found");
        cuda_state = CUDA_ABSENT;
        return 0;
    }
    CUDA_CHECK(cudaGetDevice(&cuda_device));
    CUDA_CHECK(cudaDeviceGetAttribute(&pools_supported,
                                      cudaDevAttrMemoryPoolsSupported,
                                      cuda_device));
    if (!pools_supported) {
        snprintf(cuda_absent_reason, sizeof cuda_absent_reason,
                 "device %d does not support stream-ordered memory pools",
                 cuda_device);
        cuda_state = CUDA_ABSENT;
        return 0;
    }
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&cuda_pool, cuda_device));
    /* Keep freed blocks in the pool instead of returning them to the
       driver at every synchronisation: that is what makes per-op
       allocation cheap. */
    CUDA_CHECK(cudaMemPoolSetAttribute(cuda_pool,
                                       cudaMemPoolAttrReleaseThreshold,
                                       &threshold));
    cuda_state = CUDA_READY;
    return 0;
error:
    return -1;
}

static void *
cuda_malloc(size_t nbytes)
{
    void *ptr = NULL;
    size_t free_bytes = 0, total_bytes = 0;
    cudaError_t err = cudaMallocAsync(&ptr, nbytes, 0);

    if (err == cudaErrorMemoryAllocation) {
        /* Blocks freed on the stream may still be pending and the pool may
           hold memory another allocation size could use: wait, trim, retry
           once. */
        (void)cudaGetLastError();
        Py_BEGIN_ALLOW_THREADS
        err = cudaStreamSynchronize(0);
        Py_END_ALLOW_THREADS
        if (err != cudaSuccess) {
            backend_cuda_error(err, "cudaStreamSynchronize");
            return NULL;
        }
        err = cudaMemPoolTrimTo(cuda_pool, 0);
        if (err != cudaSuccess) {
            backend_cuda_error(err, "cudaMemPoolTrimTo");
            return NULL;
        }
        err = cudaMallocAsync(&ptr, nbytes, 0);
        if (err == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            (void)cudaMemGetInfo(&free_bytes, &total_bytes);
            (void)cudaGetLastError();
            PyErr_Format(PyExc_MemoryError,
                         "out of device memory: could not allocate %zu bytes "
                         "on CUDA device %d (%zu bytes free of %zu)",
                         nbytes, cuda_device, free_bytes, total_bytes);
            return NULL;
        }
    }
    if (err != cudaSuccess) {
        backend_cuda_error(err, "cudaMallocAsync");
        return NULL;
    }
    return ptr;
}

/*
 * Arrays of at most SMALL_BLOCK_BYTES (scalars, sum results, short vectors)
 * take a block carved from slabs allocated with cudaMalloc instead of a pool
 * allocation.  Measured on an H200: reading 4 bytes back after a kernel
 * took 16.2 us from pool memory and 13.2 us from cudaMalloc memory (the
 * driver's fast path for small copies to pageable memory), and popping a
 * free list is cheaper than cudaMallocAsync.  Reuse is ordered as the pool
 * orders it: every kernel is queued on the one stream, so a block handed to
 * a new array is written only after the last reads of the array that freed
 * it.  Slabs are never returned; the free list lives under the GIL.
 */
#define SMALL_BLOCK_BYTES ((size_t)4096)
#define SMALL_SLAB_BYTES ((size_t)2 << 20)
#define SMALL_BLOCKS_PER_SLAB (SMALL_SLAB_BYTES / SMALL_BLOCK_BYTES)
/* 8 GiB of small arrays at most; past that the pool serves them */
#define SMALL_MAX_SLABS 4096

static char *small_slabs[SMALL_MAX_SLABS];
static int small_nslabs = 0;
static char **small_free = NULL;
static size_t small_nfree = 0;
static size_t small_in_use = 0;

/* A small block, or NULL: with an exception on failure, without one when
   the caller should use the pool instead (no slab could be had). */
static void *
small_malloc(void)
{
    if (small_nfree == 0) {
        char *slab = NULL, **grown;
        size_t k;
        cudaError_t err;
        if (small_nslabs == SMALL_MAX_SLABS) {
            return NULL;
        }
        grown = PyMem_RawRealloc(small_free, sizeof(char *) * SMALL_BLOCKS_PER_SLAB *
                                                 (size_t)(small_nslabs + 1));
        if (grown == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        small_free = grown;
        err = cudaMalloc((void **)&slab, SMALL_SLAB_BYTES);
        if (err == cudaErrorMemoryAllocation) {
            /* the pool may hold what is missing: it trims and retries */
            (void)cudaGetLastError();
            return NULL;
        }
        if (err != cudaSuccess) {
            backend_cuda_error(err, "cudaMalloc");
            return NULL;
        }
        small_slabs[small_nslabs++] = slab;
        for (k = SMALL_BLOCKS_PER_SLAB; k > 0; k--) {
            small_free[small_nfree++] = slab + (k - 1) * SMALL_BLOCK_BYTES;
        }
    }
    small_in_use += SMALL_BLOCK_BYTES;
    return small_free[--small_nfree];
}

/* Take back `ptr` if it is a small block; 0 if it is not one. */
static int
small_free_block(void *ptr)
{
    int i;
    for (i = 0; i < small_nslabs; i++) {
        if ((char *)ptr >= small_slabs[i] &&
            (char *)ptr < small_slabs[i] + SMALL_SLAB_BYTES) {
            small_free[small_nfree++] = ptr;
            small_in_use -= SMALL_BLOCK_BYTES;
            return 1;
        }
    }
    return 0;
}

#endif /* DEVARRAY_HAVE_CUDA */

int
backend_cuda_available(void)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (cuda_init() < 0) {
        PyErr_Clear();
        return 0;
    }
    return cuda_state == CUDA_READY;
#else
    return 0;
#endif
}

/* The reason CUDA cannot be used, for messages; call after
   backend_cuda_available() returned 0. */
static const char *
cuda_unavailable_reason(void)
{
#ifdef DEVARRAY_HAVE_CUDA
    return cuda_absent_reason[0] ? cuda_absent_reason
                                 : "the CUDA device failed to initialise";
#else
    return "this devarray build has no CUDA backend (it was built without "
           "nvcc or with DEVARRAY_NO_CUDA=1)";
#endif
}

/* Make `name` ("host" or "cuda") the backend of new arrays. */
static int
backend_select(const char *name, const char *origin)
{
    if (strcmp(name, "host") == 0) {
        default_backend = DA_BACKEND_HOST;
        return 0;
    }
    if (strcmp(name, "cuda") == 0) {
        if (!backend_cuda_available()) {
            PyErr_Format(PyExc_RuntimeError,
                         "%s asks for the CUDA backend, but CUDA is not "
                         "available: %s",
                         origin, cuda_unavailable_reason());
            return -1;
        }
        default_backend = DA_BACKEND_CUDA;
        return 0;
    }
    PyErr_Format(PyExc_ValueError,
                 "%s must be 'host' or 'cuda', got '%s'", origin, name);
    return -1;
}

int
backend_default(void)
{
    const char *env;

    if (default_backend >= 0) {
        return default_backend;
    }
    env = getenv("DEVARRAY_BACKEND");
    if (env != NULL && env[0] != '\0') {
        return backend_select(env, "DEVARRAY_BACKEND") < 0 ? -1
                                                           : default_backend;
    }
    if (backend_cuda_available()) {
        default_backend = DA_BACKEND_CUDA;
        return default_backend;
    }
    if (PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                         "devarray: no usable CUDA device (%s); using the "
                         "host backend. Set DEVARRAY_BACKEND=host to choose "
                         "it explicitly.",
                         cuda_unavailable_reason()) < 0) {
        return -1;
    }
    default_backend = DA_BACKEND_HOST;
    return default_backend;
}

int
backend_device(int backend)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        return cuda_device;
    }
#else
    (void)backend;
#endif
    return 0;
}

void *
backend_malloc(int backend, size_t nbytes)
{
    void *ptr;

    if (nbytes == 0) {
        return zero_size_block;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        if (nbytes <= SMALL_BLOCK_BYTES) {
            ptr = small_malloc();
            if (ptr != NULL || PyErr_Occurred()) {
                return ptr;
            }
        }
        return cuda_malloc(nbytes);
    }
#else
    (void)backend;
#endif
    {
        size_t alignment =
            nbytes >= HOST_HUGE_THRESHOLD ? HOST_HUGE_ALIGNMENT : HOST_ALIGNMENT;
        /* aligned_alloc wants a multiple of the alignment */
        if (nbytes > SIZE_MAX - alignment) {
            return PyErr_NoMemory();
        }
        ptr = aligned_alloc(alignment,
                            (nbytes + alignment - 1) / alignment * alignment);
        if (ptr == NULL) {
            PyErr_Format(PyExc_MemoryError,
                         "out of host memory: could not allocate %zu bytes",
                         nbytes);
            return NULL;
        }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (alignment == HOST_HUGE_ALIGNMENT) {
            /* advice only: failure just means ordinary pages */
            (void)madvise(ptr, (nbytes + alignment - 1) / alignment * alignment,
                          MADV_HUGEPAGE);
        }
#endif
    }
    return ptr;
}

void
backend_free(int backend, void *ptr)
{
    if (ptr == NULL || ptr == (void *)zero_size_block) {
        return;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        if (small_free_block(ptr)) {
            return;
        }
        /* Stream-ordered: kernels still reading the block finish first.
           Freeing cannot report an error to anyone; a failure here means the
           context is already broken, and the next call that can raise will
           say so. */
        if (cudaFreeAsync(ptr, 0) != cudaSuccess) {
            (void)cudaGetLastError();
        }
        return;
    }
#else
    (void)backend;
#endif
    free(ptr);
}

#ifdef DEVARRAY_HAVE_CUDA
/*
 * Copies between pageable host memory and the device go through a ring of
 * pinned staging buffers: the DMA of one chunk overlaps the host memcpy of
 * the next (the driver's own pageable path does the two one after the
 * other), and an upload returns as soon as the source has been read.  Below
 * STAGING_THRESHOLD the driver's pageable cudaMemcpy is faster: on an H200 a
 * 4-byte read after a kernel took 11.9 us that way against 16.4 us through a
 * pinned buffer and a synchronisation.  The ring is allocated on first use
 * and kept; a lock makes it safe to share between threads, which run with
 * the GIL released here.
 *
 * One core copies about 10 GB/s between pinned and pageable memory, far
 * below the DMA, and the page faults of a fresh destination come on top; so
 * a few helper threads split each large chunk with the calling thread.  They
 * are started with the ring, detached and blocked on a condition variable
 * when idle (nothing to join at exit), with all signals blocked (signals are
 * for Python's threads), and used only under staging_lock: one job at a time.
 * A forked child has neither the helpers nor a usable CUDA context, so a
 * pthread_atfork handler forgets both there; the child copies with plain
 * memcpy from then on (its copy of the pool's mutex may be held by a helper
 * that did not follow it).
 */
#define STAGING_SLOTS 4
#define STAGING_CHUNK ((size_t)8 << 20)
#define STAGING_THRESHOLD ((size_t)1 << 20)
/* A few threads get close to host memory bandwidth; more would mostly add
   wake-ups and take cores from the user's own threads. */
#define STAGING_MAX_HELPERS 4
/* Below this a wake-up costs more than the copy (item() copies 4 bytes). */
#define STAGING_PARALLEL_MIN ((size_t)1 << 20)
/* Parts start on page boundaries of the destination: no two threads fault
   the same page. */
#define STAGING_PART_ALIGNMENT ((uintptr_t)4096)

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t job_posted;
    pthread_cond_t job_done;
    unsigned long generation;   /* bumped by each job */
    int next_part;              /* first part nobody has claimed */
    int nparts;
    int copying;                /* claimed parts not finished yet */
    char *dst;
    const char *src;
    size_t nbytes;
} staging_pool_t;

static PyThread_type_lock staging_lock = NULL;
static char *staging_slots[STAGING_SLOTS];
static cudaEvent_t staging_events[STAGING_SLOTS];
static int staging_ready = 0;
static int staging_atfork_registered = 0;
static staging_pool_t staging_pool = {
    .mutex = PTHREAD_MUTEX_INITIALIZER,
    .job_posted = PTHREAD_COND_INITIALIZER,
    .job_done = PTHREAD_COND_INITIALIZER,
};
/* Helpers running; 0 means plain memcpy. */
static int staging_helpers = 0;
/* Set once per process and kept in a forked child: helpers start only once. */
static int staging_helpers_tried = 0;

/* In a forked child (one thread, no CUDA context): the ring starts over on
   next use, and that use fails cleanly if CUDA does.  The lock may have been
   held by a thread that does not exist here, so it is replaced (and leaked)
   rather than reused. */
static void
staging_forget_in_child(void)
{
    staging_lock = NULL;
    memset(staging_slots, 0, sizeof(staging_slots));
    memset(staging_events, 0, sizeof(staging_events));
    staging_ready = 0;
    staging_helpers = 0;
}

/* Offset where part `part` of `nparts` starts: an equal share, moved up to a
   page boundary of the destination. */
static size_t
staging_part_start(const char *dst, size_t nbytes, int part, int nparts)
{
    uintptr_t start;
    if (part == 0) {
        return 0;
    }
    if (part >= nparts) {
        return nbytes;
    }
    start = (uintptr_t)dst + nbytes / (size_t)nparts * (size_t)part;
    start = (start + STAGING_PART_ALIGNMENT - 1) & ~(STAGING_PART_ALIGNMENT - 1);
    start -= (uintptr_t)dst;
    return start < nbytes ? start : nbytes;
}

/* Copy unclaimed parts of the current job until none is left.  Called, and
   returns, with the pool's mutex held. */
static void
staging_pool_copy_parts(staging_pool_t *pool)
{
    while (pool->next_part < pool->nparts) {
        int part = pool->next_part++;
        char *dst = pool->dst;
        const char *src = pool->src;
        size_t start = staging_part_start(dst, pool->nbytes, part, pool->nparts);
        size_t end = staging_part_start(dst, pool->nbytes, part + 1, pool->nparts);
        pool->copying++;
        pthread_mutex_unlock(&pool->mutex);
        memcpy(dst + start, src + start, end - start);
        pthread_mutex_lock(&pool->mutex);
        if (--pool->copying == 0 && pool->next_part == pool->nparts) {
            pthread_cond_signal(&pool->job_done);
        }
    }
}

static void *
staging_helper_main(void *arg)
{
    staging_pool_t *pool = arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&pool->mutex);
    for (;;) {
        while (pool->generation == seen) {
            pthread_cond_wait(&pool->job_posted, &pool->mutex);
        }
        /* a helper that wakes late finds the job claimed and sleeps again */
        seen = pool->generation;
        staging_pool_copy_parts(pool);
    }
    return NULL;
}

/* memcpy, split between the calling thread and the helpers when large.  The
   caller claims parts too, so a helper slow to wake delays nothing but its
   own share.  Runs without the GIL, under staging_lock. */
static void
staging_memcpy(char *dst, const char *src, size_t nbytes)
{
    staging_pool_t *pool = &staging_pool;
    if (staging_helpers == 0 || nbytes < STAGING_PARALLEL_MIN) {
        memcpy(dst, src, nbytes);
        return;
    }
    pthread_mutex_lock(&pool->mutex);
    pool->dst = dst;
    pool->src = src;
    pool->nbytes = nbytes;
    pool->next_part = 0;
    pool->nparts = staging_helpers + 1;
    pool->generation++;
    pthread_cond_broadcast(&pool->job_posted);
    staging_pool_copy_parts(pool);
    while (pool->copying > 0) {
        pthread_cond_wait(&pool->job_done, &pool->mutex);
    }
    pthread_mutex_unlock(&pool->mutex);
}

static int
staging_cpu_count(void)
{
    long n;
#ifdef CPU_COUNT
    cpu_set_t cpus;
    /* the CPUs this process may run on, which a container may restrict */
    if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0) {
        return CPU_COUNT(&cpus);
    }
#endif
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Start the helpers (GIL held), leaving one core to the rest of the process
   but starting at least one.  Failure is not an error: it only means fewer
   helpers, or plain memcpy. */
static void
staging_start_helpers(void)
{
    pthread_attr_t attr;
    sigset_t all_signals, saved_mask;
    pthread_t thread;
    int wanted = staging_cpu_count() - 1;
    int started = 0;

    staging_helpers_tried = 1;
    if (wanted > STAGING_MAX_HELPERS) {
        wanted = STAGING_MAX_HELPERS;
    }
    if (wanted < 1) {
        wanted = 1;
    }
    if (pthread_attr_init(&attr) != 0) {
        return;
    }
    (void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sigfillset(&all_signals);
    pthread_sigmask(SIG_BLOCK, &all_signals, &saved_mask);
    while (started < wanted &&
           pthread_create(&thread, &attr, staging_helper_main, &staging_pool) == 0) {
        started++;
    }
    pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
    pthread_attr_destroy(&attr);
    staging_helpers = started;
}

/* Allocate the ring and start the helpers (GIL held).  0, or -1 with an
   exception; after a failure the next call allocates what is missing. */
static int
staging_init(void)
{
    int i;
    cudaError_t err;
    if (staging_ready) {
        return 0;
    }
    if (!staging_atfork_registered &&
        pthread_atfork(NULL, NULL, staging_forget_in_child) != 0) {
        PyErr_NoMemory();
        return -1;
    }
    staging_atfork_registered = 1;
    if (staging_lock == NULL && (staging_lock = PyThread_allocate_lock()) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (i = 0; i < STAGING_SLOTS; i++) {
        if (staging_slots[i] == NULL) {
            err = cudaHostAlloc((void **)&staging_slots[i], STAGING_CHUNK,
                                cudaHostAllocDefault);
            if (err != cudaSuccess) {
                staging_slots[i] = NULL;
                return backend_cuda_error(err, "cudaHostAlloc");
            }
        }
        if (staging_events[i] == NULL) {
            err = cudaEventCreateWithFlags(&staging_events[i],
                                           cudaEventDisableTiming);
            if (err != cudaSuccess) {
                staging_events[i] = NULL;
                return backend_cuda_error(err, "cudaEventCreateWithFlags");
            }
        }
    }
    if (!staging_helpers_tried) {
        staging_start_helpers();
    }
    staging_ready = 1;
    return 0;
}

/* Device -> host through the ring: up to STAGING_SLOTS chunks in flight
   while the oldest is copied out.  Runs without the GIL. */
static cudaError_t
staged_device_to_host(char *dst, const char *src, size_t nbytes)
{
    size_t nchunks = (nbytes + STAGING_CHUNK - 1) / STAGING_CHUNK;
    size_t issued = 0, done = 0;
    cudaError_t err = cudaSuccess;
    while (done < nchunks) {
        for (; issued < nchunks && issued - done < STAGING_SLOTS; issued++) {
            size_t offset = issued * STAGING_CHUNK;
            size_t len = nbytes - offset < STAGING_CHUNK ? nbytes - offset : STAGING_CHUNK;
            int slot = (int)(issued % STAGING_SLOTS);
            err = cudaMemcpyAsync(staging_slots[slot], src + offset, len,
                                  cudaMemcpyDeviceToHost, 0);
            if (err == cudaSuccess) {
                err = cudaEventRecord(staging_events[slot], 0);
            }
            if (err != cudaSuccess) {
                return err;
            }
        }
        {
            size_t offset = done * STAGING_CHUNK;
            size_t len = nbytes - offset < STAGING_CHUNK ? nbytes - offset : STAGING_CHUNK;
            int slot = (int)(done % STAGING_SLOTS);
            err = cudaEventSynchronize(staging_events[slot]);
            if (err != cudaSuccess) {
                return err;
            }
            staging_memcpy(dst + offset, staging_slots[slot], len);
            done++;
        }
    }
    return err;
}

/* Host -> device through the ring.  Returns once the source has been read;
   the last DMAs may still run, ordered before later work on the stream, and
   the next user of a slot waits for its event.  Runs without the GIL. */
static cudaError_t
staged_host_to_device(char *dst, const char *src, size_t nbytes)
{
    size_t offset;
    cudaError_t err = cudaSuccess;
    int slot = 0;
    for (offset = 0; offset < nbytes; offset += STAGING_CHUNK) {
        size_t len = nbytes - offset < STAGING_CHUNK ? nbytes - offset : STAGING_CHUNK;
        /* the slot's previous DMA must have drained before it is refilled */
        err = cudaEventSynchronize(staging_events[slot]);
        if (err != cudaSuccess) {
            return err;
        }
        staging_memcpy(staging_slots[slot], src + offset, len);
        err = cudaMemcpyAsync(dst + offset, staging_slots[slot], len,
                              cudaMemcpyHostToDevice, 0);
        if (err == cudaSuccess) {
            err = cudaEventRecord(staging_events[slot], 0);
        }
        if (err != cudaSuccess) {
            return err;
        }
        slot = (slot + 1) % STAGING_SLOTS;
    }
    return err;
}

static int
cuda_copy(void *dst, const void *src, size_t nbytes, int kind)
{
    cudaError_t err;
    if (kind == DA_COPY_D2D) {
        err = cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice, 0);
        return err == cudaSuccess ? 0 : backend_cuda_error(err, "cudaMemcpyAsync");
    }
    if (nbytes < STAGING_THRESHOLD) {
        Py_BEGIN_ALLOW_THREADS
        err = cudaMemcpy(dst, src, nbytes,
                         kind == DA_COPY_H2D ? cudaMemcpyHostToDevice
                                             : cudaMemcpyDeviceToHost);
        Py_END_ALLOW_THREADS
        return err == cudaSuccess ? 0 : backend_cuda_error(err, "cudaMemcpy");
    }
    if (staging_init() < 0) {
        return -1;
    }
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(staging_lock, WAIT_LOCK);
    err = kind == DA_COPY_H2D ? staged_host_to_device(dst, src, nbytes)
                              : staged_device_to_host(dst, src, nbytes);
    PyThread_release_lock(staging_lock);
    Py_END_ALLOW_THREADS
    return err == cudaSuccess ? 0 : backend_cuda_error(err, "staged cudaMemcpyAsync");
}
#endif /* DEVARRAY_HAVE_CUDA */

int
backend_copy(int backend, void *dst, const void *src, size_t nbytes, int kind)
{
    if (nbytes == 0) {
        return 0;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        return cuda_copy(dst, src, nbytes, kind);
    }
#else
    (void)backend;
    (void)kind;
#endif
    memmove(dst, src, nbytes);
    return 0;
}

int
backend_memset_zero(int backend, void *dst, size_t nbytes)
{
    if (nbytes == 0) {
        return 0;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        cudaError_t err = cudaMemsetAsync(dst, 0, nbytes, 0);
        return err == cudaSuccess ? 0 : backend_cuda_error(err, "cudaMemsetAsync");
    }
#else
    (void)backend;
#endif
    memset(dst, 0, nbytes);
    return 0;
}

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
        cudaError_t err = da_cuda_elementwise(op, cls, e, 0);
        return err == cudaSuccess ? 0 : backend_cuda_error(err, "elementwise kernel");
    }
#else
    (void)backend;
#endif
    if (da_host_elementwise(op, cls, e) != 0) {
        return host_contract_error("elementwise op");
    }
    return 0;
}

#ifdef DEVARRAY_HAVE_CUDA
/* Reductions' temporary storage up to this size comes from one block kept
   for the process: every reduction is queued on the same stream, so uses of
   the block never overlap, and a sum costs no allocation. */
#define SUM_SCRATCH_BYTES ((size_t)1 << 20)
static void *sum_scratch = NULL;
#endif

int
backend_sum(int backend, const void *in, int in_typenum, void *out,
            int acc_typenum, int64_t nsegments, int64_t seglen)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        size_t temp_bytes = 0;
        void *temp = NULL;
        cudaError_t err = da_cuda_sum(NULL, &temp_bytes, in, in_typenum, out,
                                      acc_typenum, nsegments, seglen, 0);
        if (err != cudaSuccess) {
            return backend_cuda_error(err, "sum (temporary storage query)");
        }
        if (temp_bytes <= SUM_SCRATCH_BYTES) {
            if (sum_scratch == NULL &&
                (sum_scratch = backend_malloc(DA_BACKEND_CUDA, SUM_SCRATCH_BYTES)) == NULL) {
                return -1;
            }
            temp = sum_scratch;
        }
        else if ((temp = backend_malloc(DA_BACKEND_CUDA, temp_bytes)) == NULL) {
            return -1;
        }
        err = da_cuda_sum(temp, &temp_bytes, in, in_typenum, out, acc_typenum,
                          nsegments, seglen, 0);
        if (temp != sum_scratch) {
            /* stream-ordered free: the reduction finishes first */
            backend_free(DA_BACKEND_CUDA, temp);
        }
        return err == cudaSuccess ? 0 : backend_cuda_error(err, "sum kernel");
    }
#else
    (void)backend;
#endif
    if (da_host_sum(in, in_typenum, out, acc_typenum, nsegments, seglen) != 0) {
        return host_contract_error("sum");
    }
    return 0;
}

int
backend_synchronize(int backend)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        cudaError_t err;
        Py_BEGIN_ALLOW_THREADS
        err = cudaStreamSynchronize(0);
        Py_END_ALLOW_THREADS
        return err == cudaSuccess ? 0 : backend_cuda_error(err, "cudaStreamSynchronize");
    }
#else
    (void)backend;
#endif
    return 0;
}

/* ---- module-level functions ---------------------------------------------- */

static PyObject *
backend_py_backend(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args))
{
    int backend = backend_default();
    if (backend < 0) {
        return NULL;
    }
    return PyUnicode_FromString(backend == DA_BACKEND_CUDA ? "cuda" : "host");
}

static PyObject *
backend_py_set_backend(PyObject *Py_UNUSED(module), PyObject *name)
{
    const char *text;
    Py_ssize_t len;
    if (!PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError,
                     "set_backend() takes 'host' or 'cuda', not %.200s",
                     Py_TYPE(name)->tp_name);
        return NULL;
    }
    text = PyUnicode_AsUTF8AndSize(name, &len);
    if (text != NULL && (size_t)len != strlen(text)) {
        PyErr_SetString(PyExc_ValueError,
                        "set_backend() must be 'host' or 'cuda' (embedded null character)");
        return NULL;
    }
    if (text == NULL || backend_select(text, "set_backend()") < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
backend_py_synchronize(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args))
{
    if (backend_cuda_available() && backend_synchronize(DA_BACKEND_CUDA) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
backend_py_cuda_available(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args))
{
    return PyBool_FromLong(backend_cuda_available());
}

static PyObject *
backend_py_device_info(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args))
{
#ifdef DEVARRAY_HAVE_CUDA
    struct cudaDeviceProp prop;
    int driver = 0, runtime = 0;
    if (!backend_cuda_available()) {
        Py_RETURN_NONE;
    }
    CUDA_CHECK(cudaGetDeviceProperties(&prop, cuda_device));
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    return Py_BuildValue("{s:i,s:s,s:(ii),s:n,s:i,s:i,s:i}", "device",
                         cuda_device, "name", prop.name, "compute_capability",
                         prop.major, prop.minor, "total_memory",
                         (Py_ssize_t)prop.totalGlobalMem, "multiprocessors",
                         prop.multiProcessorCount, "driver_version", driver,
                         "runtime_version", runtime);
error:
    return NULL;
#else
    Py_RETURN_NONE;
#endif
}

static PyObject *
backend_py_memory_in_use(PyObject *Py_UNUSED(module), PyObject *Py_UNUSED(args))
{
#ifdef DEVARRAY_HAVE_CUDA
    uint64_t used = 0;
    if (!backend_cuda_available()) {
        return PyLong_FromLong(0);
    }
    CUDA_CHECK(cudaMemPoolGetAttribute(cuda_pool, cudaMemPoolAttrUsedMemCurrent,
                                       &used));
    return PyLong_FromUnsignedLongLong(used + small_in_use);
error:
    return NULL;
#else
    return PyLong_FromLong(0);
#endif
}

static PyMethodDef backend_methods[] = {
    {"backend", backend_py_backend, METH_NOARGS,
     "backend()\n--\n\nThe backend new arrays are made on: 'cuda' or 'host'."},
    {"set_backend", backend_py_set_backend, METH_O,
     "set_backend(name)\n--\n\nMake 'host' or 'cuda' the backend of new "
     "arrays.  Existing arrays keep theirs."},
    {"synchronize", backend_py_synchronize, METH_NOARGS,
     "synchronize()\n--\n\nWait until all queued device work has finished."},
    {"_cuda_available", backend_py_cuda_available, METH_NOARGS,
     "Whether a usable CUDA device is present."},
    {"_device_info", backend_py_device_info, METH_NOARGS,
     "A dict describing the CUDA device, or None without one."},
    {"_memory_in_use", backend_py_memory_in_use, METH_NOARGS,
     "Bytes of device memory held by live arrays (pool allocations and "
     "small blocks)."},
    {NULL, NULL, 0, NULL},
};

int
backend_module_init(PyObject *module)
{
    backend_CUDAError = PyErr_NewExceptionWithDoc(
        "devarray.CUDAError",
        "A CUDA call failed; the message names the call, the CUDA error and "
        "whether the context is still usable.",
        PyExc_RuntimeError, NULL);
    if (backend_CUDAError == NULL) {
        return -1;
    }
    if (PyModule_AddObjectRef(module, "CUDAError", backend_CUDAError) < 0) {
        return -1;
    }
    return PyModule_AddFunctions(module, backend_methods);
}
