/*
 * Number formatting as NumPy prints arrays (numpy/_core/arrayprint.py as of
 * NumPy 2.3, default options: precision 8, floatmode 'maxprec'; see
 * format.h).  Floats print the shortest digits that round-trip through
 * their own dtype, limited to 8 digits after the point; one format
 * (positional or scientific, paddings) is chosen per array from the values
 * shown.  Holds no memory beyond the text PyOS_double_to_string returns,
 * freed where it is parsed.
 */
#include "interop/format.h"

#include <math.h>
#include <string.h>

#define FORMAT_PRECISION 8

/* ---- small helpers ------------------------------------------------------ */

static int
format_is_complex(int typenum)
{
    return typenum == DA_COMPLEX64 || typenum == DA_COMPLEX128;
}

/* The real dtype whose precision a float or complex dtype's parts have. */
static int
format_part_typenum(int typenum)
{
    switch (typenum) {
        case DA_COMPLEX64:
            return DA_FLOAT32;
        case DA_COMPLEX128:
            return DA_FLOAT64;
        default:
            return typenum;
    }
}

/* ---- decimal digits ----------------------------------------------------- */

/* A finite non-negative float as decimal digits: value = d0.d1d2... x
   10^exp10, no trailing zeros (zero is "0", exponent 0). */
#define DECIMAL_MAXDIGITS 40

typedef struct {
    char digits[DECIMAL_MAXDIGITS];
    int ndigits;
    int exp10;
} decimal;

/* Parse the output of PyOS_double_to_string for a finite value >= 0. */
static void
decimal_parse(const char *s, decimal *d)
{
    int int_digits = 0, seen_point = 0, started = 0, exponent = 0, negative = 0;

    d->ndigits = 0;
    for (; *s != '\0'; s++) {
        if (*s >= '0' && *s <= '9') {
            if (!started && *s == '0') {
                /* a leading zero after the point moves the value down */
                if (seen_point) {
                    int_digits--;
                }
                continue;
            }
            started = 1;
            if (d->ndigits < DECIMAL_MAXDIGITS) {
                d->digits[d->ndigits++] = *s;
            }
            if (!seen_point) {
                int_digits++;
            }
        }
        else if (*s == '.') {
            seen_point = 1;
        }
        else if (*s == 'e' || *s == 'E') {
            for (s++; *s != '\0'; s++) {
                if (*s == '-') {
                    negative = 1;
                }
                else if (*s >= '0' && *s <= '9') {
                    exponent = exponent * 10 + (*s - '0');
                }
            }
            break;
        }
    }
    if (d->ndigits == 0) {
        d->digits[0] = '0';
        d->ndigits = 1;
        d->exp10 = 0;
        return;
    }
    while (d->ndigits > 1 && d->digits[d->ndigits - 1] == '0') {
        d->ndigits--;
    }
    d->exp10 = int_digits + (negative ? -exponent : exponent) - 1;
}

/* Format x with PyOS_double_to_string and parse it; *parsed (when not
   NULL) is the double the text reads back as. */
static int
decimal_format(double x, char code, int precision, decimal *d, double *parsed)
{
    char *text = PyOS_double_to_string(x, code, precision, 0, NULL);

    if (text == NULL) {
        return -1;
    }
    if (parsed != NULL) {
        *parsed = PyOS_string_to_double(text, NULL, NULL);
        if (*parsed == -1.0 && PyErr_Occurred()) {
            PyMem_Free(text);
            return -1;
        }
    }
    decimal_parse(text, d);
    PyMem_Free(text);
    return 0;
}

/* The shortest digits of ax (finite, >= 0, a value of the real dtype
   part_typenum) that read back as the same value of that dtype. */
static int
decimal_shortest(double ax, int part_typenum, decimal *d)
{
    int digits, max_digits = part_typenum == DA_FLOAT16 ? 5 : 9;
    double back;

    if (ax == 0.0) {
        decimal_parse("0", d);
        return 0;
    }
    if (part_typenum == DA_FLOAT64) {
        return decimal_format(ax, 'r', 0, d, NULL);
    }
    for (digits = 1; digits <= max_digits; digits++) {
        if (decimal_format(ax, 'e', digits - 1, d, &back) < 0) {
            return -1;
        }
        if (part_typenum == DA_FLOAT32
                    ? (float)back == (float)ax
                    : da_double_to_half(back) == da_double_to_half(ax)) {
            break;
        }
    }
    return 0;
}

/* The shortest digits, rounded to at most FORMAT_PRECISION digits after the
   point (positional) or after the first digit (scientific). */
static int
decimal_limited(double ax, int part_typenum, int scientific, decimal *d)
{
    if (decimal_shortest(ax, part_typenum, d) < 0) {
        return -1;
    }
    if (!scientific && d->ndigits - 1 - d->exp10 > FORMAT_PRECISION) {
        return decimal_format(ax, 'f', FORMAT_PRECISION, d, NULL);
    }
    if (scientific && d->ndigits - 1 > FORMAT_PRECISION) {
        return decimal_format(ax, 'e', FORMAT_PRECISION, d, NULL);
    }
    return 0;
}

static int
decimal_int_len(const decimal *d)
{
    return d->exp10 >= 0 ? d->exp10 + 1 : 1;
}

static int
decimal_frac_len(const decimal *d)
{
    int n = d->ndigits - 1 - d->exp10;
    return n > 0 ? n : 0;
}

/* The digit at 10^place (0 beyond the stored digits). */
static char
decimal_digit_at(const decimal *d, int place)
{
    int k = d->exp10 - place;
    return (k >= 0 && k < d->ndigits) ? d->digits[k] : '0';
}

/* Positional digits of d: "123.45", "0.001", "100." ("." always written,
   the fraction as long as it needs). */
static char *
decimal_write_positional(const decimal *d, char *w, int with_point)
{
    int place, int_len = decimal_int_len(d), frac_len = decimal_frac_len(d);

    for (place = int_len - 1; place >= 0; place--) {
        *w++ = decimal_digit_at(d, place);
    }
    if (with_point || frac_len > 0) {
        *w++ = '.';
    }
    for (place = -1; place >= -frac_len; place--) {
        *w++ = decimal_digit_at(d, place);
    }
    return w;
}

static int
decimal_exp_len(int exp10)
{
    int n = 0, e = exp10 < 0 ? -exp10 : exp10;

    do {
        n++;
        e /= 10;
    } while (e > 0);
    return n < 2 ? 2 : n;
}

/* "e+05": the exponent zero-padded to exp_len digits. */
static char *
decimal_write_exponent(int exp10, int exp_len, char *w)
{
    int e = exp10 < 0 ? -exp10 : exp10, i;

    *w++ = 'e';
    *w++ = exp10 < 0 ? '-' : '+';
    for (i = exp_len - 1; i >= 0; i--) {
        w[i] = (char)('0' + e % 10);
        e /= 10;
    }
    return w + exp_len;
}

/* ---- layouts of floats and elements ------------------------------------- */

static char *
format_spaces(char *w, int n)
{
    while (n-- > 0) {
        *w++ = ' ';
    }
    return w;
}

/* 10^(decimal precision) of float16 and float32 (numpy.finfo's 3 and 6),
   1e8 for float64: where NumPy starts writing values in scientific form. */
static double
format_sci_cutoff(int part_typenum)
{
    switch (part_typenum) {
        case DA_FLOAT16:
            return 1e3;
        case DA_FLOAT32:
            return 1e6;
        default:
            return 1e8;
    }
}

static double
format_load_part(const char *p, int typenum, int imag)
{
    if (format_is_complex(typenum)) {
        da_c128 z = da_load_c128(p, typenum);
        return imag ? z.im : z.re;
    }
    return da_load_f64(p, typenum);
}

static int
format_float_fill(format_float *f, const char *data, int64_t n, int typenum, int imag)
{
    int itemsize = da_itemsize(typenum), have_nonzero = 0, nonfinite = 0;
    int neginf = 0, frac_max = 0;
    double max_abs = 0.0, min_abs = 0.0;
    decimal d;
    int64_t i;

    memset(f, 0, sizeof *f);
    f->part_typenum = format_part_typenum(typenum);
    f->sign_plus = imag;
    for (i = 0; i < n; i++) {
        double ax = fabs(format_load_part(data + i * itemsize, typenum, imag));
        if (isfinite(ax) && ax != 0.0) {
            if (!have_nonzero || ax > max_abs) {
                max_abs = ax;
            }
            if (!have_nonzero || ax < min_abs) {
                min_abs = ax;
            }
            have_nonzero = 1;
        }
    }
    /* NumPy 2.3's cutoff: 10^min(8, decimal precision of the dtype) */
    f->scientific = have_nonzero && (max_abs >= format_sci_cutoff(f->part_typenum) ||
                                     min_abs < 1e-4 || max_abs / min_abs > 1000.0);
    for (i = 0; i < n; i++) {
        double x = format_load_part(data + i * itemsize, typenum, imag);
        int sign_len, int_len, frac_len;
        if (!isfinite(x)) {
            nonfinite = 1;
            neginf |= isinf(x) && x < 0;
            continue;
        }
        if (decimal_limited(fabs(x), f->part_typenum, f->scientific, &d) < 0) {
            return -1;
        }
        sign_len = (signbit(x) || f->sign_plus) ? 1 : 0;
        if (f->scientific) {
            int exp_len = decimal_exp_len(d.exp10);
            int_len = sign_len + 1;
            frac_len = d.ndigits - 1;
            if (exp_len > f->exp_len) {
                f->exp_len = exp_len;
            }
        }
        else {
            int_len = sign_len + decimal_int_len(&d);
            frac_len = decimal_frac_len(&d);
        }
        if (int_len > f->pad_left) {
            f->pad_left = int_len;
        }
        if (frac_len > frac_max) {
            frac_max = frac_len;
        }
    }
    if (f->scientific) {
        f->precision = frac_max;
        f->pad_right = f->exp_len + 2 + frac_max;
    }
    else {
        f->pad_right = frac_max;
    }
    if (nonfinite) {
        /* room for "nan", "inf", "-inf" (or "+inf") over the whole width */
        int offset = f->pad_right + 1;
        int inf_len = 3 + (f->sign_plus || neginf);
        if (3 - offset > f->pad_left) {
            f->pad_left = 3 - offset;
        }
        if (inf_len - offset > f->pad_left) {
            f->pad_left = inf_len - offset;
        }
    }
    return 0;
}

/* One value in the layout f; returns the end of what was written. */
static char *
format_float_write(const format_float *f, double x, char *w)
{
    char sign = signbit(x) ? '-' : (f->sign_plus ? '+' : '\0');
    decimal d;

    if (!isfinite(x)) {
        int len;
        if (isnan(x)) {
            sign = f->sign_plus ? '+' : '\0';
        }
        len = 3 + (sign != '\0');
        w = format_spaces(w, f->pad_left + f->pad_right + 1 - len);
        if (sign != '\0') {
            *w++ = sign;
        }
        memcpy(w, isnan(x) ? "nan" : "inf", 3);
        return w + 3;
    }
    if (decimal_limited(fabs(x), f->part_typenum, f->scientific, &d) < 0) {
        return NULL;
    }
    if (f->scientific) {
        int i;
        /* NumPy's min_digits: digits past the shortest ones are the exact
           value's, not zeros (they differ for float16 and float32) */
        if (d.ndigits - 1 < f->precision &&
            decimal_format(fabs(x), 'e', f->precision, &d, NULL) < 0) {
            return NULL;
        }
        w = format_spaces(w, f->pad_left - 1 - (sign != '\0'));
        if (sign != '\0') {
            *w++ = sign;
        }
        *w++ = d.digits[0];
        *w++ = '.';
        for (i = 1; i <= f->precision; i++) {
            *w++ = i < d.ndigits ? d.digits[i] : '0';
        }
        return decimal_write_exponent(d.exp10, f->exp_len, w);
    }
    w = format_spaces(w, f->pad_left - decimal_int_len(&d) - (sign != '\0'));
    if (sign != '\0') {
        *w++ = sign;
    }
    w = decimal_write_positional(&d, w, 1);
    return format_spaces(w, f->pad_right - decimal_frac_len(&d));
}

static int
format_int_text(const char *p, int typenum, char *w)
{
    if (da_class_of(typenum) == DA_CLASS_UINT) {
        return PyOS_snprintf(w, 32, "%llu",
                             (unsigned long long)da_load_uint(p, typenum));
    }
    return PyOS_snprintf(w, 32, "%lld", (long long)da_load_sint(p, typenum));
}

int
format_elem_fill(format_elem *f, const char *data, int64_t n, int typenum, int ndim)
{
    int64_t i;
    char text[32];

    memset(f, 0, sizeof *f);
    f->typenum = typenum;
    f->cls = da_class_of(typenum);
    switch (f->cls) {
        case DA_CLASS_BOOL:
            /* NumPy pads " True" to align with "False", except in 0-d */
            f->width = ndim > 0 ? 5 : 0;
            return 0;
        case DA_CLASS_SINT:
        case DA_CLASS_UINT:
            for (i = 0; i < n; i++) {
                int len =
                        format_int_text(data + i * da_itemsize(typenum), typenum, text);
                if (len > f->width) {
                    f->width = len;
                }
            }
            return 0;
        case DA_CLASS_F32:
        case DA_CLASS_F64:
            return format_float_fill(&f->re, data, n, typenum, 0);
        default:
            if (format_float_fill(&f->re, data, n, typenum, 0) < 0) {
                return -1;
            }
            return format_float_fill(&f->im, data, n, typenum, 1);
    }
}

int
format_elem_write(const format_elem *f, const char *p, char *w)
{
    char text[32], *end;
    int len;

    switch (f->cls) {
        case DA_CLASS_BOOL: {
            const char *s = da_load_bool(p, f->typenum) ? "True" : "False";
            len = (int)strlen(s);
            end = format_spaces(w, f->width - len);
            memcpy(end, s, (size_t)len);
            return (int)(end - w) + len;
        }
        case DA_CLASS_SINT:
        case DA_CLASS_UINT:
            len = format_int_text(p, f->typenum, text);
            end = format_spaces(w, f->width - len);
            memcpy(end, text, (size_t)len);
            return (int)(end - w) + len;
        case DA_CLASS_F32:
        case DA_CLASS_F64:
            end = format_float_write(&f->re, da_load_f64(p, f->typenum), w);
            return end == NULL ? -1 : (int)(end - w);
        default: {
            /* real part, then the imaginary part with 'j' before its
               right padding */
            da_c128 z = da_load_c128(p, f->typenum);
            char *imag, *digits_end;
            Py_ssize_t pad;
            end = format_float_write(&f->re, z.re, w);
            if (end == NULL) {
                return -1;
            }
            imag = end;
            end = format_float_write(&f->im, z.im, imag);
            if (end == NULL) {
                return -1;
            }
            digits_end = end;
            while (digits_end > imag && digits_end[-1] == ' ') {
                digits_end--;
            }
            pad = end - digits_end;
            *digits_end = 'j';
            end = format_spaces(digits_end + 1, (int)pad);
            return (int)(end - w);
        }
    }
}

/* ---- scalar str --------------------------------------------------------- */

/* A float the way NumPy's scalar str writes it ("0.1", "1e-05", "inf"; for
   float64 that is Python's repr), with the shortest digits of its own
   dtype; dot_zero adds ".0" to integral
   positional values, sign_plus writes '+' before non-negative ones. */
static int
format_python_float(strbuf *sb, double x, int part_typenum, int dot_zero, int sign_plus)
{
    char text[FORMAT_WORD_MAX], *w = text;
    decimal d;

    if (signbit(x) && !isnan(x)) {
        *w++ = '-';
    }
    else if (sign_plus) {
        *w++ = '+';
    }
    if (isnan(x) || isinf(x)) {
        memcpy(w, isnan(x) ? "nan" : "inf", 3);
        w += 3;
    }
    else {
        if (decimal_shortest(fabs(x), part_typenum, &d) < 0) {
            return -1;
        }
        /* NumPy's scalar str switches to scientific at 1e-4 and at a
           power of ten that depends on the precision */
        double ax = fabs(x);
        double upper =
                part_typenum == DA_FLOAT64 ? 1e16 : format_sci_cutoff(part_typenum);
        if (ax == 0.0 || (ax >= 1e-4 && ax < upper)) {
            w = decimal_write_positional(&d, w, 0);
            if (dot_zero && decimal_frac_len(&d) == 0) {
                memcpy(w, ".0", 2);
                w += 2;
            }
        }
        else {
            int i;
            *w++ = d.digits[0];
            if (d.ndigits > 1) {
                *w++ = '.';
                for (i = 1; i < d.ndigits; i++) {
                    *w++ = d.digits[i];
                }
            }
            w = decimal_write_exponent(d.exp10, decimal_exp_len(d.exp10), w);
        }
    }
    strbuf_write(sb, text, w - text);
    return 0;
}

int
format_scalar_str(strbuf *sb, const char *p, int typenum)
{
    char text[32];
    int part = format_part_typenum(typenum);

    switch (da_class_of(typenum)) {
        case DA_CLASS_BOOL:
            strbuf_puts(sb, da_load_bool(p, typenum) ? "True" : "False");
            return 0;
        case DA_CLASS_SINT:
        case DA_CLASS_UINT:
            strbuf_write(sb, text, format_int_text(p, typenum, text));
            return 0;
        case DA_CLASS_F32:
        case DA_CLASS_F64:
            return format_python_float(sb, da_load_f64(p, typenum), part, 1, 0);
        default: {
            /* Python's complex repr: a bare "2j" when the real part is +0 */
            da_c128 z = da_load_c128(p, typenum);
            if (z.re == 0.0 && !signbit(z.re)) {
                if (format_python_float(sb, z.im, part, 0, 0) < 0) {
                    return -1;
                }
                strbuf_puts(sb, "j");
                return 0;
            }
            strbuf_puts(sb, "(");
            if (format_python_float(sb, z.re, part, 0, 0) < 0 ||
                format_python_float(sb, z.im, part, 0, 1) < 0) {
                return -1;
            }
            strbuf_puts(sb, "j)");
            return 0;
        }
    }
}
