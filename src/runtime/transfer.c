/*
 * Host <-> device copies: see transfer.h.
 *
 * Ownership: this file owns the staging ring (pinned host buffers and their
 * events, allocated on first use and kept for the process), the lock that
 * serialises its users, and the helper threads that split large host
 * copies.  All are global, like the CUDA context they serve; a forked child
 * forgets them (staging_forget_in_child).  Host blocks from
 * transfer_host_alloc belong to the caller, who gives them back with
 * transfer_host_free.
 *
 * Streams: every copy is queued on stream_current(), asked once per call
 * with the GIL held and passed down to the code that runs without it.
 */
#include "runtime/transfer.h"

#include "base/cuda_error.h"
#include "pythread.h"
#include "runtime/device.h"
#include "runtime/stream.h"

#include <stdlib.h>
#include <string.h>
#ifdef DEVARRAY_HAVE_CUDA
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>
#endif

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
/* Portable pinned buffers: every device's DMA reads and writes them. */
static char *staging_slots[STAGING_SLOTS];
/* An event can be recorded only on a stream of its own device: each device
   has its own per slot, made the first time that device stages a copy. */
static cudaEvent_t staging_events[DA_DEVICE_MAX][STAGING_SLOTS];
/* The event the last DMA of each slot recorded (any device's), or NULL
   when none can still be running: the slot's next user waits for it. */
static cudaEvent_t staging_pending[STAGING_SLOTS];
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
    memset(staging_pending, 0, sizeof(staging_pending));
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

/* The ring's events for `device`, the active one (GIL held): made on
   first use.  0, or -1 with an exception. */
static int
staging_init_device(int device)
{
    int i;
    cudaError_t err;
    for (i = 0; i < STAGING_SLOTS; i++) {
        if (staging_events[device][i] == NULL) {
            err = cudaEventCreateWithFlags(&staging_events[device][i],
                                           cudaEventDisableTiming);
            if (err != cudaSuccess) {
                staging_events[device][i] = NULL;
                return cuda_error_raise(err, "cudaEventCreateWithFlags");
            }
        }
    }
    return 0;
}

/* Allocate the ring, start the helpers and make the events of `device`,
   the active one (GIL held).  0, or -1 with an exception; after a failure
   the next call allocates what is missing. */
static int
staging_init(int device)
{
    int i;
    cudaError_t err;
    if (staging_ready) {
        return staging_init_device(device);
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
                                cudaHostAllocPortable);
            if (err != cudaSuccess) {
                staging_slots[i] = NULL;
                return cuda_error_raise(err, "cudaHostAlloc");
            }
        }
    }
    if (staging_init_device(device) < 0) {
        return -1;
    }
    if (!staging_helpers_tried) {
        staging_start_helpers();
    }
    staging_ready = 1;
    return 0;
}

/* Device -> host through the ring, on `device`'s `stream`: up to
   STAGING_SLOTS chunks in flight while the oldest is copied out.  Returns
   when every chunk is in `dst`, so no DMA of the ring is left running.
   Runs without the GIL, under staging_lock. */
static cudaError_t
staged_device_to_host(char *dst, const char *src, size_t nbytes, int device,
                      cudaStream_t stream)
{
    size_t nchunks = (nbytes + STAGING_CHUNK - 1) / STAGING_CHUNK;
    size_t issued = 0, done = 0;
    cudaError_t err = cudaSuccess;
    int slot;
    /* an upload's last DMAs (from any device, on any stream) may still read
       the slots: the stream waits for them before it writes there */
    for (slot = 0; slot < STAGING_SLOTS && (size_t)slot < nchunks; slot++) {
        if (staging_pending[slot] != NULL) {
            err = cudaStreamWaitEvent(stream, staging_pending[slot], 0);
            if (err != cudaSuccess) {
                return err;
            }
            staging_pending[slot] = NULL;
        }
    }
    while (done < nchunks) {
        for (; issued < nchunks && issued - done < STAGING_SLOTS; issued++) {
            size_t offset = issued * STAGING_CHUNK;
            size_t len = nbytes - offset < STAGING_CHUNK ? nbytes - offset : STAGING_CHUNK;
            int slot = (int)(issued % STAGING_SLOTS);
            err = cudaMemcpyAsync(staging_slots[slot], src + offset, len,
                                  cudaMemcpyDeviceToHost, stream);
            if (err == cudaSuccess) {
                err = cudaEventRecord(staging_events[device][slot], stream);
            }
            if (err != cudaSuccess) {
                return err;
            }
        }
        {
            size_t offset = done * STAGING_CHUNK;
            size_t len = nbytes - offset < STAGING_CHUNK ? nbytes - offset : STAGING_CHUNK;
            int slot = (int)(done % STAGING_SLOTS);
            err = cudaEventSynchronize(staging_events[device][slot]);
            if (err != cudaSuccess) {
                return err;
            }
            staging_memcpy(dst + offset, staging_slots[slot], len);
            done++;
        }
    }
    return err;
}

/* Host -> device through the ring, on `device`'s `stream`.  Returns once
   the source has been read; the last DMAs may still run, ordered before
   later work on the stream, and the next user of a slot waits for the
   event they recorded.  Runs without the GIL, under staging_lock. */
static cudaError_t
staged_host_to_device(char *dst, const char *src, size_t nbytes, int device,
                      cudaStream_t stream)
{
    size_t offset;
    cudaError_t err = cudaSuccess;
    int slot = 0;
    for (offset = 0; offset < nbytes; offset += STAGING_CHUNK) {
        size_t len = nbytes - offset < STAGING_CHUNK ? nbytes - offset : STAGING_CHUNK;
        /* the slot's previous DMA must have drained before it is refilled */
        if (staging_pending[slot] != NULL) {
            err = cudaEventSynchronize(staging_pending[slot]);
            if (err != cudaSuccess) {
                return err;
            }
            staging_pending[slot] = NULL;
        }
        staging_memcpy(staging_slots[slot], src + offset, len);
        err = cudaMemcpyAsync(dst + offset, staging_slots[slot], len,
                              cudaMemcpyHostToDevice, stream);
        if (err == cudaSuccess) {
            err = cudaEventRecord(staging_events[device][slot], stream);
        }
        if (err != cudaSuccess) {
            return err;
        }
        staging_pending[slot] = staging_events[device][slot];
        slot = (slot + 1) % STAGING_SLOTS;
    }
    return err;
}

/* Whether CUDA knows the nbytes (> 0) at ptr as page-locked host memory
   (cudaHostAlloc or cudaHostRegister), asking about both ends: a
   registration may cover only part of a buffer.  A pointer CUDA does not
   know is not an error here, only a "no": older drivers report it as
   cudaErrorInvalidValue, which is cleared so that no later
   cudaGetLastError sees it. */
static int
cuda_is_page_locked_at(const void *ptr)
{
    struct cudaPointerAttributes attributes;
    cudaError_t err = cudaPointerGetAttributes(&attributes, ptr);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return attributes.type == cudaMemoryTypeHost;
}

static int
cuda_is_page_locked(const void *ptr, size_t nbytes)
{
    return cuda_is_page_locked_at(ptr) &&
           cuda_is_page_locked_at((const char *)ptr + nbytes - 1);
}

/* Below STAGING_THRESHOLD, and from or into page-locked memory (which the
   DMA reaches directly, faster than through the ring): the driver's own
   path.  A pageable source is copied out before cudaMemcpyAsync returns and
   a pageable destination is filled by then, but page-locked memory would
   still be in flight, so the stream is waited for either way (what
   cudaMemcpy did on the legacy stream; PyTorch's .item() does the same).
   Runs without the GIL. */
static cudaError_t
cuda_copy_direct(void *dst, const void *src, size_t nbytes, int kind,
                 cudaStream_t stream)
{
    enum cudaMemcpyKind how =
        kind == DA_COPY_H2D ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    cudaError_t err;
    if (stream == (cudaStream_t)0) {
        /* on the legacy stream cudaMemcpy is the same wait in one driver
           call: the 0-d read-back (float(x), item()) keeps the path it
           was measured on before streams */
        return cudaMemcpy(dst, src, nbytes, how);
    }
    err = cudaMemcpyAsync(dst, src, nbytes, how, stream);
    return err == cudaSuccess ? cudaStreamSynchronize(stream) : err;
}

static int
cuda_copy(void *dst, const void *src, size_t nbytes, int kind)
{
    cudaError_t err;
    /* the caller made the device of the memory active; asked with the GIL
       held, the current stream is the calling thread's on that device */
    int device = device_active(DA_BACKEND_CUDA);
    cudaStream_t stream = stream_current_on(device);
    if (kind == DA_COPY_D2D) {
        err = cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice, stream);
        return err == cudaSuccess ? 0 : cuda_error_raise(err, "cudaMemcpyAsync");
    }
    if (stream_check_sync("a copy between the device and host memory") < 0) {
        return -1;
    }
    if (nbytes < STAGING_THRESHOLD ||
        cuda_is_page_locked(kind == DA_COPY_H2D ? src : dst, nbytes)) {
        Py_BEGIN_ALLOW_THREADS
        err = cuda_copy_direct(dst, src, nbytes, kind, stream);
        Py_END_ALLOW_THREADS
        return err == cudaSuccess ? 0 : cuda_error_raise(err, "cudaMemcpyAsync");
    }
    if (staging_init(device) < 0) {
        return -1;
    }
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(staging_lock, WAIT_LOCK);
    err = kind == DA_COPY_H2D ? staged_host_to_device(dst, src, nbytes, device, stream)
                              : staged_device_to_host(dst, src, nbytes, device, stream);
    PyThread_release_lock(staging_lock);
    Py_END_ALLOW_THREADS
    return err == cudaSuccess ? 0 : cuda_error_raise(err, "staged cudaMemcpyAsync");
}

#endif /* DEVARRAY_HAVE_CUDA */

int
transfer_copy(int backend, void *dst, const void *src, size_t nbytes, int kind)
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
transfer_memset_zero(int backend, void *dst, size_t nbytes)
{
    if (nbytes == 0) {
        return 0;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        cudaError_t err = cudaMemsetAsync(dst, 0, nbytes, stream_current());
        return err == cudaSuccess ? 0 : cuda_error_raise(err, "cudaMemsetAsync");
    }
#else
    (void)backend;
#endif
    memset(dst, 0, nbytes);
    return 0;
}

/* ---- page-locked host memory and asynchronous copies ---------------------- */

/* Plain host buffers start on a cache line: enough for every dtype and for
   vector loads. */
#define TRANSFER_HOST_ALIGNMENT ((size_t)64)

int
transfer_copy_async(int backend, void *dst, const void *src, size_t nbytes, int kind)
{
    if (nbytes == 0) {
        return 0;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        cudaError_t err = cudaMemcpyAsync(
                dst, src, nbytes,
                kind == DA_COPY_H2D   ? cudaMemcpyHostToDevice
                : kind == DA_COPY_D2H ? cudaMemcpyDeviceToHost
                                      : cudaMemcpyDeviceToDevice,
                stream_current());
        return err == cudaSuccess ? 0 : cuda_error_raise(err, "cudaMemcpyAsync");
    }
#else
    (void)backend;
    (void)kind;
#endif
    memmove(dst, src, nbytes);
    return 0;
}

int
transfer_is_page_locked(const void *ptr, size_t nbytes)
{
    if (nbytes == 0) {
        return 0;
    }
#ifdef DEVARRAY_HAVE_CUDA
    return device_cuda_available() && cuda_is_page_locked(ptr, nbytes);
#else
    (void)ptr;
    return 0;
#endif
}

void *
transfer_host_alloc(size_t nbytes, int page_locked)
{
    void *ptr = NULL;
    /* one byte for an empty buffer: a valid, distinct address */
    size_t size = nbytes > 0 ? nbytes : 1;
#ifdef DEVARRAY_HAVE_CUDA
    if (page_locked) {
        cudaError_t err;
        /* pinning touches every page: seconds for gigabytes */
        Py_BEGIN_ALLOW_THREADS
        err = cudaHostAlloc(&ptr, size, cudaHostAllocPortable);
        Py_END_ALLOW_THREADS
        if (err == cudaErrorMemoryAllocation) {
            /* not sticky; MemoryError, as the pool says for device memory */
            (void)cudaGetLastError();
            PyErr_Format(PyExc_MemoryError,
                         "could not allocate %zu bytes of page-locked host memory",
                         size);
            return NULL;
        }
        if (err != cudaSuccess) {
            cuda_error_raise(err, "cudaHostAlloc");
            return NULL;
        }
        return ptr;
    }
#else
    (void)page_locked;
#endif
    /* aligned_alloc wants a multiple of the alignment */
    size = (size + TRANSFER_HOST_ALIGNMENT - 1) & ~(size_t)(TRANSFER_HOST_ALIGNMENT - 1);
    ptr = size >= nbytes ? aligned_alloc(TRANSFER_HOST_ALIGNMENT, size) : NULL;
    if (ptr == NULL) {
        PyErr_Format(PyExc_MemoryError, "could not allocate %zu bytes of host memory",
                     nbytes);
    }
    return ptr;
}

int
transfer_host_free(void *ptr, int page_locked)
{
#ifdef DEVARRAY_HAVE_CUDA
    if (page_locked) {
        cudaError_t err;
        /* cudaFreeHost waits for the device: an asynchronous copy from or
           into this memory that is still queued completes first, which is
           what keeps a pinned buffer alive for its copies */
        Py_BEGIN_ALLOW_THREADS
        err = cudaFreeHost(ptr);
        Py_END_ALLOW_THREADS
        /* at exit the runtime may go first, and the memory with it */
        if (err == cudaSuccess || err == cudaErrorCudartUnloading) {
            return 0;
        }
        return cuda_error_raise(err, "cudaFreeHost");
    }
#else
    (void)page_locked;
#endif
    free(ptr);
    return 0;
}
