/*
 * The repr and str of an array, NumPy-style (numpy/_core/arrayprint.py as
 * of NumPy 2.3, default options: linewidth 75, threshold 1000, edgeitems 3);
 * the output is NumPy's for an ndarray subclass named DeviceArray.  The
 * numbers themselves are written by format.c.
 *
 * Ownership: the host copy of the elements shown and the text buffers come
 * from PyMem_Malloc, the device block of a summarised array's edges is a
 * temporary array; all are freed before repr_array returns.
 */
#include "interop/repr.h"

#include <string.h>

#include "base/dtype.h"
#include "interop/format.h"
#include "interop/hostcopy.h"
#include "interop/strbuf.h"

#define REPR_LINEWIDTH 75
#define REPR_THRESHOLD 1000
#define REPR_EDGEITEMS 3

/* The elements repr shows, C-ordered over `shape`: the whole array, or
   when summarised, the first and last REPR_EDGEITEMS along each long
   dimension. */
typedef struct {
    const char *data;
    int ndim;
    int64_t shape[DA_MAXDIMS];
    int64_t block[DA_MAXDIMS];  /* elements per index, C order */
    int summarised[DA_MAXDIMS]; /* "..." after REPR_EDGEITEMS items */
    format_elem format;
    const char *separator; /* ", " (repr) or " " (str) */
    int line_width;
    int indent; /* hanging indent of dimension 0 */
} repr_context;

/* NumPy's _extendLine: start a new line when the word does not fit,
   unless that would not help. */
static void
repr_extend_line(strbuf *text, strbuf *line, const char *word, int len, int width,
                 int hanging)
{
    if (line->len + len > width && line->len > hanging) {
        strbuf_rstrip(line);
        strbuf_write(text, line->data, line->len);
        strbuf_puts(text, "\n");
        line->len = 0;
        strbuf_repeat(line, ' ', hanging);
    }
    strbuf_write(line, word, len);
}

/* NumPy's _formatArray recursion, for dimension `axis` of the sub-array
   starting at element `start`; appends "[...]" to out. */
static int
repr_format_axis(const repr_context *c, int axis, int64_t start, strbuf *out)
{
    int hanging = c->indent + axis, width = c->line_width - axis;
    int axes_left = c->ndim - axis, status = -1, len, i;
    int itemsize = da_itemsize(c->format.typenum);
    int64_t n = c->shape[axis], index;
    Py_ssize_t sep_len = (Py_ssize_t)strlen(c->separator);
    strbuf text = { 0 }, line = { 0 };
    char word[FORMAT_WORD_MAX];

    if (axes_left == 1) {
        /* leave room for the "," or "]" after each element */
        int elem_width = width - 1;
        strbuf_repeat(&line, ' ', hanging);
        for (index = 0; index < n; index++) {
            const char *element = c->data + (start + index) * itemsize;
            len = format_elem_write(&c->format, element, word);
            if (len < 0) {
                goto done;
            }
            repr_extend_line(&text, &line, word, len, elem_width, hanging);
            if (index < n - 1) {
                strbuf_write(&line, c->separator, sep_len);
            }
            if (c->summarised[axis] && index == REPR_EDGEITEMS - 1) {
                repr_extend_line(&text, &line, "...", 3, elem_width, hanging);
                strbuf_write(&line, c->separator, sep_len);
            }
        }
        strbuf_write(&text, line.data, line.len);
    }
    else {
        /* rows end with the separator's non-space part and one newline per
           remaining dimension */
        Py_ssize_t row_sep_len = sep_len;
        while (row_sep_len > 0 && c->separator[row_sep_len - 1] == ' ') {
            row_sep_len--;
        }
        for (index = 0; index < n; index++) {
            strbuf_repeat(&text, ' ', hanging);
            int64_t row = start + index * c->block[axis];
            if (repr_format_axis(c, axis + 1, row, &text) < 0) {
                goto done;
            }
            if (index < n - 1) {
                strbuf_write(&text, c->separator, row_sep_len);
                for (i = 0; i < axes_left - 1; i++) {
                    strbuf_puts(&text, "\n");
                }
            }
            if (c->summarised[axis] && index == REPR_EDGEITEMS - 1) {
                strbuf_repeat(&text, ' ', hanging);
                strbuf_puts(&text, "...");
                strbuf_write(&text, c->separator, row_sep_len);
                for (i = 0; i < axes_left - 1; i++) {
                    strbuf_puts(&text, "\n");
                }
            }
        }
    }
    if (strbuf_check(&text) < 0 || strbuf_check(&line) < 0) {
        goto done;
    }
    /* the first line's hanging indent is where the "[" goes */
    strbuf_puts(out, "[");
    strbuf_write(out, text.data + hanging, text.len - hanging);
    strbuf_puts(out, "]");
    status = 0;
done:
    strbuf_release(&text);
    strbuf_release(&line);
    return status;
}

/* Copy the elements repr shows to a new host block (C order over
   c->shape); for a summarised array only the edges leave the device, one
   strided copy per corner block. */
static char *
repr_gather(DeviceArrayObject *a, repr_context *c)
{
    DeviceArrayObject *edges = NULL;
    int64_t block_shape[DA_MAXDIMS], offsets_src, offsets_dst;
    int long_dims[DA_MAXDIMS], nlong = 0, d, k;
    uint64_t corner;
    char *host = NULL;

    for (d = 0; d < a->ndim; d++) {
        c->summarised[d] = 0;
        c->shape[d] = DA_SHAPE(a)[d];
    }
    if (a->size <= REPR_THRESHOLD) {
        return hostcopy_new(a);
    }
    for (d = 0; d < a->ndim; d++) {
        if (DA_SHAPE(a)[d] > 2 * REPR_EDGEITEMS) {
            c->summarised[d] = 1;
            c->shape[d] = 2 * REPR_EDGEITEMS;
            long_dims[nlong++] = d;
        }
    }
    edges = array_new(a->backend, a->typenum, a->ndim, c->shape);
    if (edges == NULL) {
        goto done;
    }
    /* each bit of `corner` picks the leading or trailing edge of one long
       dimension */
    for (corner = 0; corner < (UINT64_C(1) << nlong); corner++) {
        offsets_src = 0;
        offsets_dst = 0;
        for (d = 0; d < a->ndim; d++) {
            block_shape[d] = c->shape[d];
        }
        for (k = 0; k < nlong; k++) {
            d = long_dims[k];
            block_shape[d] = REPR_EDGEITEMS;
            if (corner & (UINT64_C(1) << k)) {
                offsets_src += (DA_SHAPE(a)[d] - REPR_EDGEITEMS) * DA_STRIDES(a)[d];
                offsets_dst += REPR_EDGEITEMS * DA_STRIDES(edges)[d];
            }
        }
        if (hostcopy_elementwise(a->backend, a->ndim, block_shape,
                                 edges->data + offsets_dst, a->typenum,
                                 DA_STRIDES(edges), a->data + offsets_src, a->typenum,
                                 DA_STRIDES(a)) < 0) {
            goto done;
        }
    }
    host = hostcopy_new(edges);
done:
    Py_XDECREF(edges);
    return host;
}

/* NumPy's dtypes that repr leaves implied. */
static int
repr_dtype_is_implied(int typenum)
{
    return typenum == DA_FLOAT64 || typenum == DA_INT64 || typenum == DA_BOOL ||
           typenum == DA_COMPLEX128;
}

static void
repr_write_shape(strbuf *sb, const DeviceArrayObject *a)
{
    char text[32];
    int d;

    strbuf_puts(sb, "(");
    for (d = 0; d < a->ndim; d++) {
        PyOS_snprintf(text, sizeof text, d > 0 ? ", %lld" : "%lld",
                      (long long)DA_SHAPE(a)[d]);
        strbuf_puts(sb, text);
    }
    strbuf_puts(sb, a->ndim == 1 ? ",)" : ")");
}

PyObject *
repr_array(DeviceArrayObject *a, int is_repr)
{
    repr_context c;
    strbuf out = { 0 }, extras = { 0 };
    char *host = NULL, word[FORMAT_WORD_MAX];
    const char *name = Py_TYPE(a)->tp_name, *dot = strrchr(name, '.');
    int64_t shown = 1;
    Py_ssize_t prefix_len, last_line;
    PyObject *result = NULL;
    int d, len, summarised = a->size > REPR_THRESHOLD;

    /* NumPy's repr uses type(a).__name__, the tp_name after its module */
    if (dot != NULL) {
        name = dot + 1;
    }
    memset(&c, 0, sizeof c);
    if (is_repr) {
        strbuf_puts(&out, name);
        strbuf_puts(&out, "(");
    }
    prefix_len = out.len;
    if (a->size == 0) {
        strbuf_puts(&out, "[]");
    }
    else {
        host = repr_gather(a, &c);
        if (host == NULL) {
            goto done;
        }
        if (a->ndim == 0 && !is_repr) {
            if (format_scalar_str(&out, host, a->typenum) < 0) {
                goto done;
            }
            goto finish;
        }
        for (d = 0; d < a->ndim; d++) {
            shown *= c.shape[d];
        }
        if (format_elem_fill(&c.format, host, shown, a->typenum, a->ndim) < 0) {
            goto done;
        }
        if (a->ndim == 0) {
            len = format_elem_write(&c.format, host, word);
            if (len < 0) {
                goto done;
            }
            strbuf_write(&out, word, len);
        }
        else {
            c.data = host;
            c.ndim = a->ndim;
            c.block[a->ndim - 1] = 1;
            for (d = a->ndim - 2; d >= 0; d--) {
                c.block[d] = c.block[d + 1] * c.shape[d + 1];
            }
            c.separator = is_repr ? ", " : " ";
            /* repr keeps room for its closing ")" */
            c.line_width = REPR_LINEWIDTH - (is_repr ? 1 : 0);
            c.indent = (int)prefix_len + 1;
            if (repr_format_axis(&c, 0, 0, &out) < 0) {
                goto done;
            }
        }
    }
    if (is_repr) {
        if ((a->size == 0 && !(a->ndim == 1)) || summarised) {
            strbuf_puts(&extras, "shape=");
            repr_write_shape(&extras, a);
        }
        if (!repr_dtype_is_implied(a->typenum) || a->size == 0) {
            if (extras.len > 0) {
                strbuf_puts(&extras, ", ");
            }
            strbuf_puts(&extras, "dtype=");
            strbuf_puts(&extras, dtype_table[a->typenum].name);
        }
        if (extras.len > 0) {
            strbuf_puts(&out, ",");
            last_line = out.len;
            while (last_line > 0 && out.data != NULL &&
                   out.data[last_line - 1] != '\n') {
                last_line--;
            }
            last_line = out.len - last_line;
            if (last_line + extras.len + 2 > REPR_LINEWIDTH) {
                strbuf_puts(&out, "\n");
                strbuf_repeat(&out, ' ', prefix_len);
            }
            else {
                strbuf_puts(&out, " ");
            }
            strbuf_write(&out, extras.data, extras.len);
        }
        strbuf_puts(&out, ")");
    }
finish:
    if (strbuf_check(&out) < 0 || strbuf_check(&extras) < 0) {
        goto done;
    }
    result = PyUnicode_DecodeASCII(out.data, out.len, NULL);
done:
    PyMem_Free(host);
    strbuf_release(&out);
    strbuf_release(&extras);
    return result;
}
