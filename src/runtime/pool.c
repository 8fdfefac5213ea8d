/*
 * Memory for arrays: see pool.h.
 *
 * Ownership: a block from pool_malloc belongs to the caller until it hands
 * it to pool_free (or pool_free_array) with the same backend and size.  This
 * file owns the small-block slabs (returned only by pool_release), their free
 * lists, the frees deferred to the end of a graph capture, and each place's
 * usage counts; all are global, like the device they live on, and touched
 * with the GIL held.
 *
 * Streams: a block is allocated on the current stream and freed on the
 * current stream of whoever frees it, after stream_order_free has made that
 * stream wait for every other stream that may have used the block; the
 * stream-ordered pool then reuses it only after the free.
 */
#include "runtime/pool.h"

#include "base/cuda_error.h"
#include "runtime/device.h"
#include "runtime/stream.h"

#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

/* Zero-byte allocations return this address, never dereferenced. */
static _Alignas(64) char zero_size_block[64];

#define HOST_ALIGNMENT 64

/* Large host blocks are aligned to 2 MiB and offered to the kernel as huge
   pages (as NumPy does from 4 MiB): a fresh 64 MiB result then takes 32 page
   faults instead of 16384, which otherwise cost more than the arithmetic. */
#define HOST_HUGE_THRESHOLD ((size_t)4 << 20)
#define HOST_HUGE_ALIGNMENT ((size_t)2 << 20)

/* Each CUDA device's usage, then the host's. */
#define HOST_USAGE DA_DEVICE_MAX
static pool_usage usages[DA_DEVICE_MAX + 1];

static pool_usage *
usage_slot(int backend, int device)
{
    return &usages[backend == DA_BACKEND_CUDA ? device : HOST_USAGE];
}

#ifdef DEVARRAY_HAVE_CUDA

static void *
cuda_malloc(size_t nbytes)
{
    void *ptr = NULL;
    size_t free_bytes = 0, total_bytes = 0;
    cudaStream_t stream = stream_current();
    cudaError_t err = cudaMallocAsync(&ptr, nbytes, stream);

    if (err == cudaErrorMemoryAllocation) {
        /* Blocks freed on the streams may still be pending and the pool may
           hold memory another allocation size could use: wait, trim, retry
           once (not inside a graph capture, which cannot wait). */
        (void)cudaGetLastError();
        if (stream_check_sync("allocating device memory") < 0) {
            PyErr_Clear();
            err = cudaErrorMemoryAllocation;
            goto out_of_memory;
        }
        Py_BEGIN_ALLOW_THREADS
        err = cudaDeviceSynchronize();
        Py_END_ALLOW_THREADS
        if (err != cudaSuccess) {
            cuda_error_raise(err, "cudaDeviceSynchronize");
            return NULL;
        }
        err = cudaMemPoolTrimTo(device_cuda_pool(device_active(DA_BACKEND_CUDA)), 0);
        if (err != cudaSuccess) {
            cuda_error_raise(err, "cudaMemPoolTrimTo");
            return NULL;
        }
        err = cudaMallocAsync(&ptr, nbytes, stream);
out_of_memory:
        if (err == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();
            (void)cudaMemGetInfo(&free_bytes, &total_bytes);
            (void)cudaGetLastError();
            PyErr_Format(PyExc_MemoryError,
                         "out of device memory: could not allocate %zu bytes "
                         "on CUDA device %d (%zu bytes free of %zu)",
                         nbytes, device_active(DA_BACKEND_CUDA), free_bytes,
                         total_bytes);
            return NULL;
        }
    }
    if (err != cudaSuccess) {
        cuda_error_raise(err, "cudaMallocAsync");
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
 * free list is cheaper than cudaMallocAsync.
 *
 * Every device has slabs of its own.  Free blocks sit on the list of a
 * stream: a device's legacy default stream's, or one per devarray.Stream
 * that has used small blocks (a stream belongs to one device, so its list
 * holds that device's blocks).  A block goes on the list of the stream that
 * frees it, on the block's device, after stream_order_free has made that
 * stream wait for every other stream that may have used it, and is handed
 * out again only for work on that stream, so it is written only after the
 * last reads of the array that freed it.  A fresh slab's blocks go to the
 * list of the stream that asked (unused memory is safe on any stream).  A
 * stream being destroyed hands its blocks to its device's legacy list,
 * which first waits for it (pool_forget_stream).  The per-thread default
 * stream, external streams (devarray cannot see them end) and streams under
 * graph capture take pool memory instead.  Slabs are never returned; the
 * lists live under the GIL.
 */
#define SMALL_BLOCK_BYTES ((size_t)4096)
#define SMALL_SLAB_BYTES ((size_t)2 << 20)
#define SMALL_BLOCKS_PER_SLAB (SMALL_SLAB_BYTES / SMALL_BLOCK_BYTES)
/* 8 GiB of small arrays at most, over all devices; past that the pool
   serves them */
#define SMALL_MAX_SLABS 4096
/* devarray.Streams with a list of their own; more take pool memory */
#define SMALL_MAX_LISTS 64

typedef struct {
    cudaStream_t stream;
    int device;
    char **blocks;
    size_t n, cap;
} small_list;

typedef struct {
    char *base;
    int device;
} small_slab;

static small_slab small_slabs[SMALL_MAX_SLABS];
static int small_nslabs = 0;
/* each device's legacy stream's list (its device set by pool_init), with
   room for every block of its slabs; slabs per device */
static small_list small_legacy[DA_DEVICE_MAX];
static int small_device_slabs[DA_DEVICE_MAX];
/* the devarray.Streams' lists, of any device */
static small_list small_lists[SMALL_MAX_LISTS];
static int small_nlists = 0;

/* The list of the calling thread's current stream, on the active device,
   made if needed; NULL when that stream takes no small blocks (or no list
   could be made). */
static small_list *
small_current_list(void)
{
    stream_entry *entry = stream_current_entry();
    int device = device_active(DA_BACKEND_CUDA);
    int i;
    if (entry->handle == (cudaStream_t)0) {
        return &small_legacy[device];
    }
    if (!entry->owned || entry->capturing) {
        return NULL;
    }
    for (i = 0; i < small_nlists; i++) {
        if (small_lists[i].stream == entry->handle) {
            return &small_lists[i];
        }
    }
    if (small_nlists == SMALL_MAX_LISTS) {
        return NULL;
    }
    small_lists[small_nlists] = (small_list){entry->handle, device, NULL, 0, 0};
    return &small_lists[small_nlists++];
}

/* Room for `cap` blocks on `list`; 0, or -1 (no exception). */
static int
small_reserve(small_list *list, size_t cap)
{
    char **grown;
    if (cap <= list->cap) {
        return 0;
    }
    grown = PyMem_RawRealloc(list->blocks, sizeof(char *) * cap);
    if (grown == NULL) {
        return -1;
    }
    list->blocks = grown;
    list->cap = cap;
    return 0;
}

/* A small block for work on `list`'s stream (on the active device, the
   list's), or NULL: with an exception on failure, without one when the
   caller should use the pool instead (no slab could be had). */
static void *
small_malloc(small_list *list)
{
    int device = list->device;
    if (list->n == 0) {
        char *slab = NULL;
        size_t k;
        cudaError_t err;
        if (small_nslabs == SMALL_MAX_SLABS) {
            return NULL;
        }
        /* the device's legacy list can hold every block of its slabs,
           whichever list has them */
        if (small_reserve(&small_legacy[device],
                          SMALL_BLOCKS_PER_SLAB *
                              (size_t)(small_device_slabs[device] + 1)) < 0 ||
            small_reserve(list, list->n + SMALL_BLOCKS_PER_SLAB) < 0) {
            PyErr_NoMemory();
            return NULL;
        }
        err = cudaMalloc((void **)&slab, SMALL_SLAB_BYTES);
        if (err == cudaErrorMemoryAllocation) {
            /* the pool may hold what is missing: it trims and retries */
            (void)cudaGetLastError();
            return NULL;
        }
        if (err != cudaSuccess) {
            cuda_error_raise(err, "cudaMalloc");
            return NULL;
        }
        small_slabs[small_nslabs++] = (small_slab){slab, device};
        small_device_slabs[device]++;
        for (k = SMALL_BLOCKS_PER_SLAB; k > 0; k--) {
            list->blocks[list->n++] = slab + (k - 1) * SMALL_BLOCK_BYTES;
        }
    }
    return list->blocks[--list->n];
}

static int
small_is_block(const void *ptr)
{
    int i;
    for (i = 0; i < small_nslabs; i++) {
        if ((const char *)ptr >= small_slabs[i].base &&
            (const char *)ptr < small_slabs[i].base + SMALL_SLAB_BYTES) {
            return 1;
        }
    }
    return 0;
}

/* Put `ptr`, born at `birth` on the active device (the block's), on the
   current stream's list (the device's legacy one when that has none or
   cannot grow), after ordering that stream after the others that may have
   used it. */
static void
small_put_back(void *ptr, uint64_t birth)
{
    int device = device_active(DA_BACKEND_CUDA);
    small_list *list = small_current_list();
    if (list == NULL ||
        (list->n == list->cap && small_reserve(list, 2 * list->cap + 64) < 0)) {
        list = &small_legacy[device];
    }
    if (stream_order_free(list->stream, birth) != cudaSuccess) {
        (void)cudaGetLastError();
    }
    list->blocks[list->n++] = ptr;
}

void
pool_forget_stream(cudaStream_t stream)
{
    int i, previous;
    for (i = 0; i < small_nlists; i++) {
        small_list *list = &small_lists[i];
        small_list *legacy = &small_legacy[list->device];
        if (list->stream != stream) {
            continue;
        }
        /* the device's legacy stream waits for the stream's work on the
           blocks; if it cannot, the blocks are leaked rather than reused
           too early */
        previous = device_enter_quiet(DA_BACKEND_CUDA, list->device);
        if (list->n > 0 && stream_wait((cudaStream_t)0, stream) == 0) {
            memcpy(legacy->blocks + legacy->n, list->blocks,
                   list->n * sizeof(char *));
            legacy->n += list->n;
        }
        PyErr_Clear();
        device_restore(DA_BACKEND_CUDA, previous);
        PyMem_RawFree(list->blocks);
        *list = small_lists[--small_nlists];
        return;
    }
}

#endif /* DEVARRAY_HAVE_CUDA */

/* MemoryError when `nbytes` more would take `usage` past its limit. */
static int
usage_check_limit(const pool_usage *usage, int backend, size_t nbytes)
{
    char place[32];
    if ((uint64_t)nbytes <= usage->limit &&
        usage->in_use <= usage->limit - (uint64_t)nbytes) {
        return 0;
    }
    if (backend == DA_BACKEND_CUDA) {
        PyOS_snprintf(place, sizeof(place), "CUDA device %d",
                      device_active(DA_BACKEND_CUDA));
    }
    else {
        PyOS_snprintf(place, sizeof(place), "the host");
    }
    PyErr_Format(PyExc_MemoryError,
                 "could not allocate %zu bytes on %s: its memory limit is "
                 "%llu bytes (devarray.set_memory_limit), %llu of them in use",
                 nbytes, place, (unsigned long long)usage->limit,
                 (unsigned long long)usage->in_use);
    return -1;
}

static void *
host_malloc(size_t nbytes)
{
    size_t alignment =
        nbytes >= HOST_HUGE_THRESHOLD ? HOST_HUGE_ALIGNMENT : HOST_ALIGNMENT;
    void *ptr;
    /* aligned_alloc wants a multiple of the alignment */
    if (nbytes > SIZE_MAX - alignment) {
        return PyErr_NoMemory();
    }
    ptr = aligned_alloc(alignment, (nbytes + alignment - 1) / alignment * alignment);
    if (ptr == NULL) {
        PyErr_Format(PyExc_MemoryError,
                     "out of host memory: could not allocate %zu bytes", nbytes);
        return NULL;
    }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (alignment == HOST_HUGE_ALIGNMENT) {
        /* advice only: failure just means ordinary pages */
        (void)madvise(ptr, (nbytes + alignment - 1) / alignment * alignment,
                      MADV_HUGEPAGE);
    }
#endif
    return ptr;
}

void *
pool_malloc(int backend, size_t nbytes)
{
    pool_usage *usage;
    void *ptr = NULL;

    if (nbytes == 0) {
        return zero_size_block;
    }
    usage = usage_slot(backend, device_active(backend));
    if (usage_check_limit(usage, backend, nbytes) < 0) {
        return NULL;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        small_list *list = nbytes <= SMALL_BLOCK_BYTES ? small_current_list() : NULL;
        if (list != NULL) {
            ptr = small_malloc(list);
            if (ptr == NULL && PyErr_Occurred()) {
                return NULL;
            }
        }
        if (ptr == NULL && (ptr = cuda_malloc(nbytes)) == NULL) {
            return NULL;
        }
    }
    else
#endif
    if ((ptr = host_malloc(nbytes)) == NULL) {
        return NULL;
    }
    usage->in_use += nbytes;
    if (usage->in_use > usage->peak) {
        usage->peak = usage->in_use;
    }
    return ptr;
}

#ifdef DEVARRAY_HAVE_CUDA
/* Frees of memory born before the graph capture under way on this thread:
   the captured work may read it, and the capture cannot wait for other
   streams, so they run when the capture ends. */
typedef struct {
    void *ptr;
    size_t nbytes;
    uint64_t birth;
    int device;
} pool_deferred_free;
static pool_deferred_free *pool_deferred = NULL;
static size_t pool_ndeferred = 0, pool_deferred_cap = 0;

/* Freeing cannot report an error to anyone; a failure here means the
   context is already broken, and the next call that can raise will say
   so. */
static void
pool_cuda_free(void *ptr, size_t nbytes, uint64_t birth, int device)
{
    /* on the block's device and its current stream there, whatever this
       thread is running now (a deallocation can happen in any op) */
    int previous = device_enter_quiet(DA_BACKEND_CUDA, device);

    if (small_is_block(ptr)) {
        small_put_back(ptr, birth);
    }
    else {
        cudaStream_t stream = stream_current();
        if (stream_order_free(stream, birth) != cudaSuccess ||
            cudaFreeAsync(ptr, stream) != cudaSuccess) {
            (void)cudaGetLastError();
        }
    }
    usages[device].in_use -= nbytes;
    device_restore(DA_BACKEND_CUDA, previous);
}

void
pool_release_deferred(void)
{
    while (pool_ndeferred > 0) {
        pool_ndeferred--;
        const pool_deferred_free *deferred = &pool_deferred[pool_ndeferred];
        pool_cuda_free(deferred->ptr, deferred->nbytes, deferred->birth,
                       deferred->device);
    }
}
#else
void
pool_release_deferred(void)
{
}
#endif

void
pool_free_array(int backend, int device, void *ptr, size_t nbytes, uint64_t birth)
{
    if (ptr == NULL || ptr == (void *)zero_size_block) {
        return;
    }
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        if (stream_free_deferred(birth)) {
            if (pool_ndeferred == pool_deferred_cap) {
                size_t cap = pool_deferred_cap ? 2 * pool_deferred_cap : 64;
                pool_deferred_free *grown =
                    PyMem_RawRealloc(pool_deferred, cap * sizeof(*grown));
                if (grown == NULL) {
                    /* leaking is safe; freeing now is not */
                    return;
                }
                pool_deferred = grown;
                pool_deferred_cap = cap;
            }
            pool_deferred[pool_ndeferred++] =
                (pool_deferred_free){ptr, nbytes, birth, device};
            return;
        }
        pool_cuda_free(ptr, nbytes, birth, device);
        return;
    }
#else
    (void)backend;
    (void)birth;
#endif
    (void)device;
    usages[HOST_USAGE].in_use -= nbytes;
    free(ptr);
}

void
pool_free(int backend, void *ptr, size_t nbytes)
{
    if (ptr == NULL || ptr == (void *)zero_size_block) {
        return;
    }
    usage_slot(backend, device_active(backend))->in_use -= nbytes;
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        /* a temporary, used only on the current stream */
        if (small_is_block(ptr)) {
            small_put_back(ptr, stream_clock() + 1);
        }
        else if (cudaFreeAsync(ptr, stream_current()) != cudaSuccess) {
            (void)cudaGetLastError();
        }
        return;
    }
#else
    (void)backend;
#endif
    free(ptr);
}

/* ---- usage: what devarray.memory_stats and friends see ------------------- */

#ifdef DEVARRAY_HAVE_CUDA
static int
small_compare_bases(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    return (x > y) - (x < y);
}

/* The index in sorted `bases[0..n)` of the slab holding `block`. */
static size_t
small_slab_of(char *const *bases, size_t n, const char *block)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (bases[mid] <= block) {
            lo = mid;
        }
        else {
            hi = mid;
        }
    }
    return lo;
}

/* Drop from the lists of `device` the blocks of the slabs all of whose
   blocks are free (free_blocks, per slab of sorted `bases[0..n)`). */
static void
small_drop_blocks(int device, char *const *bases, size_t n, const size_t *free_blocks)
{
    int i;
    for (i = -1; i < small_nlists; i++) {
        small_list *list = i < 0 ? &small_legacy[device] : &small_lists[i];
        size_t k, kept = 0;
        if (list->device != device) {
            continue;
        }
        for (k = 0; k < list->n; k++) {
            if (free_blocks[small_slab_of(bases, n, list->blocks[k])] !=
                SMALL_BLOCKS_PER_SLAB) {
                list->blocks[kept++] = list->blocks[k];
            }
        }
        list->n = kept;
    }
}

/* cudaFree the slabs of `device` (idle) whose every block is free.  0, or -1
   with an exception. */
static int
small_release_slabs(int device)
{
    size_t n = 0, k;
    char **bases = NULL;
    size_t *free_blocks = NULL;
    int i, result = -1;

    if (small_device_slabs[device] == 0) {
        return 0;
    }
    bases = PyMem_RawMalloc(sizeof(char *) * (size_t)small_device_slabs[device]);
    free_blocks = PyMem_RawCalloc((size_t)small_device_slabs[device], sizeof(size_t));
    if (bases == NULL || free_blocks == NULL) {
        PyErr_NoMemory();
        goto error;
    }
    for (i = 0; i < small_nslabs; i++) {
        if (small_slabs[i].device == device) {
            bases[n++] = small_slabs[i].base;
        }
    }
    qsort(bases, n, sizeof(char *), small_compare_bases);
    for (i = -1; i < small_nlists; i++) {
        const small_list *list = i < 0 ? &small_legacy[device] : &small_lists[i];
        if (list->device == device) {
            for (k = 0; k < list->n; k++) {
                free_blocks[small_slab_of(bases, n, list->blocks[k])]++;
            }
        }
    }
    /* off the lists first: a slab that then fails to free is leaked, never
       handed out twice */
    small_drop_blocks(device, bases, n, free_blocks);
    for (i = small_nslabs - 1; i >= 0; i--) {
        small_slab slab = small_slabs[i];
        if (slab.device != device ||
            free_blocks[small_slab_of(bases, n, slab.base)] != SMALL_BLOCKS_PER_SLAB) {
            continue;
        }
        small_slabs[i] = small_slabs[--small_nslabs];
        small_device_slabs[device]--;
        CUDA_ERROR_CHECK(cudaFree(slab.base));
    }
    result = 0;
error:
    PyMem_RawFree(bases);
    PyMem_RawFree(free_blocks);
    return result;
}
#endif /* DEVARRAY_HAVE_CUDA */

int
pool_usage_of(int backend, int device, pool_usage *usage)
{
    *usage = *usage_slot(backend, device);
    usage->held = usage->in_use;
#ifdef DEVARRAY_HAVE_CUDA
    if (backend == DA_BACKEND_CUDA) {
        uint64_t reserved = 0;
        cudaMemPool_t cuda_pool = device_cuda_pool(device); /* so named in the
                                                               CUDAError message */
        CUDA_ERROR_CHECK(cudaMemPoolGetAttribute(cuda_pool,
                                                 cudaMemPoolAttrReservedMemCurrent,
                                                 &reserved));
        usage->held = reserved + (uint64_t)small_device_slabs[device] * SMALL_SLAB_BYTES;
    }
#endif
    return 0;
#ifdef DEVARRAY_HAVE_CUDA
error:
    return -1;
#endif
}

void
pool_reset_peak(int backend, int device)
{
    pool_usage *usage = usage_slot(backend, device);
    usage->peak = usage->in_use;
}

void
pool_set_limit(int backend, int device, uint64_t limit)
{
    usage_slot(backend, device)->limit = limit;
}

int
pool_release(int backend, int device)
{
#ifdef DEVARRAY_HAVE_CUDA
    cudaError_t err;
    if (backend != DA_BACKEND_CUDA) {
        return 0;
    }
    if (stream_check_sync("releasing cached memory") < 0 ||
        device_activate(DA_BACKEND_CUDA, device) < 0) {
        return -1;
    }
    /* blocks freed in stream order return to the pool, and small blocks are
       unused, only once the device has finished its work */
    Py_BEGIN_ALLOW_THREADS
    err = cudaDeviceSynchronize();
    Py_END_ALLOW_THREADS
    if (err != cudaSuccess) {
        return cuda_error_raise(err, "cudaDeviceSynchronize");
    }
    err = cudaMemPoolTrimTo(device_cuda_pool(device), 0);
    if (err != cudaSuccess) {
        return cuda_error_raise(err, "cudaMemPoolTrimTo");
    }
    return small_release_slabs(device);
#else
    (void)backend;
    (void)device;
    return 0;
#endif
}

void
pool_init(void)
{
    int place;
    for (place = 0; place <= DA_DEVICE_MAX; place++) {
        usages[place].limit = UINT64_MAX;
    }
#ifdef DEVARRAY_HAVE_CUDA
    for (place = 0; place < DA_DEVICE_MAX; place++) {
        small_legacy[place].device = place;
    }
#endif
}
