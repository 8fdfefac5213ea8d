/*
 * da_cuda_fuse (kernels/launch.h): a fused elementwise program (src/api/fuse.c
 * traces it) run by one precompiled interpreter kernel, with no compiler
 * at run time.  src/host/host_fuse.c is its host twin, instruction for
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

#include "reduce.cuh"

namespace da {
namespace {

constexpr int kThreads = 128;
constexpr int kPer = 4;
constexpr int kTile = kThreads * kPer;
constexpr int kWords = 4; /* 32-bit words of the widest value (complex128) */
constexpr int kMaxBlocksPerSM = 16;
/* At most 64 registers a thread, so 8 blocks (1024 threads) fit an SM:
   the big switch would otherwise take 128 for its rarest cases (complex
   math), which then spill a little instead. */
constexpr int kMinBlocks = 8;

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

/* Load the tile's inputs at element `base` and run the program over it:
   the result is then in register f.out_reg.  Not inlined: both kernels
   share one copy of the big switch. */
__device__ __noinline__ void
run_tile(const da_fuse &f, uint32_t *regs, int64_t base)
{
    const int tid = (int)threadIdx.x;

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
}

/* The thread's registers zeroed (the tile's last elements past the end
   are computed too, so they must not read uninitialised memory) and the
   constants loaded, once per thread. */
__device__ __forceinline__ void
load_constants(const da_fuse &f, uint32_t *regs)
{
    for (int w = 0; w < f.nregs * kWords; w++) {
        for (int k = 0; k < kPer; k++) {
            regs[(size_t)w * kTile + (size_t)(k * kThreads) + threadIdx.x] = 0;
        }
    }
    for (int c = 0; c < f.nconsts; c++) {
        for (int k = 0; k < kPer; k++) {
            put(regs, f.const_reg[c], k * kThreads + (int)threadIdx.x, f.consts[c]);
        }
    }
}

__global__ void __launch_bounds__(kThreads, kMinBlocks)
fuse_kernel(const __grid_constant__ da_fuse f)
{
    extern __shared__ uint32_t regs[];
    const int tid = (int)threadIdx.x;
    const int out_size = da_itemsize(f.out_typenum);
    const int out_cls = da_class_of(f.out_typenum);
    int64_t base;

    load_constants(f, regs);
    for (base = (int64_t)blockIdx.x * kTile; base < f.size;
         base += (int64_t)gridDim.x * kTile) {
        run_tile(f, regs, base);
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

/* The element of dtype typenum at p as a da_scalar of class cls, and back. */
__device__ __forceinline__ void
scalar_load(da_scalar *v, const void *p, int typenum, int cls)
{
    switch (cls) {
        case DA_CLASS_BOOL:
            v->b = da_load_bool(p, typenum);
            break;
        case DA_CLASS_SINT:
            v->s = da_load_sint(p, typenum);
            break;
        case DA_CLASS_UINT:
            v->u = da_load_uint(p, typenum);
            break;
        case DA_CLASS_F32:
            v->f32 = da_load_f32(p, typenum);
            break;
        case DA_CLASS_F64:
            v->f64 = da_load_f64(p, typenum);
            break;
        case DA_CLASS_C64:
            v->c64 = da_load_c64(p, typenum);
            break;
        default:
            v->c128 = da_load_c128(p, typenum);
            break;
    }
}

__device__ __forceinline__ void
scalar_store(void *p, int typenum, int cls, const da_scalar &v)
{
    switch (cls) {
        case DA_CLASS_BOOL:
            da_store_bool(p, typenum, v.b);
            break;
        case DA_CLASS_SINT:
            da_store_sint(p, typenum, v.s);
            break;
        case DA_CLASS_UINT:
            da_store_uint(p, typenum, v.u);
            break;
        case DA_CLASS_F32:
            da_store_f32(p, typenum, v.f32);
            break;
        case DA_CLASS_F64:
            da_store_f64(p, typenum, v.f64);
            break;
        case DA_CLASS_C64:
            da_store_c64(p, typenum, v.c64);
            break;
        default:
            da_store_c128(p, typenum, v.c128);
            break;
    }
}

/* ---- full reductions ------------------------------------------------- */

/* The (op, accumulator class) pairs of da_reduce_accumulator, as
   R(OP, CLS, MEMBER): MEMBER is the class's da_scalar member. */
#define FUSE_FOR_EACH_REDUCTION(R)                                             \
    R(DA_REDUCE_SUM, DA_CLASS_SINT, s) R(DA_REDUCE_SUM, DA_CLASS_UINT, u)      \
    R(DA_REDUCE_SUM, DA_CLASS_F32, f32) R(DA_REDUCE_SUM, DA_CLASS_F64, f64)    \
    R(DA_REDUCE_SUM, DA_CLASS_C64, c64) R(DA_REDUCE_SUM, DA_CLASS_C128, c128)  \
    R(DA_REDUCE_PROD, DA_CLASS_SINT, s) R(DA_REDUCE_PROD, DA_CLASS_UINT, u)    \
    R(DA_REDUCE_PROD, DA_CLASS_F32, f32) R(DA_REDUCE_PROD, DA_CLASS_F64, f64)  \
    R(DA_REDUCE_PROD, DA_CLASS_C64, c64) R(DA_REDUCE_PROD, DA_CLASS_C128, c128) \
    R(DA_REDUCE_MAX, DA_CLASS_BOOL, b) R(DA_REDUCE_MAX, DA_CLASS_SINT, s)      \
    R(DA_REDUCE_MAX, DA_CLASS_UINT, u) R(DA_REDUCE_MAX, DA_CLASS_F32, f32)     \
    R(DA_REDUCE_MAX, DA_CLASS_F64, f64) R(DA_REDUCE_MAX, DA_CLASS_C64, c64)    \
    R(DA_REDUCE_MAX, DA_CLASS_C128, c128) R(DA_REDUCE_MIN, DA_CLASS_BOOL, b)   \
    R(DA_REDUCE_MIN, DA_CLASS_SINT, s) R(DA_REDUCE_MIN, DA_CLASS_UINT, u)      \
    R(DA_REDUCE_MIN, DA_CLASS_F32, f32) R(DA_REDUCE_MIN, DA_CLASS_F64, f64)    \
    R(DA_REDUCE_MIN, DA_CLASS_C64, c64) R(DA_REDUCE_MIN, DA_CLASS_C128, c128)

/* key = op * DA_NCLASSES + class.  One kernel serves every pair: the pair
   is decoded where the switch is the same for the whole block, and the
   values travel as da_scalar, so the reduction adds one instantiation of
   the interpreter, not 26. */
__device__ __forceinline__ void
set_identity(int key, da_scalar *acc)
{
#define FUSE_IDENTITY_(OP, CLS, M)                                             \
    case (OP) * DA_NCLASSES + (CLS):                                           \
        acc->M = reduce_op<OP, CLS>::identity();                               \
        break;
    switch (key) {
        FUSE_FOR_EACH_REDUCTION(FUSE_IDENTITY_)
        default:
            break;
    }
#undef FUSE_IDENTITY_
}

/* *acc = combine(*acc, v) by the op of key (reduce.cuh's reduce_op). */
__device__ __forceinline__ void
combine(int key, da_scalar *acc, const da_scalar &v)
{
#define FUSE_COMBINE_(OP, CLS, M)                                              \
    case (OP) * DA_NCLASSES + (CLS):                                           \
        acc->M = reduce_op<OP, CLS>()(acc->M, v.M);                            \
        break;
    switch (key) {
        FUSE_FOR_EACH_REDUCTION(FUSE_COMBINE_)
        default:
            break;
    }
#undef FUSE_COMBINE_
}

/* The reduction of key as reduce_ordered.cuh's combine, and the store of
   its value as dtype typenum. */
struct key_combine {
    int key;

    __device__ __forceinline__ da_scalar
    identity() const
    {
        da_scalar acc;
        set_identity(key, &acc);
        return acc;
    }

    __device__ __forceinline__ da_scalar
    operator()(da_scalar acc, const da_scalar &v) const
    {
        combine(key, &acc, v);
        return acc;
    }
};

struct scalar_store_at {
    void *out;
    int typenum;

    __device__ __forceinline__ void
    operator()(const da_scalar &v) const
    {
        scalar_store(out, typenum, da_class_of(typenum), v);
    }
};

/* The program's results reduced in reduce_ordered.cuh's order (the tiles'
   layout is its layout), each read from out_typenum into the accumulator
   class as reduce.cuh's to_accumulator reads an element; the result is
   stored by `store` (one block), else partials[blockIdx.x] holds the
   block's. */
__global__ void __launch_bounds__(kThreads, kMinBlocks)
fuse_reduce_kernel(const __grid_constant__ da_fuse f, int key, int cls, da_scalar *partials,
                   scalar_store_at store)
{
    static_assert(kThreads == kOrderedThreads && kTile == kOrderedTile,
                  "a fused reduction's tiles are the ordered reduction's");
    extern __shared__ uint32_t regs[];
    const int tid = (int)threadIdx.x;
    const int out_cls = da_class_of(f.out_typenum);
    da_scalar acc[kPer];
    int64_t base;

#pragma unroll
    for (int k = 0; k < kPer; k++) {
        acc[k] = key_combine{key}.identity();
    }
    load_constants(f, regs);
    for (base = (int64_t)blockIdx.x * kTile; base < f.size;
         base += (int64_t)gridDim.x * kTile) {
        run_tile(f, regs, base);
#pragma unroll
        for (int k = 0; k < kPer; k++) {
            const int e = k * kThreads + tid;
            if (base + e < f.size) {
                da_scalar bytes, v;
                store_from(regs, f.out_reg, e, &bytes, f.out_typenum, out_cls);
                scalar_load(&v, &bytes, f.out_typenum, cls);
                combine(key, &acc[k], v);
            }
        }
    }
    ordered_block_result(acc, key_combine{key}, partials, store);
}

#undef FUSE_CASE_
#undef FUSE_WHERE_

}  // namespace
}  // namespace da

namespace da {
namespace {

constexpr size_t kDefaultSharedBytes = 48 * 1024;

bool
valid_program(const da_fuse *f)
{
    return f->nregs >= 1 && f->nregs <= DA_FUSE_MAXREGS && f->ninstrs <= DA_FUSE_MAXINSTRS &&
           f->ninputs <= DA_FUSE_MAXINPUTS && f->nconsts <= DA_FUSE_MAXCONSTS;
}

/* The registers' shared memory and the grid for f; the kernel's limit on
   dynamic shared memory raised where a long program needs more than the
   default 48 KiB (7 registers or more). */
template <typename Kernel>
cudaError_t
plan(Kernel kernel, const da_fuse *f, size_t *smem, unsigned int *blocks)
{
    static int sms = 0;
    int64_t want;
    cudaError_t err;

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
    *smem = (size_t)f->nregs * kWords * kTile * sizeof(uint32_t);
    if (*smem > kDefaultSharedBytes) {
        err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)*smem);
        if (err != cudaSuccess) {
            return err;
        }
    }
    want = (f->size + kTile - 1) / kTile;
    want = want < (int64_t)sms * kMaxBlocksPerSM ? want : (int64_t)sms * kMaxBlocksPerSM;
    *blocks = (unsigned int)(want < 1 ? 1 : want);
    return cudaSuccess;
}

}  // namespace
}  // namespace da

extern "C" cudaError_t
da_cuda_fuse(const da_fuse *f, cudaStream_t stream)
{
    size_t smem;
    unsigned int blocks;
    cudaError_t err;

    if (!da::valid_program(f)) {
        return cudaErrorInvalidValue;
    }
    if (f->size == 0) {
        return cudaSuccess;
    }
    err = da::plan(da::fuse_kernel, f, &smem, &blocks);
    if (err != cudaSuccess) {
        return err;
    }
    da::fuse_kernel<<<blocks, da::kThreads, smem, stream>>>(*f);
    return cudaGetLastError();
}

extern "C" cudaError_t
da_cuda_fuse_reduce(void *temp, size_t *temp_bytes, const da_fuse *f, int op,
                    int acc_typenum, void *out, cudaStream_t stream)
{
    const int cls = da_class_of(acc_typenum);
    const da::key_combine combine = {op * DA_NCLASSES + cls};
    const da::scalar_store_at store = {out, acc_typenum};
    da_scalar *partials = static_cast<da_scalar *>(temp);
    size_t smem;
    unsigned int blocks;
    cudaError_t err;

    if (!da::valid_program(f) || f->size == 0 || op < 0 || op >= DA_NREDUCE ||
        da_reduce_accumulator(op, f->out_typenum) != acc_typenum) {
        return cudaErrorInvalidValue;
    }
    if (temp == nullptr) {
        *temp_bytes = (size_t)da::kOrderedMaxBlocks * sizeof(da_scalar);
        return cudaSuccess;
    }
    err = da::plan(da::fuse_reduce_kernel, f, &smem, &blocks);
    if (err != cudaSuccess) {
        return err;
    }
    /* the ordered reduction's grid, not the elementwise kernel's */
    blocks = (unsigned int)da::ordered_blocks(f->size);
    da::fuse_reduce_kernel<<<blocks, da::kThreads, smem, stream>>>(*f, combine.key, cls,
                                                                   partials, store);
    return da::ordered_finish(partials, blocks, combine, store, stream);
}
