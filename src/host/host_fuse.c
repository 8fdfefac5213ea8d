/*
 * da_host_fuse and da_fuse_convert (kernels/launch.h): the host twin of
 * kernels/fuse.cu, a fused elementwise program run as C loops.
 *
 * The program runs over tiles of HOST_FUSE_TILE elements: each instruction
 * is decoded once per tile and applied to the whole tile, each register
 * being a column of class values (da_scalar).  Every instruction calls the
 * element function of the op table (optable.h) and the casts of dtypes.h,
 * as the unfused loops of host_kernels.c do, so the results are the same
 * bits.  The registers are one heap block per call, freed before return.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/launch.h"

#define HOST_FUSE_TILE 256

/* The da_scalar member of each class, by its name in dtypes.h. */
#define HOST_FUSE_MEMBER_bool b
#define HOST_FUSE_MEMBER_sint s
#define HOST_FUSE_MEMBER_uint u
#define HOST_FUSE_MEMBER_f32 f32
#define HOST_FUSE_MEMBER_f64 f64
#define HOST_FUSE_MEMBER_c64 c64
#define HOST_FUSE_MEMBER_c128 c128
#define HOST_FUSE_MEMBER(cname) HOST_FUSE_MEMBER_I_(cname)
#define HOST_FUSE_MEMBER_I_(cname) HOST_FUSE_MEMBER_##cname

/* Store the class value v (class from) as dtype typenum at p. */
static void
host_fuse_store(void *p, int typenum, int from, const da_scalar *v)
{
    switch (from) {
        case DA_CLASS_BOOL:
            da_store_bool(p, typenum, v->b);
            break;
        case DA_CLASS_SINT:
            da_store_sint(p, typenum, v->s);
            break;
        case DA_CLASS_UINT:
            da_store_uint(p, typenum, v->u);
            break;
        case DA_CLASS_F32:
            da_store_f32(p, typenum, v->f32);
            break;
        case DA_CLASS_F64:
            da_store_f64(p, typenum, v->f64);
            break;
        case DA_CLASS_C64:
            da_store_c64(p, typenum, v->c64);
            break;
        default:
            da_store_c128(p, typenum, v->c128);
            break;
    }
}

/* Load the element of dtype typenum at p as a value of class to. */
static void
host_fuse_load(const void *p, int typenum, int to, da_scalar *v)
{
    switch (to) {
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

void
da_fuse_convert(const da_scalar *in, int from, int typenum, int to, da_scalar *out)
{
    da_scalar bytes;

    memset(&bytes, 0, sizeof bytes);
    host_fuse_store(&bytes, typenum, from, in);
    host_fuse_load(&bytes, typenum, to, out);
}

/* One (op, class) instruction over the tile: registers ra, rb -> ro. */
#define HOST_FUSE_CASE_(OP, CLS, CNAME, RESULT, RNAME, FN, EXPR)               \
    case (OP) * DA_NCLASSES + (CLS):                                           \
        for (e = 0; e < n; e++) {                                              \
            const DA_CTYPE(CNAME) a = ra[e].HOST_FUSE_MEMBER(CNAME);           \
            const DA_CTYPE(CNAME) b =                                          \
                da_op_nin(OP) == 2 ? rb[e].HOST_FUSE_MEMBER(CNAME) : a;        \
            ro[e].HOST_FUSE_MEMBER(RNAME) = FN(a, b);                          \
        }                                                                      \
        break;

#define HOST_FUSE_WHERE_(CLS, cname, unused)                                   \
    case DA_FUSE_WHERE + (CLS):                                                \
        for (e = 0; e < n; e++) {                                              \
            ro[e].HOST_FUSE_MEMBER(cname) = ra[e].b ? rb[e].HOST_FUSE_MEMBER(cname) \
                                                    : rc[e].HOST_FUSE_MEMBER(cname); \
        }                                                                      \
        break;

/* Run the instructions over the n elements of one tile; 0, or -1 for an
   unknown code. */
static int
host_fuse_tile(const da_fuse *f, da_scalar *regs, int64_t n)
{
    int t;
    int64_t e;

    for (t = 0; t < f->ninstrs; t++) {
        const da_fuse_instr *in = &f->instrs[t];
        const da_scalar *ra = regs + (size_t)in->in[0] * HOST_FUSE_TILE;
        const da_scalar *rb = regs + (size_t)in->in[1] * HOST_FUSE_TILE;
        const da_scalar *rc = regs + (size_t)in->in[2] * HOST_FUSE_TILE;
        da_scalar *ro = regs + (size_t)in->out * HOST_FUSE_TILE;
        switch (in->code) {
            DA_FOR_EACH_KERNEL(HOST_FUSE_CASE_)
            DA_CLASSES_ALL(HOST_FUSE_WHERE_, 0)
            case DA_FUSE_CONV:
                for (e = 0; e < n; e++) {
                    da_fuse_convert(&ra[e], in->from, in->typenum, in->to, &ro[e]);
                }
                break;
            default:
                return -1;
        }
    }
    return 0;
}

int
da_host_fuse(const da_fuse *f)
{
    da_scalar *regs;
    int64_t start;
    int j, status = 0;

    if (f->nregs < 1 || f->nregs > DA_FUSE_MAXREGS || f->ninstrs > DA_FUSE_MAXINSTRS ||
        f->ninputs > DA_FUSE_MAXINPUTS || f->nconsts > DA_FUSE_MAXCONSTS) {
        return -1;
    }
    if (f->size == 0) {
        return 0;
    }
    regs = (da_scalar *)calloc((size_t)f->nregs * HOST_FUSE_TILE, sizeof(da_scalar));
    if (regs == NULL) {
        return -1;
    }
    for (j = 0; j < f->nconsts; j++) {
        int64_t e;
        for (e = 0; e < HOST_FUSE_TILE; e++) {
            regs[(size_t)f->const_reg[j] * HOST_FUSE_TILE + e] = f->consts[j];
        }
    }
    for (start = 0; start < f->size && status == 0; start += HOST_FUSE_TILE) {
        const int64_t n = f->size - start < HOST_FUSE_TILE ? f->size - start : HOST_FUSE_TILE;
        const int out_size = da_itemsize(f->out_typenum);
        const int out_cls = da_class_of(f->out_typenum);
        int64_t e;
        for (j = 0; j < f->ninputs; j++) {
            const int typenum = f->in_typenum[j];
            const int size = da_itemsize(typenum);
            const int cls = da_class_of(typenum);
            da_scalar *r = regs + (size_t)f->in_reg[j] * HOST_FUSE_TILE;
            for (e = 0; e < n; e++) {
                const int64_t i = f->in_bcast[j] ? 0 : start + e;
                host_fuse_load(f->in[j] + i * size, typenum, cls, &r[e]);
            }
        }
        status = host_fuse_tile(f, regs, n);
        for (e = 0; e < n && status == 0; e++) {
            host_fuse_store(f->out + (start + e) * out_size, f->out_typenum, out_cls,
                            &regs[(size_t)f->out_reg * HOST_FUSE_TILE + e]);
        }
    }
    free(regs);
    return status;
}
