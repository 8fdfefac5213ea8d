/*
 * The run-time compiler for fused programs: see jit.h.
 *
 * The generated kernel (jit_source) works like the interpreter
 * (kernels/fuse.cu): tiles of kTile elements, kPer per thread at e =
 * k * 256 + threadIdx.x, so every load and store of a warp is coalesced;
 * all of a thread's loads are issued before its first op.  Inputs of one
 * element are loaded once per thread, constants come in the kernel's
 * parameters (so a new scalar value needs no new compile), each
 * instruction becomes one statement on fresh variables.  A kernel that
 * also reduces (jit_fuse's op) takes the tiles and order of
 * kernels/reduce_ordered.cuh, the unfused float reduction's.
 *
 * Kernels are cached in the process by the program's structure (jit_key:
 * dtypes, register wiring, broadcast pattern, architecture), cubins on
 * disk by rtc.c; a program the compiler declines or fails on is
 * remembered as such.
 *
 * Ownership: the loaded libraries and the cache live until exit (never
 * unloaded: a kernel may be queued).  All of it is touched with the
 * GIL held; NVRTC compiles with the GIL released, and a thread that finds
 * the program compiled meanwhile keeps the first kernel.
 */
#include "runtime/jit.h"

#include <string.h>

#ifdef DEVARRAY_HAVE_CUDA
#include <stdarg.h>
#include <stdio.h>

#include "base/cuda_error.h"
#include "runtime/device.h"
#include "runtime/rtc.h"
#endif

/* -1 until first read (then DEVARRAY_JIT), else 0 or 1. */
static int jit_enabled = -1;

/* Whether the compiler is on (DEVARRAY_JIT, then _set_fuse_jit). */
static int
jit_is_enabled(void)
{
    if (jit_enabled < 0) {
        const char *env = getenv("DEVARRAY_JIT");
        jit_enabled = env == NULL || strcmp(env, "0") != 0;
    }
    return jit_enabled;
}

#ifdef DEVARRAY_HAVE_CUDA

enum {
    JIT_THREADS = 256,
    /* a reduction's kernel takes kernels/reduce_ordered.cuh's tiles (its
       source asserts them) */
    JIT_REDUCE_THREADS = 128,
    JIT_PER = 4,
    JIT_BLOCKS_PER_SM = 8,
    JIT_MAX_DEVICES = 64,
    JIT_KEY_BYTES = 1024,
};

/* Whether the compiler already warned (once per process). */
static int jit_warned = 0;

/* A RuntimeWarning, the first time only: 0, or -1 where the warning
   filters made it an exception. */
static int
jit_warn(const char *format, ...)
{
    char message[1024];
    va_list ap;

    if (jit_warned) {
        return 0;
    }
    jit_warned = 1;
    va_start(ap, format);
    /* clang-analyzer 14 misreads va_start here (and in jit_put) */
    vsnprintf(message, sizeof message, format, ap);  /* NOLINT(clang-analyzer-valist.Uninitialized) */
    va_end(ap);
    return PyErr_WarnEx(PyExc_RuntimeWarning, message, 1);
}

int
jit_ready(void)
{
    char why[2048];

    if (!jit_is_enabled()) {
        return 0;
    }
    if (rtc_load(why, sizeof why)) {
        return 1;
    }
    if (jit_warn("devarray.fuse: %s; fused functions run in the precompiled interpreter "
                 "(the same results, slower). Install devarray[jit] (the "
                 "nvidia-cuda-nvrtc wheel of CUDA %d.%d) or set DEVARRAY_NVRTC to a "
                 "libnvrtc.so; DEVARRAY_JIT=0 silences this.",
                 why, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10) < 0) {
        PyErr_WriteUnraisable(NULL);
    }
    return 0;
}

/* ---- source ---------------------------------------------------------------- */

/* A growing string; `failed` once an allocation failed. */
typedef struct {
    char *text;
    size_t len, cap;
    int failed;
} jit_text;

static void
jit_put(jit_text *t, const char *format, ...)
{
    va_list ap;
    int n;

    if (t->failed) {
        return;
    }
    if (t->text == NULL) {
        if ((t->text = PyMem_Malloc(4096)) == NULL) {
            t->failed = 1;
            return;
        }
        t->cap = 4096;
    }
    for (;;) {
        va_start(ap, format);
        n = vsnprintf(t->text + t->len, t->cap - t->len, format, ap);  /* NOLINT(clang-analyzer-valist.Uninitialized) */
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        {
            size_t cap = (t->cap + (size_t)n + 1) * 2;
            char *text = PyMem_Realloc(t->text, cap);
            if (text == NULL) {
                t->failed = 1;
                return;
            }
            t->text = text;
            t->cap = cap;
        }
    }
}

/* Per class (bool, sint, uint, f32, f64): its name in dtypes.h, C type
   and da_scalar member. */
static const char *const jit_cname[] = {"bool", "sint", "uint", "f32", "f64"};
static const char *const jit_ctype[] = {"uint8_t", "int64_t", "uint64_t", "float", "double"};
static const char *const jit_member[] = {"b", "s", "u", "f32", "f64"};

/* The element function of each (op, class) pair of the table, and the
   class its result is stored from. */
static const char *jit_fn[DA_NOPS][DA_NCLASSES];
static unsigned char jit_result[DA_NOPS][DA_NCLASSES];

static void
jit_tables_init(void)
{
#define JIT_ROW_(OP, CLS, CNAME, RESULT, RNAME, FN, EXPR)                      \
    jit_fn[OP][CLS] = #FN;                                                     \
    jit_result[OP][CLS] = (unsigned char)(RESULT == DA_RESULT_BOOL ? DA_CLASS_BOOL \
                                        : RESULT == DA_RESULT_REAL && CLS == DA_CLASS_C64 \
                                            ? DA_CLASS_F32                     \
                                        : RESULT == DA_RESULT_REAL && CLS == DA_CLASS_C128 \
                                            ? DA_CLASS_F64                     \
                                            : CLS);
    DA_FOR_EACH_KERNEL(JIT_ROW_)
#undef JIT_ROW_
}

/* What a register holds while the source is written. */
typedef struct {
    char kind; /* 0 nothing, 'x' an input, 'b' a broadcast input, 'k' a constant, 'v' a value */
    signed char cls;
    int index;
} jit_reg;

/* The expression of register r read as class cls into buf; 0 when the
   program reads it otherwise (the compiler declines it). */
static int
jit_operand(const jit_reg *r, int cls, char *buf, size_t bytes)
{
    switch (r->kind) {
        case 'k':
            snprintf(buf, bytes, "k%d.%s", r->index, jit_member[cls]);
            return 1;
        case 'x':
            snprintf(buf, bytes, "x%d[k]", r->index);
            return r->cls == cls;
        case 'b':
            snprintf(buf, bytes, "b%d", r->index);
            return r->cls == cls;
        case 'v':
            snprintf(buf, bytes, "v%d", r->index);
            return r->cls == cls;
        default:
            return 0;
    }
}

static int
jit_real_typenum(int typenum)
{
    return typenum >= 0 && typenum < DA_NTYPES && da_class_of(typenum) < DA_CLASS_C64;
}

/* The statements of the instructions, into t; 0 when declined. */
static int
jit_instructions(const da_fuse *f, jit_reg *regs, jit_text *t)
{
    char a[32], b[32], c[32];
    int n;

    for (n = 0; n < f->ninstrs; n++) {
        const da_fuse_instr *ins = &f->instrs[n];
        int cls;
        if (ins->code < DA_NOPS * DA_NCLASSES) {
            const int op = ins->code / DA_NCLASSES;
            cls = ins->code % DA_NCLASSES;
            if (cls >= DA_CLASS_C64 || jit_fn[op][cls] == NULL ||
                jit_result[op][cls] >= DA_CLASS_C64 ||
                !jit_operand(&regs[ins->in[0]], cls, a, sizeof a) ||
                !jit_operand(&regs[da_op_nin(op) == 2 ? ins->in[1] : ins->in[0]], cls, b,
                             sizeof b)) {
                return 0;
            }
            cls = jit_result[op][cls];
            jit_put(t, "                const %s v%d = %s(%s, %s);\n", jit_ctype[cls], n,
                    jit_fn[op][ins->code % DA_NCLASSES], a, b);
        }
        else if (ins->code == DA_FUSE_CONV) {
            cls = ins->to;
            if (ins->from >= DA_CLASS_C64 || cls >= DA_CLASS_C64 ||
                !jit_real_typenum(ins->typenum) ||
                !jit_operand(&regs[ins->in[0]], ins->from, a, sizeof a)) {
                return 0;
            }
            jit_put(t,
                    "                %s v%d;\n"
                    "                {\n"
                    "                    da_scalar m;\n"
                    "                    da_store_%s(&m, %d, %s);\n"
                    "                    v%d = da_load_%s(&m, %d);\n"
                    "                }\n",
                    jit_ctype[cls], n, jit_cname[ins->from], ins->typenum, a, n,
                    jit_cname[cls], ins->typenum);
        }
        else if (ins->code >= DA_FUSE_WHERE && ins->code < DA_FUSE_NCODES) {
            cls = ins->code - DA_FUSE_WHERE;
            if (cls >= DA_CLASS_C64 ||
                !jit_operand(&regs[ins->in[0]], DA_CLASS_BOOL, a, sizeof a) ||
                !jit_operand(&regs[ins->in[1]], cls, b, sizeof b) ||
                !jit_operand(&regs[ins->in[2]], cls, c, sizeof c)) {
                return 0;
            }
            jit_put(t, "                const %s v%d = %s ? %s : %s;\n", jit_ctype[cls], n, a, b,
                    c);
        }
        else {
            return 0;
        }
        regs[ins->out].kind = 'v';
        regs[ins->out].cls = (signed char)cls;
        regs[ins->out].index = n;
    }
    return 1;
}

/* The head of the loops over a thread's elements of a tile (the loads'
   and the instructions'): element i, when inside the array. */
static const char jit_element_loop[] =
    "#pragma unroll\n"
    "        for (int k = 0; k < %d; k++) {\n"
    "            const long long i = base + k * %d + (long long)threadIdx.x;\n"
    "            if (i < p.n) {\n";

/* A final reduction the kernel makes itself, in the order of the
   unfused one (kernels/reduce_ordered.cuh): op (DA_REDUCE_SUM or
   DA_REDUCE_PROD, where da_reduce_in_order) into the float accumulator
   acc_typenum; op < 0 for none (the kernel stores the program's result). */
typedef struct {
    int op, acc_typenum;
} jit_reduction;

static const jit_reduction jit_no_reduction = {-1, -1};

/* f's kernel, `da_fused`, as CUDA source into t: 1, or 0 when declined
   (complex values, a program that breaks the contract). */
static int
jit_source(const da_fuse *f, const jit_reduction *red, jit_text *t)
{
    jit_reg regs[DA_FUSE_MAXREGS];
    const int out_cls = da_class_of(f->out_typenum);
    const int threads = red->op >= 0 ? JIT_REDUCE_THREADS : JIT_THREADS;
    const int acc_cls = red->op >= 0 ? da_class_of(red->acc_typenum) : 0;
    char out[32];
    int j;

    if (f->nregs < 1 || f->nregs > DA_FUSE_MAXREGS || f->ninputs > DA_FUSE_MAXINPUTS ||
        f->nconsts > DA_FUSE_MAXCONSTS || f->ninstrs > DA_FUSE_MAXINSTRS ||
        !jit_real_typenum(f->out_typenum) || f->out_reg >= f->nregs ||
        (red->op >= 0 && (!da_reduce_in_order(red->op, f->out_typenum) ||
                          da_reduce_accumulator(red->op, f->out_typenum) != red->acc_typenum))) {
        return 0;
    }
    memset(regs, 0, sizeof regs);
    for (j = 0; j < f->nconsts; j++) {
        regs[f->const_reg[j]].kind = 'k';
        regs[f->const_reg[j]].index = j;
    }
    jit_put(t, "#include \"optable.h\"\n");
    if (red->op >= 0) {
        jit_put(t,
                "#include \"reduce_ordered.cuh\"\n\n"
                "static_assert(da::kOrderedThreads == %d && da::kOrderedPer == %d,\n"
                "              \"the ordered reduction's tiles\");\n\n"
                "struct da_jit_combine {\n"
                "    __device__ __forceinline__ %s identity() const { return %s; }\n"
                "    __device__ __forceinline__ %s operator()(%s a, %s b) const\n"
                "    {\n        return da_%s_%s(a, b);\n    }\n"
                "};\n",
                JIT_REDUCE_THREADS, JIT_PER, jit_ctype[acc_cls],
                red->op == DA_REDUCE_SUM ? "0" : "1", jit_ctype[acc_cls], jit_ctype[acc_cls],
                jit_ctype[acc_cls], jit_cname[acc_cls],
                red->op == DA_REDUCE_SUM ? "add" : "mul");
    }
    jit_put(t, "\nstruct da_jit_params {\n");
    if (f->ninputs > 0) {
        jit_put(t, "    const char *in[%d];\n", f->ninputs);
    }
    jit_put(t, "    char *out;\n    long long n;\n");
    if (red->op >= 0) {
        jit_put(t, "    %s *partials;\n", jit_ctype[acc_cls]);
    }
    if (f->nconsts > 0) {
        jit_put(t, "    da_scalar c[%d];\n", f->nconsts);
    }
    /* a reduction's blocks (da_ordered_blocks: 2048 for large arrays) in
       two even waves of 8 an SM on 132 SMs */
    jit_put(t,
            "};\n\n"
            "extern \"C\" __global__ void __launch_bounds__(%d, %d)\n"
            "da_fused(const da_jit_params p)\n{\n",
            threads, red->op >= 0 ? 8 : 1);
    if (red->op >= 0) {
        jit_put(t,
                "    const da_jit_combine combine;\n"
                "    %s acc[%d];\n"
                "#pragma unroll\n"
                "    for (int k = 0; k < %d; k++) {\n"
                "        acc[k] = combine.identity();\n"
                "    }\n",
                jit_ctype[acc_cls], JIT_PER, JIT_PER);
    }
    for (j = 0; j < f->nconsts; j++) {
        jit_put(t, "    const da_scalar k%d = p.c[%d];\n", j, j);
    }
    for (j = 0; j < f->ninputs; j++) {
        const int typenum = f->in_typenum[j];
        if (!jit_real_typenum(typenum) || f->in_reg[j] >= f->nregs) {
            return 0;
        }
        regs[f->in_reg[j]].kind = f->in_bcast[j] ? 'b' : 'x';
        regs[f->in_reg[j]].cls = (signed char)da_class_of(typenum);
        regs[f->in_reg[j]].index = j;
        if (f->in_bcast[j]) {
            jit_put(t, "    const %s b%d = da_load_%s(p.in[%d], %d);\n",
                    jit_ctype[da_class_of(typenum)], j, jit_cname[da_class_of(typenum)], j,
                    typenum);
        }
    }
    jit_put(t,
            "    for (long long base = (long long)blockIdx.x * %d; base < p.n;\n"
            "         base += (long long)gridDim.x * %d) {\n",
            threads * JIT_PER, threads * JIT_PER);
    for (j = 0; j < f->ninputs; j++) {
        if (!f->in_bcast[j]) {
            jit_put(t, "        %s x%d[%d] = {};\n", jit_ctype[da_class_of(f->in_typenum[j])],
                    j, JIT_PER);
        }
    }
    jit_put(t, jit_element_loop, JIT_PER, threads);
    for (j = 0; j < f->ninputs; j++) {
        if (!f->in_bcast[j]) {
            const int typenum = f->in_typenum[j];
            jit_put(t, "                x%d[k] = da_load_%s(p.in[%d] + i * %d, %d);\n", j,
                    jit_cname[da_class_of(typenum)], j, da_itemsize(typenum), typenum);
        }
    }
    jit_put(t, "            }\n        }\n");
    jit_put(t, jit_element_loop, JIT_PER, threads);
    if (!jit_instructions(f, regs, t) ||
        !jit_operand(&regs[f->out_reg], out_cls, out, sizeof out)) {
        return 0;
    }
    if (red->op >= 0) {
        /* read back as the unfused reduction reads the stored result */
        jit_put(t,
                "                da_scalar m;\n"
                "                da_store_%s(&m, %d, %s);\n"
                "                acc[k] = combine(acc[k], da_load_%s(&m, %d));\n"
                "            }\n"
                "        }\n"
                "    }\n"
                "    da::ordered_block_result(acc, combine, p.partials,\n"
                "                             da::ordered_store<%s>{(%s *)p.out});\n"
                "}\n",
                jit_cname[out_cls], f->out_typenum, out, jit_cname[acc_cls], f->out_typenum,
                jit_ctype[acc_cls], jit_ctype[acc_cls]);
        return 1;
    }
    jit_put(t,
            "                da_store_%s(p.out + i * %d, %d, %s);\n"
            "            }\n"
            "        }\n"
            "    }\n"
            "}\n",
            jit_cname[out_cls], da_itemsize(f->out_typenum), f->out_typenum, out);
    return 1;
}

/* ---- compiling ------------------------------------------------------------- */

/* The program's structure, everything its source depends on, as bytes
   (the in-process cache's key); its length. */
static size_t
jit_key(const da_fuse *f, const jit_reduction *red, int arch, uint8_t *key)
{
    size_t n = 0;
    int j;

    key[n++] = (uint8_t)arch;
    key[n++] = (uint8_t)(red->op + 1);
    key[n++] = (uint8_t)(red->acc_typenum + 1);
    key[n++] = (uint8_t)f->nregs;
    key[n++] = (uint8_t)f->ninputs;
    key[n++] = (uint8_t)f->nconsts;
    key[n++] = (uint8_t)f->ninstrs;
    key[n++] = (uint8_t)f->out_typenum;
    key[n++] = (uint8_t)f->out_reg;
    for (j = 0; j < f->ninputs; j++) {
        key[n++] = f->in_typenum[j];
        key[n++] = f->in_reg[j];
        key[n++] = f->in_bcast[j];
    }
    memcpy(key + n, f->const_reg, (size_t)f->nconsts);
    n += (size_t)f->nconsts;
    memcpy(key + n, f->instrs, sizeof(da_fuse_instr) * (size_t)f->ninstrs);
    return n + sizeof(da_fuse_instr) * (size_t)f->ninstrs;
}

/* ---- kernels ------------------------------------------------------------------ */

/* A program's kernel in this process; kernel == NULL where the compiler
   declined or failed (the interpreter runs it). */
typedef struct {
    uint64_t hash;
    uint8_t *key;
    size_t key_len;
    cudaKernel_t kernel;
} jit_entry;

static jit_entry *jit_table; /* open addressing, capacity a power of 2 */
static size_t jit_capacity, jit_count;

/* Per device: sm_<arch> and its SM count, 0 until asked. */
static int jit_arch[JIT_MAX_DEVICES], jit_sms[JIT_MAX_DEVICES];

static jit_entry *
jit_lookup(uint64_t hash, const uint8_t *key, size_t len)
{
    size_t i;

    if (jit_capacity == 0) {
        return NULL;
    }
    for (i = (size_t)hash & (jit_capacity - 1); jit_table[i].key != NULL;
         i = (i + 1) & (jit_capacity - 1)) {
        if (jit_table[i].hash == hash && jit_table[i].key_len == len &&
            memcmp(jit_table[i].key, key, len) == 0) {
            return &jit_table[i];
        }
    }
    return NULL;
}

/* Add (hash, key) -> kernel: the entry, or NULL with MemoryError. */
static jit_entry *
jit_insert(uint64_t hash, const uint8_t *key, size_t len, cudaKernel_t kernel)
{
    size_t i;

    if (2 * (jit_count + 1) > jit_capacity) {
        const size_t capacity = jit_capacity == 0 ? 64 : 2 * jit_capacity;
        jit_entry *table = PyMem_Calloc(capacity, sizeof(jit_entry));
        if (table == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        for (i = 0; i < jit_capacity; i++) {
            if (jit_table[i].key != NULL) {
                size_t k = (size_t)jit_table[i].hash & (capacity - 1);
                while (table[k].key != NULL) {
                    k = (k + 1) & (capacity - 1);
                }
                table[k] = jit_table[i];
            }
        }
        PyMem_Free(jit_table);
        jit_table = table;
        jit_capacity = capacity;
    }
    for (i = (size_t)hash & (jit_capacity - 1); jit_table[i].key != NULL;
         i = (i + 1) & (jit_capacity - 1)) {
    }
    if ((jit_table[i].key = PyMem_Malloc(len)) == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(jit_table[i].key, key, len);
    jit_table[i].hash = hash;
    jit_table[i].key_len = len;
    jit_table[i].kernel = kernel;
    jit_count++;
    return &jit_table[i];
}

/* f's kernel for sm_<arch> (NULL where declined or failed) in *library,
   which the caller unloads if it does not keep the kernel: 0, or -1. */
static int
jit_build(const da_fuse *f, const jit_reduction *red, int arch, cudaKernel_t *kernel,
          cudaLibrary_t *library)
{
    jit_text text = {NULL, 0, 0, 0};
    char *cubin = NULL, why[1024];
    size_t bytes = 0;
    cudaError_t err;
    int status, result = -1;

    *kernel = NULL;
    *library = NULL;
    status = jit_source(f, red, &text);
    if (text.failed) {
        PyErr_NoMemory();
        goto done;
    }
    if (status == 0) {
        result = 0;
        goto done;
    }
    status = rtc_cubin(text.text, arch, 1, &cubin, &bytes, why, sizeof why);
    if (status == 0 &&
        jit_warn("devarray.fuse: NVRTC failed on a fused program for sm_%d; it runs in "
                 "the precompiled interpreter (the same results, slower). Please report "
                 "this with the log: %s",
                 arch, why) < 0) {
        status = -1;
    }
    if (status <= 0) {
        result = status;
        goto done;
    }
    err = cudaLibraryLoadData(library, cubin, NULL, NULL, 0, NULL, NULL, 0);
    if (err != cudaSuccess) {
        *library = NULL;
    }
    else {
        err = cudaLibraryGetKernel(kernel, *library, "da_fused");
    }
    if (err != cudaSuccess) {
        *kernel = NULL;
        if (*library != NULL) {
            (void)cudaLibraryUnload(*library);
            *library = NULL;
        }
        cuda_error_raise(err, "cudaLibraryLoadData (fused kernel)");
        goto done;
    }
    result = 0;
done:
    PyMem_Free(cubin);
    PyMem_Free(text.text);
    return result;
}

/* The active device's ordinal (device.h: the operands', made active
   before the launch), architecture and SM count: 0, or -1. */
static int
jit_device(int *device, int *arch, int *sms)
{
    cudaError_t err = cudaSuccess;

    *device = device_active(DA_BACKEND_CUDA);
    if (*device < 0 || *device >= JIT_MAX_DEVICES) {
        err = cudaErrorInvalidDevice;
    }
    if (err == cudaSuccess && jit_arch[*device] == 0) {
        int major = 0, minor = 0, count = 0;
        err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, *device);
        if (err == cudaSuccess) {
            err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, *device);
        }
        if (err == cudaSuccess) {
            err = cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, *device);
        }
        if (err == cudaSuccess) {
            jit_arch[*device] = major * 10 + minor;
            jit_sms[*device] = count;
        }
    }
    if (err != cudaSuccess) {
        return cuda_error_raise(err, "cudaDeviceGetAttribute");
    }
    *arch = jit_arch[*device];
    *sms = jit_sms[*device];
    return 0;
}

int
jit_fuse(const da_fuse *f, int op, int acc_typenum, void *partials, void *out,
         cudaStream_t stream)
{
    const jit_reduction reduction = {op, acc_typenum}, *red = &reduction;
    uint8_t key[JIT_KEY_BYTES];
    _Alignas(16) unsigned char params[8 * DA_FUSE_MAXINPUTS + 24 +
                                      sizeof(da_scalar) * DA_FUSE_MAXCONSTS];
    void *args[] = {params};
    int device = 0, arch = 0, sms = 0, j;
    size_t len, at;
    uint64_t hash;
    int64_t blocks;
    jit_entry *entry;
    cudaError_t err;

    if (!jit_ready()) {
        return 0;
    }
    if (f->ninstrs > DA_FUSE_MAXINSTRS || f->ninputs > DA_FUSE_MAXINPUTS ||
        f->nconsts > DA_FUSE_MAXCONSTS) {
        return 0;
    }
    if (jit_device(&device, &arch, &sms) < 0) {
        return -1;
    }
    len = jit_key(f, red, arch, key);
    hash = rtc_hash(key, len, RTC_HASH_SEED);
    entry = jit_lookup(hash, key, len);
    if (entry == NULL) {
        cudaKernel_t kernel;
        cudaLibrary_t library;
        if (jit_build(f, red, arch, &kernel, &library) < 0) {
            return -1;
        }
        /* another thread may have built it while NVRTC ran; the table keeps
           one library per program for the process's life, no other */
        entry = jit_lookup(hash, key, len);
        if (entry == NULL) {
            entry = jit_insert(hash, key, len, kernel);
        }
        if ((entry == NULL || entry->kernel != kernel) && library != NULL) {
            (void)cudaLibraryUnload(library);
        }
        if (entry == NULL) {
            return -1;
        }
    }
    if (entry->kernel == NULL) {
        return 0;
    }
    at = 0;
    for (j = 0; j < f->ninputs; j++) {
        memcpy(params + at, &f->in[j], sizeof(char *));
        at += 8;
    }
    memcpy(params + at, &out, sizeof(char *));
    memcpy(params + at + 8, &f->size, sizeof(int64_t));
    at += 16;
    if (red->op >= 0) {
        memcpy(params + at, &partials, sizeof(void *));
        at += 8;
    }
    for (j = 0; j < f->nconsts; j++) {
        memcpy(params + at, &f->consts[j], sizeof(da_scalar));
        at += sizeof(da_scalar);
    }
    if (red->op >= 0) {
        blocks = da_ordered_blocks(f->size);
    }
    else {
        blocks = (f->size + JIT_THREADS * JIT_PER - 1) / (JIT_THREADS * JIT_PER);
        if (blocks > (int64_t)sms * JIT_BLOCKS_PER_SM) {
            blocks = (int64_t)sms * JIT_BLOCKS_PER_SM;
        }
    }
    {
        const dim3 grid = {(unsigned int)(blocks < 1 ? 1 : blocks), 1, 1};
        const dim3 block = {red->op >= 0 ? JIT_REDUCE_THREADS : JIT_THREADS, 1, 1};
        err = cudaLaunchKernel((const void *)entry->kernel, grid, block, args, 0, stream);
    }
    if (err == cudaSuccess && red->op >= 0) {
        err = da_cuda_reduce_finish(partials, blocks, red->op, red->acc_typenum, out, stream);
    }
    return err == cudaSuccess ? 1 : cuda_error_raise(err, "fused kernel (compiled)");
}

#endif /* DEVARRAY_HAVE_CUDA */

PyObject *
jit_compile_only(const da_fuse *f)
{
#ifdef DEVARRAY_HAVE_CUDA
    char why[2048];
    jit_text text = {NULL, 0, 0, 0};
    char *cubin = NULL;
    size_t bytes = 0;
    int arch, status;
    PyObject *result = NULL;

    if (!rtc_load(why, sizeof why)) {
        PyErr_Format(PyExc_RuntimeError, "devarray.fuse: %s", why);
        return NULL;
    }
    status = jit_source(f, &jit_no_reduction, &text);
    if (text.failed) {
        PyErr_NoMemory();
        goto done;
    }
    if (status == 0) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    arch = rtc_oldest_arch();
    status = rtc_cubin(text.text, arch, 0, &cubin, &bytes, why, sizeof why);
    if (status == 0) {
        PyErr_Format(PyExc_RuntimeError, "devarray.fuse: NVRTC failed on sm_%d:\n%s\n%s",
                     arch, why, text.text);
    }
    else if (status > 0) {
        result = Py_BuildValue("(sn)", text.text, (Py_ssize_t)bytes);
    }
done:
    PyMem_Free(cubin);
    PyMem_Free(text.text);
    return result;
#else
    (void)f;
    PyErr_SetString(PyExc_RuntimeError,
                    "devarray.fuse: this devarray build has no CUDA backend, so no "
                    "run-time compiler");
    return NULL;
#endif
}

static PyObject *
jit_py_set_fuse_jit(PyObject *Py_UNUSED(module), PyObject *flag)
{
    const int previous = jit_is_enabled();
    const int value = PyObject_IsTrue(flag);

    if (value < 0) {
        return NULL;
    }
    jit_enabled = value;
    return PyBool_FromLong(previous);
}

static PyMethodDef jit_methods[] = {
    {"_set_fuse_jit", jit_py_set_fuse_jit, METH_O,
     "_set_fuse_jit(flag)\n--\n\nFor tests and benchmarks: whether fused functions "
     "on CUDA may run as kernels compiled at run time (else the precompiled "
     "interpreter); returns the previous setting."},
    {NULL, NULL, 0, NULL},
};

int
jit_module_init(PyObject *module)
{
#ifdef DEVARRAY_HAVE_CUDA
    jit_tables_init();
#endif
    return PyModule_AddFunctions(module, jit_methods);
}
