/*
 * Internal to kernels/: casts between contiguous arrays, staged through
 * shared memory a tile at a time (the COPY strided kernel's route for
 * them, kernels/elementwise.cuh).  Included by elementwise.cuh after its
 * load_element and store_element, which the conversions share.
 */
#ifndef DEVARRAY_KERNELS_CAST_CUH_
#define DEVARRAY_KERNELS_CAST_CUH_

#include <stdint.h>

#include "dispatch.cuh"

namespace da {

/* Bytes of input each pass of a contiguous cast stages in shared memory:
   four 16-byte loads per thread, all in flight before the first
   conversion. */
constexpr int kCastTileBytes = 16384;
constexpr int kCastLoads = kCastTileBytes / 16 / kBlockThreads;

/* Whether e is a cast whose operands are both contiguous: COPY of an array
   of another dtype (move() in elementwise.cu has the same-dtype copies),
   ndim <= 1 at unit strides, in one chunk of 32-bit indices. */
static __host__ __device__ inline bool
is_contiguous_cast(const da_elementwise *e)
{
    return e->in[0].data != nullptr && e->in[0].typenum != e->out.typenum &&
           e->size <= kChunkElements &&
           (e->ndim == 0 ||
            (e->ndim == 1 && e->out.strides[0] == da_itemsize(e->out.typenum) &&
             e->in[0].strides[0] == da_itemsize(e->in[0].typenum)));
}

/* load_staged's In for any input dtype (through load_element) and for the
   1-byte ones (bool, int8, uint8). */
constexpr int kAnyInput = -1;
constexpr int kNarrowInput = -2;

/* The output dtypes whose stores a class's cast compiles inline, up to two
   (-1: none): the dtypes its common casts make (none for bool and the
   unsigned integers: the wheel's size limit).  Others go through
   store_element. */
static __host__ __device__ constexpr int
cast_inline_output(int cls, int k)
{
    return cls == DA_CLASS_SINT   ? (k == 0 ? (int)DA_INT32 : (int)DA_INT64)
           : cls == DA_CLASS_F32  ? (k == 0 ? (int)DA_FLOAT32 : (int)DA_FLOAT16)
           : cls == DA_CLASS_F64  ? (k == 0 ? (int)DA_FLOAT64 : -1)
           : cls == DA_CLASS_C64  ? (k == 0 ? (int)DA_COMPLEX64 : -1)
           : cls == DA_CLASS_C128 ? (k == 0 ? (int)DA_COMPLEX128 : -1)
                                  : -1;
}

/* The input dtype whose loads a class's cast compiles inline (-1: none):
   float32 for F32, the source of float32 -> float16, the narrowing cast
   that moves the fewest bytes per element (PyTorch runs it at copy
   bandwidth; through load_element it took 1.5x PyTorch's time). */
static __host__ __device__ constexpr int
cast_inline_input(int cls)
{
    return cls == DA_CLASS_F32 ? (int)DA_FLOAT32 : -1;
}

/* The staged element at p converted to the class: inline for In >= 0 (the
   input's dtype) and for 1-byte inputs (bool, int8, uint8: the three cases
   of a switch, each folded to a few instructions), else by load_element's
   call.  A call per element left int8 -> float32 at 81% of the copy rate
   (390 us for 2^28 on an H200, a scratch timing), inline 90% (351 us);
   inlining every input dtype measured no faster for wider ones and doubles
   a kernel's code. */
template <int Cls, int In>
static __device__ __forceinline__ typename class_traits<Cls>::type
load_staged(const char *p, int in_typenum)
{
    if constexpr (In >= 0) {
        return class_traits<Cls>::load(p, In);
    }
    else if constexpr (In == kNarrowInput) {
        return in_typenum == DA_BOOL   ? class_traits<Cls>::load(p, DA_BOOL)
               : in_typenum == DA_INT8 ? class_traits<Cls>::load(p, DA_INT8)
                                       : class_traits<Cls>::load(p, DA_UINT8);
    }
    else {
        return load_element<Cls>(p, in_typenum);
    }
}

/* The itemsize of load_staged's inline inputs In. */
template <int In>
static __device__ constexpr uint32_t
inline_input_size()
{
    if constexpr (In >= 0) {
        return sizeof(typename dtype_traits<In>::storage);
    }
    else {
        return 1;
    }
}

/* out[j] = the staged element j converted, j < count: loaded by
   load_staged<Cls, In>; stored inline when Out >= 0 (the output's dtype),
   a thread's 16 / sizeof(Out) consecutive elements as one 16-byte store
   when out is 16-byte aligned, else element by element through
   store_element.  A 4-byte store a thread left the casts to float32 at
   64-85% of the copy rate; whole vectors took them to 90-97% (bench/ on an
   H200, 2^28 elements: int8 -> float32 495 -> 349 us with the inline
   loads, float16 -> float32 516 -> 417 us, int32 -> float32 606 -> 523
   us).  Not unrolled beyond a vector: each copy of a call costs about 500
   bytes of machine code. */
template <int Cls, int In, int Out>
static __device__ __forceinline__ void
convert_staged(const char *staged, uint32_t in_size, int in_typenum, char *out,
               int out_typenum, uint32_t count)
{
    uint32_t j = threadIdx.x;
    if constexpr (Out >= 0) {
        typedef typename dtype_traits<Out>::storage SO;
        constexpr uint32_t kPer = sizeof(SO) < 16 ? 16 / sizeof(SO) : 1;
        const uint32_t vectors = (uintptr_t)out % 16 == 0 ? count / kPer : 0;
        uint32_t v;
#pragma unroll 1
        for (v = threadIdx.x; v < vectors; v += kBlockThreads) {
            union {
                SO e[kPer];
                uint4 bits;
            } r;
            if constexpr (In == kAnyInput) {
                /* load_element's call takes the element's address in the
                   tile (one in registers would be local memory) */
#pragma unroll
                for (uint32_t k = 0; k < kPer; k++) {
                    store_value(&r.e[k], Out,
                                load_staged<Cls, In>(staged + (v * kPer + k) * in_size, in_typenum));
                }
            }
            else {
                /* the vector's inputs read from the tile as whole words:
                   element by element, threads kPer * kInSize bytes apart
                   met in the same banks (float32 -> float16, 8 ways:
                   431 us for 2^28 against 371 us an element a thread) */
                constexpr uint32_t kInSize = inline_input_size<In>();
                typedef vector_of<uint8_t, kPer * kInSize> VI;
                const VI in = reinterpret_cast<const VI *>(staged)[v];
#pragma unroll
                for (uint32_t k = 0; k < kPer; k++) {
                    store_value(&r.e[k], Out,
                                load_staged<Cls, In>(reinterpret_cast<const char *>(in.e) + k * kInSize,
                                                     in_typenum));
                }
            }
            reinterpret_cast<uint4 *>(out)[v] = r.bits;
        }
        j = vectors * kPer + threadIdx.x;
    }
#pragma unroll 1
    for (; j < count; j += kBlockThreads) {
        const typename class_traits<Cls>::type v =
            load_staged<Cls, In>(staged + j * in_size, in_typenum);
        if constexpr (Out >= 0) {
            store_value(out + (size_t)j * sizeof(typename dtype_traits<Out>::storage), Out, v);
        }
        else {
            store_element(out + (size_t)j * da_itemsize(out_typenum), out_typenum, v);
        }
    }
}

/* convert_staged with the output dtype chosen: inline for the class's
   common ones, else through store_element. */
template <int Cls, int In>
static __device__ __forceinline__ void
convert_staged_to(const char *staged, uint32_t in_size, int in_typenum, char *out,
                  int out_typenum, uint32_t count)
{
    constexpr int kOut0 = cast_inline_output(Cls, 0), kOut1 = cast_inline_output(Cls, 1);
    if constexpr (kOut0 >= 0 && kOut0 != In) {
        if (out_typenum == kOut0) {
            convert_staged<Cls, In, kOut0>(staged, in_size, in_typenum, out, out_typenum, count);
            return;
        }
    }
    if constexpr (kOut1 >= 0 && kOut1 != In) {
        if (out_typenum == kOut1) {
            convert_staged<Cls, In, kOut1>(staged, in_size, in_typenum, out, out_typenum, count);
            return;
        }
    }
    convert_staged<Cls, In, -1>(staged, in_size, in_typenum, out, out_typenum, count);
}

/* The strided COPY kernel's route for a contiguous cast: each pass copies a
   tile of the input's bytes into shared memory with 16-byte loads, then
   converts it (convert_staged) with the kernel's own load_element and
   store_element (a new kernel would carry a second copy of the
   conversions, about 13 KB of machine code per class and architecture),
   inline instead for float32 inputs of F32, 1-byte inputs and the
   classes' common outputs.  The element-per-thread loop has one narrow
   load in flight per thread; this has kCastLoads wide ones. */
template <int Cls>
static __device__ __forceinline__ void
cast_tiles(const da_elementwise &e)
{
    __shared__ uint4 tile[kCastTileBytes / 16];
    const int in_typenum = e.in[0].typenum, out_typenum = e.out.typenum;
    const uint32_t in_size = (uint32_t)da_itemsize(in_typenum);
    const uint32_t out_size = (uint32_t)da_itemsize(out_typenum);
    const uint32_t per_tile = kCastTileBytes / in_size;
    const uint32_t n = (uint32_t)e.size;
    const bool wide = (uintptr_t)e.in[0].data % 16 == 0;
    char *staged = reinterpret_cast<char *>(tile);
    uint32_t base;

    for (base = blockIdx.x * per_tile; base < n; base += gridDim.x * per_tile) {
        const uint32_t count = n - base < per_tile ? n - base : per_tile;
        const uint32_t bytes = count * in_size;
        const char *src = e.in[0].data + (size_t)base * in_size;
        char *dst = e.out.data + (size_t)base * out_size;
        uint32_t b;

        if (wide && bytes == (uint32_t)kCastTileBytes) {
            const uint4 *words = reinterpret_cast<const uint4 *>(src);
            uint4 w[kCastLoads];
#pragma unroll
            for (int k = 0; k < kCastLoads; k++) {
                w[k] = words[k * kBlockThreads + threadIdx.x];
            }
#pragma unroll
            for (int k = 0; k < kCastLoads; k++) {
                tile[k * kBlockThreads + threadIdx.x] = w[k];
            }
        }
        else {
#pragma unroll 1
            for (b = threadIdx.x; b < bytes; b += kBlockThreads) {
                staged[b] = src[b];
            }
        }
        __syncthreads();
        if (cast_inline_input(Cls) >= 0 && in_typenum == cast_inline_input(Cls)) {
            convert_staged_to<Cls, cast_inline_input(Cls)>(staged, in_size, in_typenum, dst,
                                                           out_typenum, count);
        }
        else if (in_size == 1) {
            convert_staged_to<Cls, kNarrowInput>(staged, in_size, in_typenum, dst, out_typenum,
                                                 count);
        }
        else {
            convert_staged_to<Cls, kAnyInput>(staged, in_size, in_typenum, dst, out_typenum, count);
        }
        __syncthreads();
    }
}

}  // namespace da

#endif /* DEVARRAY_KERNELS_CAST_CUH_ */
