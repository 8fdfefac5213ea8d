/*
 * da_cuda_fuse (kernels/launch.h): a fused elementwise program (src/fuse.c
 * traces it) run by one precompiled interpreter kernel, with no compiler
 * at run time.  src/host_fuse.c is its host twin, instruction for
 * instruction.
 *
 * The plan (docs/fusion.md says why):
 *   - a block works on tiles of kTile elements, kPer per thread (element
 *     e = k * kThreads + threadIdx.x of the tile, so every global load and
 *     store of a warp is coalesced);
 *   - registers live in shared memory, a column of kTile elements per
 *     32-bit word of the value (a float32 register touches one word, a
 *     complex128 four), and each thread only ever touches its own elements:
 *     no barrier anywhere;
 *   - each instruction is decoded once per tile, by a switch that is the
 *     same in every thread (no divergence), and applied to the thread's
 *     kPer elements by the op table's element function (optable.h): the
 *     unfused kernels' own, and like them compiled with --fmad=false
 *     (setup.py), so every value is the unfused chain's, bit for bit;
 *   - inputs load and the output stores through dtypes.h's da_load_<class>
 *     and da_store_<class>, the unfused kernels' casts.
 */
#include <stdint.h>
#include <string.h>

#include <cuda_runtime.h>

#include "launch.h"

namespace da {
namespace {

constexpr int kThreads = 128;
constexpr int kPer = 4;
constexpr int kTile = kThreads * kPer;
constexpr int kWords = 4; /* 32-bit words of the widest value (complex128) */
constexpr int kMaxBlocksPerSM = 16;

/* Word j of register r's element e. */
__device__ __forceinline__ uint32_t *
word(uint32_t *regs, int r, int j, int e)
{
    return regs + ((size_t)(r * kWords + j) * kTile + (size_t)e);
}

template <typename T>
__device__ __forceinline__ T
get(uint32_t *regs, int r, int e)
{
    constexpr int kN = (int)((sizeof(T) + 3) / 4);
    uint32_t w[kN];
    T v;
#pragma unroll
    for (int j = 0; j < kN; j++) {
        w[j] = *word(regs, r, j, e);
    }
    memcpy(&v, w, sizeof(T));
    return v;
}

template <typename T>
__device__ __forceinline__ void
put(uint32_t *regs, int r, int e, T v)
{
    constexpr int kN = (int)((sizeof(T) + 3) / 4);
    uint32_t w[kN] = {0};
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int j = 0; j < kN; j++) {
        *word(regs, r, j, e) = w[j];
    }
}

/* Load the element of dtype typenum at p into register r as class cls. */
__device__ __forceinline__ void
load_to(uint32_t *regs, int r, int e, const void *p, int typenum, int cls)
{
    switch (cls) {
        case DA_CLASS_BOOL:
            put(regs, r, e, da_load_bool(p, typenum));
            break;
        case DA_CLASS_SINT:
            put(regs, r, e, da_load_sint(p, typenum));
            break;
        case DA_CLASS_UINT:
            put(regs, r, e, da_load_uint(p, typenum));
            break;
        case DA_CLASS_F32:
            put(regs, r, e, da_load_f32(p, typenum));
            break;
        case DA_CLASS_F64:
            put(regs, r, e, da_load_f64(p, typenum));
            break;
        case DA_CLASS_C64:
            put(regs, r, e, da_load_c64(p, typenum));
            break;
        default:
            put(regs, r, e, da_load_c128(p, typenum));
            break;
    }
}

/* Store register r (class cls) as dtype typenum at p. */
__device__ __forceinline__ void
store_from(uint32_t *regs, int r, int e, void *p, int typenum, int cls)
{
    switch (cls) {
        case DA_CLASS_BOOL:
            da_store_bool(p, typenum, get<uint8_t>(regs, r, e));
            break;
        case DA_CLASS_SINT:
            da_store_sint(p, typenum, get<int64_t>(regs, r, e));
            break;
        case DA_CLASS_UINT:
            da_store_uint(p, typenum, get<uint64_t>(regs, r, e));
            break;
        case DA_CLASS_F32:
            da_store_f32(p, typenum, get<float>(regs, r, e));
            break;
        case DA_CLASS_F64:
            da_store_f64(p, typenum, get<double>(regs, r, e));
            break;
        case DA_CLASS_C64:
            da_store_c64(p, typenum, get<da_c64>(regs, r, e));
            break;
        default:
            da_store_c128(p, typenum, get<da_c128>(regs, r, e));
            break;
    }
}

#define FUSE_CASE_(OP, CLS, CNAME, RESULT, RNAME, FN, EXPR)                    \
    case (OP) * DA_NCLASSES + (CLS):                                           \
        _Pragma("unroll") for (int k = 0; k < kPer; k++) {                     \
            const int e = k * kThreads + (int)threadIdx.x;                     \
            const DA_CTYPE(CNAME) a = get<DA_CTYPE(CNAME)>(regs, ins.in[0], e); \
            const DA_CTYPE(CNAME) b =                                          \
                da_op_nin(OP) == 2 ? get<DA_CTYPE(CNAME)>(regs, ins.in[1], e) : a; \
            put<DA_CTYPE(RNAME)>(regs, ins.out, e, FN(a, b));                  \
        }                                                                      \
        break;

#define FUSE_WHERE_(CLS, cname, unused)                                        \
    case DA_FUSE_WHERE + (CLS):                                                \
        _Pragma("unroll") for (int k = 0; k < kPer; k++) {                     \
            const int e = k * kThreads + (int)threadIdx.x;                     \
            put<DA_CTYPE(cname)>(regs, ins.out, e,                             \
                                 get<uint8_t>(regs, ins.in[0], e)              \
                                     ? get<DA_CTYPE(cname)>(regs, ins.in[1], e) \
                                     : get<DA_CTYPE(cname)>(regs, ins.in[2], e)); \
        }                                                                      \
        break;

__global__ void __launch_bounds__(kThreads)
fuse_kernel(const __grid_constant__ da_fuse f)
{
    extern __shared__ uint32_t regs[];
    const int tid = (int)threadIdx.x;
    const int out_size = da_itemsize(f.out_typenum);
    const int out_cls = da_class_of(f.out_typenum);
    int64_t base;

    for (int c = 0; c < f.nconsts; c++) {
        for (int k = 0; k < kPer; k++) {
            put(regs, f.const_reg[c], k * kThreads + tid, f.consts[c]);
        }
    }
    for (base = (int64_t)blockIdx.x * kTile; base < f.size;
         base += (int64_t)gridDim.x * kTile) {
        for (int j = 0; j < f.ninputs; j++) {
            const int typenum = f.in_typenum[j];
            const int size = da_itemsize(typenum);
            const int cls = da_class_of(typenum);
#pragma unroll
            for (int k = 0; k < kPer; k++) {
                const int e = k * kThreads + tid;
                const int64_t i = f.in_bcast[j] ? 0 : base + e;
                if (base + e < f.size) {
                    load_to(regs, f.in_reg[j], e, f.in[j] + i * size, typenum, cls);
                }
            }
        }
        for (int t = 0; t < f.ninstrs; t++) {
            const da_fuse_instr ins = f.instrs[t];
            switch (ins.code) {
                DA_FOR_EACH_KERNEL(FUSE_CASE_)
                DA_CLASSES_ALL(FUSE_WHERE_, 0)
                case DA_FUSE_CONV:
                    for (int k = 0; k < kPer; k++) {
                        const int e = k * kThreads + tid;
                        da_scalar bytes;
                        store_from(regs, ins.in[0], e, &bytes, ins.typenum, ins.from);
                        load_to(regs, ins.out, e, &bytes, ins.typenum, ins.to);
                    }
                    break;
                default:
                    break;
            }
        }
#pragma unroll
        for (int k = 0; k < kPer; k++) {
            const int e = k * kThreads + tid;
            if (base + e < f.size) {
                store_from(regs, f.out_reg, e, f.out + (base + e) * out_size, f.out_typenum,
                           out_cls);
            }
        }
    }
}

#undef FUSE_CASE_
#undef FUSE_WHERE_

}  // namespace
}  // namespace da

extern "C" cudaError_t
da_cuda_fuse(const da_fuse *f, cudaStream_t stream)
{
    static int sms = 0;
    static int smem_raised = 0;
    const size_t smem = (size_t)f->nregs * da::kWords * da::kTile * sizeof(uint32_t);
    int64_t want;
    unsigned int blocks;
    cudaError_t err;

    if (f->nregs < 1 || f->nregs > DA_FUSE_MAXREGS || f->ninstrs > DA_FUSE_MAXINSTRS ||
        f->ninputs > DA_FUSE_MAXINPUTS || f->nconsts > DA_FUSE_MAXCONSTS) {
        return cudaErrorInvalidValue;
    }
    if (f->size == 0) {
        return cudaSuccess;
    }
    if (sms == 0) {
        int device;
        err = cudaGetDevice(&device);
        if (err == cudaSuccess) {
            err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        }
        if (err != cudaSuccess) {
            return err;
        }
    }
    /* the largest program's registers need more than the default 48 KiB */
    if (!smem_raised) {
        err = cudaFuncSetAttribute(da::fuse_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)((size_t)DA_FUSE_MAXREGS * da::kWords * da::kTile *
                                         sizeof(uint32_t)));
        if (err != cudaSuccess) {
            return err;
        }
        smem_raised = 1;
    }
    want = (f->size + da::kTile - 1) / da::kTile;
    if (want > (int64_t)sms * da::kMaxBlocksPerSM) {
        want = (int64_t)sms * da::kMaxBlocksPerSM;
    }
    blocks = (unsigned int)want;
    da::fuse_kernel<<<blocks, da::kThreads, smem, stream>>>(*f);
    return cudaGetLastError();
}
