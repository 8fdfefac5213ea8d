// The floor of the peer-copy row of bench/run.py: `bytes` copied from GPU 0
// to GPU 1 by cudaMemcpyPeer in a bare loop, no Python, no allocation in the
// loop.  Peer access is enabled both ways where the GPUs allow it (the
// fastest path the CUDA runtime has); each copy is followed by a
// synchronize of both devices, as the Python rows do, and timed on the
// wall clock.  Prints the median seconds of `reps` copies after one
// warm-up; exit status 1 with a message on any CUDA error.
//
//     nvcc -O2 -o peer_copy bench/peer_copy.cu && ./peer_copy 1073741824 10

#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PEER_COPY_MAX_REPS 1000

static int peer_copy_check(cudaError_t err, const char *what)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "peer_copy: %s: %s\n", what, cudaGetErrorString(err));
        return -1;
    }
    return 0;
}

static double peer_copy_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int peer_copy_enable(int from, int to)
{
    int can = 0;
    if (peer_copy_check(cudaDeviceCanAccessPeer(&can, from, to), "cudaDeviceCanAccessPeer") < 0 ||
        peer_copy_check(cudaSetDevice(from), "cudaSetDevice") < 0) {
        return -1;
    }
    if (!can) {
        return 0;
    }
    cudaError_t err = cudaDeviceEnablePeerAccess(to, 0);
    if (err == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError();  // the runtime keeps that error for cudaGetLastError: clear it
        err = cudaSuccess;
    }
    return peer_copy_check(err, "cudaDeviceEnablePeerAccess");
}

static int peer_copy_sync_both(void)
{
    for (int dev = 0; dev < 2; dev++) {
        if (peer_copy_check(cudaSetDevice(dev), "cudaSetDevice") < 0 ||
            peer_copy_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize") < 0) {
            return -1;
        }
    }
    return 0;
}

static int peer_copy_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int status = 1, count = 0;
    void *src = NULL, *dst = NULL;
    double samples[PEER_COPY_MAX_REPS];
    size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 10) : ((size_t)1 << 30);
    int reps = argc > 2 ? atoi(argv[2]) : 10;

    if (bytes == 0 || reps < 1 || reps > PEER_COPY_MAX_REPS) {
        fprintf(stderr, "usage: peer_copy BYTES [REPS (1..%d)]\n", PEER_COPY_MAX_REPS);
        return 2;
    }
    if (peer_copy_check(cudaGetDeviceCount(&count), "cudaGetDeviceCount") < 0) {
        goto error;
    }
    if (count < 2) {
        fprintf(stderr, "peer_copy: needs 2 GPUs: the CUDA runtime sees %d\n", count);
        goto error;
    }
    if (peer_copy_enable(0, 1) < 0 || peer_copy_enable(1, 0) < 0 ||
        peer_copy_check(cudaSetDevice(0), "cudaSetDevice") < 0 ||
        peer_copy_check(cudaMalloc(&src, bytes), "cudaMalloc on GPU 0") < 0 ||
        peer_copy_check(cudaMemset(src, 1, bytes), "cudaMemset") < 0 ||
        peer_copy_check(cudaSetDevice(1), "cudaSetDevice") < 0 ||
        peer_copy_check(cudaMalloc(&dst, bytes), "cudaMalloc on GPU 1") < 0 ||
        peer_copy_check(cudaMemcpyPeer(dst, 1, src, 0, bytes), "cudaMemcpyPeer") < 0 ||
        peer_copy_sync_both() < 0) {
        goto error;
    }
    for (int i = 0; i < reps; i++) {
        double start = peer_copy_now();
        if (peer_copy_check(cudaMemcpyPeer(dst, 1, src, 0, bytes), "cudaMemcpyPeer") < 0 ||
            peer_copy_sync_both() < 0) {
            goto error;
        }
        samples[i] = peer_copy_now() - start;
    }
    qsort(samples, (size_t)reps, sizeof samples[0], peer_copy_cmp);
    printf("%.9f\n", reps % 2 ? samples[reps / 2]
                               : 0.5 * (samples[reps / 2 - 1] + samples[reps / 2]));
    status = 0;
error:
    if (src != NULL && cudaSetDevice(0) == cudaSuccess) {
        (void)cudaFree(src);
    }
    if (dst != NULL && cudaSetDevice(1) == cudaSuccess) {
        (void)cudaFree(dst);
    }
    return status;
}
