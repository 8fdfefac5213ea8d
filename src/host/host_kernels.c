/*
 * The host backend: da_host_elementwise (kernels/launch.h)
 * as plain C loops.  They are also the reference for the CUDA kernels, and
 * compute with the same element functions of kernels/optable.h.
 *
 * Elementwise ops take one of two loops, as in kernels/elementwise.cu:
 *   - contiguous: ndim <= 1, every array operand contiguous and of the
 *     output's dtype, which belongs to the op's class.  A loop per (op,
 *     dtype) with the dtype a constant, so da_load/da_store fold into plain
 *     loads and stores and the compiler vectorises; one loop for each mix of
 *     array and scalar operands.
 *   - strided: everything else.  A loop per (op, class) that switches on
 *     each operand's dtype per element; the innermost dimension is a plain
 *     loop and the outer ones advance like an odometer, carrying byte
 *     offsets (no division per element).
 * COPY between arrays of one dtype moves bits instead (memcpy, or per
 * element by itemsize), like the CUDA move route.  Problems that transpose
 * (kernels/transpose.h) run either loop over blocks of DA_TILE x DA_TILE,
 * the twin of the CUDA tiles.
 * Reductions are in host_reduce.c.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../kernels/launch.h"
#include "../../kernels/transpose.h"

/* The da_scalar member of each class, by its name in dtypes.h. */
#define HOST_SCALAR_bool b
#define HOST_SCALAR_sint s
#define HOST_SCALAR_uint u
#define HOST_SCALAR_f32 f32
#define HOST_SCALAR_f64 f64
#define HOST_SCALAR_c64 c64
#define HOST_SCALAR_c128 c128

/* The dtypes of each class: M(typenum, ...) for each. */
#define HOST_DTYPES_bool(M, ...) M(DA_BOOL, __VA_ARGS__)
#define HOST_DTYPES_sint(M, ...)                                             \
    M(DA_INT8, __VA_ARGS__) M(DA_INT16, __VA_ARGS__) M(DA_INT32, __VA_ARGS__) \
    M(DA_INT64, __VA_ARGS__)
#define HOST_DTYPES_uint(M, ...)                                                \
    M(DA_UINT8, __VA_ARGS__) M(DA_UINT16, __VA_ARGS__) M(DA_UINT32, __VA_ARGS__) \
    M(DA_UINT64, __VA_ARGS__)
#define HOST_DTYPES_f32(M, ...) M(DA_FLOAT16, __VA_ARGS__) M(DA_FLOAT32, __VA_ARGS__)
#define HOST_DTYPES_f64(M, ...) M(DA_FLOAT64, __VA_ARGS__)
#define HOST_DTYPES_c64(M, ...) M(DA_COMPLEX64, __VA_ARGS__)
#define HOST_DTYPES_c128(M, ...) M(DA_COMPLEX128, __VA_ARGS__)

/* ---- contiguous loops -------------------------------------------------- */

/* One dtype's loops: the element at byte offset i * size of each array is
   loaded and stored with a constant typenum, so the switches fold away. */
#define HOST_CONTIGUOUS_CASE(TYPENUM, OP, CNAME, RNAME, FN)               \
    case TYPENUM: {                                                           \
        const int64_t size = da_itemsize(TYPENUM);                            \
        int64_t i;                                                            \
        if (da_op_nin(OP) == 1) {                                             \
            if (in0 != NULL) {                                                \
                for (i = 0; i < n; i++) {                                     \
                    da_store_##RNAME(                                         \
                        out + i * size, TYPENUM,                              \
                        FN(da_load_##CNAME(in0 + i * size, TYPENUM), s1));    \
                }                                                             \
                break;                                                        \
            }                                                                 \
        }                                                                     \
        else if (in0 != NULL && in1 != NULL) {                                \
            for (i = 0; i < n; i++) {                                         \
                da_store_##RNAME(                                             \
                    out + i * size, TYPENUM,                                  \
                    FN(da_load_##CNAME(in0 + i * size, TYPENUM),              \
                       da_load_##CNAME(in1 + i * size, TYPENUM)));            \
            }                                                                 \
            break;                                                            \
        }                                                                     \
        else if (in0 != NULL) {                                               \
            for (i = 0; i < n; i++) {                                         \
                da_store_##RNAME(                                             \
                    out + i * size, TYPENUM,                                  \
                    FN(da_load_##CNAME(in0 + i * size, TYPENUM), s1));        \
            }                                                                 \
            break;                                                            \
        }                                                                     \
        else if (in1 != NULL) {                                               \
            for (i = 0; i < n; i++) {                                         \
                da_store_##RNAME(                                             \
                    out + i * size, TYPENUM,                                  \
                    FN(s0, da_load_##CNAME(in1 + i * size, TYPENUM)));        \
            }                                                                 \
            break;                                                            \
        }                                                                     \
        /* scalar operands only: a fill */                                    \
        for (i = 0; i < n; i++) {                                             \
            da_store_##RNAME(out + i * size, TYPENUM,                         \
                             FN(s0, s1));             \
        }                                                                     \
        break;                                                                \
    }

#define HOST_DEFINE_CONTIGUOUS(OP, CLS, CNAME, RESULT, RNAME, FN, EXPR)      \
    static void                                                               \
    contiguous_##FN(const da_elementwise *e)                                  \
    {                                                                         \
        char *out = e->out.data;                                              \
        const char *in0 = e->in[0].data;                                      \
        const char *in1 = da_op_nin(OP) == 2 ? e->in[1].data : NULL;         \
        const DA_CTYPE_##CNAME s0 = e->in[0].scalar.HOST_SCALAR_##CNAME;    \
        const DA_CTYPE_##CNAME s1 =                                         \
            da_op_nin(OP) == 2 ? e->in[1].scalar.HOST_SCALAR_##CNAME : s0;   \
        const int64_t n = e->size;                                            \
        switch (e->out.typenum) {                                             \
            HOST_DTYPES_##CNAME(HOST_CONTIGUOUS_CASE, OP, CNAME, RNAME, FN) \
            default:                                                          \
                break;                                                        \
        }                                                                     \
    }

DA_FOR_EACH_KERNEL(HOST_DEFINE_CONTIGUOUS)

/* ---- strided loops ------------------------------------------------------- */

/* The outer dimensions of a strided problem, walked like an odometer: the
   innermost dimension is the callers' plain loop, and each step advances
   the byte offsets of the array operands by their strides. */
typedef struct {
    const da_elementwise *e;
    int nops;                  /* the output and nin inputs */
    int64_t inner;             /* extent of the innermost dimension */
    int64_t step[3];           /* innermost stride of each operand (0: scalar) */
    int64_t off[3];            /* byte offset of each operand's current row */
    int64_t coord[DA_MAXDIMS];
} host_iter;

static void
host_iter_init(host_iter *it, const da_elementwise *e)
{
    const da_operand *ops[3];
    int d, k;

    ops[0] = &e->out;
    ops[1] = &e->in[0];
    ops[2] = &e->in[1];
    it->e = e;
    it->nops = 1 + e->nin;
    it->inner = e->ndim > 0 ? e->shape[e->ndim - 1] : 1;
    for (k = 0; k < 3; k++) {
        it->off[k] = 0;
        it->step[k] = k < it->nops && e->ndim > 0 && ops[k]->data != NULL
                          ? ops[k]->strides[e->ndim - 1]
                          : 0;
    }
    for (d = 0; d < e->ndim; d++) {
        it->coord[d] = 0;
    }
}

/* Move to the next row; 0 when there is none. */
static int
host_iter_next(host_iter *it)
{
    const da_elementwise *e = it->e;
    const da_operand *ops[3];
    int d, k;

    ops[0] = &e->out;
    ops[1] = &e->in[0];
    ops[2] = &e->in[1];
    for (d = e->ndim - 2; d >= 0; d--) {
        const int carry = ++it->coord[d] == e->shape[d];
        if (carry) {
            it->coord[d] = 0;
        }
        for (k = 0; k < 3; k++) {
            if (k < it->nops && ops[k]->data != NULL) {
                it->off[k] += carry ? -ops[k]->strides[d] * (e->shape[d] - 1)
                                    : ops[k]->strides[d];
            }
        }
        if (!carry) {
            return 1;
        }
    }
    return 0;
}

#define HOST_LOAD_OPERAND(CNAME, operand, offset)                             \
    ((operand)->data != NULL                                                  \
         ? da_load_##CNAME((operand)->data + (offset), (operand)->typenum)    \
         : (operand)->scalar.HOST_SCALAR_##CNAME)

#define HOST_DEFINE_STRIDED(OP, CLS, CNAME, RESULT, RNAME, FN, EXPR)         \
    static void                                                               \
    strided_##FN(const da_elementwise *e)                                     \
    {                                                                         \
        host_iter it;                                                         \
        host_iter_init(&it, e);                                               \
        do {                                                                  \
            int64_t j;                                                        \
            for (j = 0; j < it.inner; j++) {                                  \
                const DA_CTYPE_##CNAME a = HOST_LOAD_OPERAND(               \
                    CNAME, &e->in[0], it.off[1] + j * it.step[1]);            \
                const DA_CTYPE_##CNAME b =                                  \
                    da_op_nin(OP) == 2                                       \
                        ? HOST_LOAD_OPERAND(CNAME, &e->in[1],                 \
                                            it.off[2] + j * it.step[2])       \
                        : a;                                                  \
                da_store_##RNAME(e->out.data + it.off[0] + j * it.step[0],    \
                                 e->out.typenum,                              \
                                 FN(a, b));           \
            }                                                                 \
        } while (host_iter_next(&it));                                        \
    }

DA_FOR_EACH_KERNEL(HOST_DEFINE_STRIDED)

/* ---- moves ------------------------------------------------------------------ */

/* COPY between arrays of one dtype moves the bits, as NumPy's copy does
   (bool bytes and NaN payloads kept). */
#define HOST_MOVE_CASE(SIZE)                                                  \
    case SIZE:                                                                \
        do {                                                                  \
            int64_t j;                                                        \
            for (j = 0; j < it.inner; j++) {                                  \
                memcpy(e->out.data + it.off[0] + j * it.step[0],              \
                       e->in[0].data + it.off[1] + j * it.step[1], SIZE);     \
            }                                                                 \
        } while (host_iter_next(&it));                                        \
        break;

static void
move(const da_elementwise *e)
{
    const int64_t itemsize = da_itemsize(e->out.typenum);
    host_iter it;

    if (e->ndim == 0 ||
        (e->ndim == 1 && e->out.strides[0] == itemsize && e->in[0].strides[0] == itemsize)) {
        if (e->in[0].data != e->out.data) {
            memcpy(e->out.data, e->in[0].data, (size_t)(e->size * itemsize));
        }
        return;
    }
    host_iter_init(&it, e);
    switch (itemsize) {
        HOST_MOVE_CASE(1)
        HOST_MOVE_CASE(2)
        HOST_MOVE_CASE(4)
        HOST_MOVE_CASE(8)
        HOST_MOVE_CASE(16)
        default:
            break;
    }
}

/* ---- the transposing route ------------------------------------------------ */

/* e as DA_TILE x DA_TILE blocks of its rows (axis rd, da_tile_rows_axis)
   and columns, each run by `loop` (batch dimension whole): the blocked
   loops keep both the transposed inputs' rows and the output's columns in
   cache, as the CUDA tiles keep them coalesced.  Element for element the
   same work. */
static void
host_tiled(const da_elementwise *e, int rd, void (*loop)(const da_elementwise *))
{
    const int cd = e->ndim - 1;
    const int64_t rows = e->shape[rd], cols = e->shape[cd];
    da_elementwise block = *e;
    da_operand *ops[3] = {&block.out, &block.in[0], &block.in[1]};
    const da_operand *from[3] = {&e->out, &e->in[0], &e->in[1]};
    int64_t r0, c0;
    int k;

    for (r0 = 0; r0 < rows; r0 += DA_TILE) {
        for (c0 = 0; c0 < cols; c0 += DA_TILE) {
            block.shape[rd] = rows - r0 < DA_TILE ? rows - r0 : DA_TILE;
            block.shape[cd] = cols - c0 < DA_TILE ? cols - c0 : DA_TILE;
            block.size = e->size / rows / cols * block.shape[rd] * block.shape[cd];
            for (k = 0; k < 3; k++) {
                if (from[k]->data != NULL) {
                    ops[k]->data = from[k]->data + r0 * from[k]->strides[rd] +
                                   c0 * from[k]->strides[cd];
                }
            }
            loop(&block);
        }
    }
}

/* loop(e), blocked when e transposes. */
static void
host_run(const da_elementwise *e, void (*loop)(const da_elementwise *))
{
    const int rd = da_tile_rows_axis(e);

    if (rd >= 0) {
        host_tiled(e, rd, loop);
    }
    else {
        loop(e);
    }
}

/* ---- elementwise entry point ------------------------------------------ */

/* Whether every array operand is contiguous and of the output's dtype, and
   that dtype is of class cls (the CUDA fast path's condition). */
static int
is_contiguous_problem(int cls, const da_elementwise *e)
{
    const int typenum = e->out.typenum;
    const int64_t itemsize = da_itemsize(typenum);
    int k;

    if (e->ndim > 1 || (int)da_class_of(typenum) != cls) {
        return 0;
    }
    if (e->ndim == 1 && e->out.strides[0] != itemsize) {
        return 0;
    }
    for (k = 0; k < e->nin; k++) {
        const da_operand *in = &e->in[k];
        if (in->data == NULL) {
            continue;
        }
        if (in->typenum != typenum || (e->ndim == 1 && in->strides[0] != itemsize)) {
            return 0;
        }
    }
    return 1;
}

int
da_host_elementwise(int op, int cls, const da_elementwise *e)
{
    int contiguous;

    if (e == NULL || e->ndim < 0 || e->ndim > DA_MAXDIMS || op < 0 ||
        op >= DA_NOPS || cls < 0 || cls >= DA_NCLASSES ||
        e->nin != (da_op_nin(op))) {
        return -1;
    }
    if (e->size <= 0) {
        return 0;
    }
    if (op == DA_OP_COPY && e->in[0].data != NULL && e->in[0].typenum == e->out.typenum) {
        host_run(e, move);
        return 0;
    }
    contiguous = is_contiguous_problem(cls, e);
    switch (op * DA_NCLASSES + cls) {
#define HOST_CASE(OP, CLS, CNAME, RESULT, RNAME, FN, EXPR) \
        case OP * DA_NCLASSES + CLS:                      \
            if (contiguous) {                             \
                contiguous_##FN(e);                       \
            }                                             \
            else {                                        \
                host_run(e, strided_##FN);                \
            }                                             \
            return 0;
        DA_FOR_EACH_KERNEL(HOST_CASE)
#undef HOST_CASE
        default:
            return -1;
    }
}
