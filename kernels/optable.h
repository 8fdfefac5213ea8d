/*
 * The elementwise ops: the one place where an op is defined.  Everything
 * else is generated from the two tables below: the op enum, the element
 * functions, the CUDA kernels and host loops that both backends instantiate
 * (kernels/elementwise.cu, src/host/host_kernels.c), the type resolution of the
 * Python functions and their registration as devarray.<name> (src/ops/ufunc.c).
 * docs/design.md walks through adding an op.
 *
 * DA_FOR_EACH_OP(X): one row per op, X(ID, name, nin, rule, doc):
 *   ID    the op is DA_OP_<ID>;
 *   name  its Python function, devarray.<name>;
 *   nin   1 or 2 operands;
 *   rule  how the operands' promoted dtype (NumPy 2's result_type, NEP 50
 *         for Python scalars) becomes the dtype the op computes in:
 *           SAME     the promoted dtype itself;
 *           FLOAT64  bool and integers compute in float64 (true division);
 *           INEXACT  bool and integers compute in the smallest float that
 *                    holds them, as NumPy's math functions do (bool, int8,
 *                    uint8 -> float16; int16, uint16 -> float32; wider ->
 *                    float64);
 *           NUMBER   the promoted dtype, but bool computes in int8 (NumPy
 *                    has no bool loop for these; int8's is the first one
 *                    bool casts to: floor_divide(bool, bool) is int8);
 *           BOOL     every operand computes as bool (x != 0, NaN is true),
 *                    as NumPy's logical functions take any dtype;
 *   doc   the docstring after the signature; "" for an op that is not a
 *         Python function (COPY: casts and copies).
 *
 * DA_FOR_EACH_LOOP(L, P): the element expressions, one or more rows per op,
 * L(P, ID, classes, result, expression) (P is the table's caller's):
 *   classes     the compute classes the expression serves: one of the
 *               DA_CLASSES_<group> below;
 *   result      SAME (the computed dtype), BOOL, or REAL (a complex class's
 *               real dtype: complex64 -> float32; a real class's own dtype);
 *   expression  in `a` (and `b` for binary ops), values of the class's C
 *               type (dtypes.h), written with the functions of ops.h,
 *               ops_int.h and ops_math.h; it must read the same on the
 *               host (C11) and on the GPU (CUDA C++).
 * A dtype whose class has no loop for an op (nor a DA_FOR_EACH_COPY row,
 * below) is a TypeError.
 */
#ifndef DEVARRAY_KERNELS_OPTABLE_H_
#define DEVARRAY_KERNELS_OPTABLE_H_

#include "ops.h"
#include "ops_int.h"
#include "ops_math.h"
/* DA_NO_COMPLEX_LOOPS: the table without its complex rows, for the
   run-time compiler (src/runtime/jit.c), which has no thrust to build them with. */
#ifndef DA_NO_COMPLEX_LOOPS
#include "ops_complex.h"
#endif

/* clang-format off */
#define DA_FOR_EACH_OP(X)                                                     \
    X(ADD,   add,      2, SAME,    "Add x1 and x2 elementwise (x1 + x2).")    \
    X(SUB,   subtract, 2, SAME,    "Subtract x2 from x1 elementwise (x1 - x2).") \
    X(MUL,   multiply, 2, SAME,    "Multiply x1 and x2 elementwise (x1 * x2).") \
    X(DIV,   divide,   2, FLOAT64, "Divide x1 by x2 elementwise (x1 / x2).")  \
    X(HYPOT, hypot,    2, INEXACT, "sqrt(x1**2 + x2**2) elementwise, "        \
                                   "without undue overflow or underflow.")    \
    X(NEG,   negative, 1, SAME,    "The numerical negative of x elementwise (-x).") \
    X(ABS,   abs,      1, SAME,    "The absolute value of x elementwise; for " \
                                   "complex x, its magnitude.")               \
    X(COPY,  copy,     1, SAME,    "")                                        \
    X(EQUAL, equal,    2, SAME,    "x1 == x2 elementwise, as a bool array.")  \
    X(NOT_EQUAL, not_equal, 2, SAME, "x1 != x2 elementwise, as a bool array.") \
    X(LESS,  less,     2, SAME,    "x1 < x2 elementwise, as a bool array.")   \
    X(LESS_EQUAL, less_equal, 2, SAME,                                        \
      "x1 <= x2 elementwise, as a bool array.")                               \
    X(GREATER, greater, 2, SAME,   "x1 > x2 elementwise, as a bool array.")   \
    X(GREATER_EQUAL, greater_equal, 2, SAME,                                  \
      "x1 >= x2 elementwise, as a bool array.")                               \
    X(FLOOR_DIVIDE, floor_divide, 2, NUMBER,                                  \
      "The floor of x1 / x2 elementwise (x1 // x2); integer division by "     \
      "zero gives 0.")                                                        \
    X(REMAINDER, remainder, 2, NUMBER,                                        \
      "x1 - floor_divide(x1, x2) * x2 elementwise (x1 % x2), with the sign "  \
      "of x2; integer division by zero gives 0.")                             \
    X(POW,   pow,      2, NUMBER,  "x1 raised to the power x2 elementwise "   \
                                   "(x1 ** x2); integers wrap, and a negative " \
                                   "integer exponent gives 1 / x1 truncated " \
                                   "toward zero (0 for x1 == 0).")            \
    X(BITWISE_AND, bitwise_and, 2, SAME, "x1 & x2 elementwise (bool and "     \
                                   "integers).")                              \
    X(BITWISE_OR, bitwise_or, 2, SAME, "x1 | x2 elementwise (bool and "       \
                                   "integers).")                              \
    X(BITWISE_XOR, bitwise_xor, 2, SAME, "x1 ^ x2 elementwise (bool and "     \
                                   "integers).")                              \
    X(BITWISE_INVERT, bitwise_invert, 1, SAME, "~x elementwise: the bits "    \
                                   "of an integer inverted, a bool negated.") \
    X(BITWISE_LEFT_SHIFT, bitwise_left_shift, 2, NUMBER,                      \
      "x1 << x2 elementwise (integers); a count past the width, or "          \
      "negative, gives 0.")                                                   \
    X(BITWISE_RIGHT_SHIFT, bitwise_right_shift, 2, NUMBER,                    \
      "x1 >> x2 elementwise (integers, arithmetic shift); a count past the "  \
      "width, or negative, gives 0, or -1 for negative x1.")                  \
    X(ACOS, acos, 1, INEXACT,                                                 \
      "The principal inverse cosine of x elementwise, in radians.")           \
    X(ACOSH, acosh, 1, INEXACT,                                               \
      "The inverse hyperbolic cosine of x elementwise.")                      \
    X(ASIN, asin, 1, INEXACT,                                                 \
      "The principal inverse sine of x elementwise, in radians.")             \
    X(ASINH, asinh, 1, INEXACT,                                               \
      "The inverse hyperbolic sine of x elementwise.")                        \
    X(ATAN, atan, 1, INEXACT,                                                 \
      "The principal inverse tangent of x elementwise, in radians.")          \
    X(ATANH, atanh, 1, INEXACT,                                               \
      "The inverse hyperbolic tangent of x elementwise.")                     \
    X(COS, cos, 1, INEXACT,                                                   \
      "The cosine of x (radians) elementwise.")                               \
    X(COSH, cosh, 1, INEXACT,                                                 \
      "The hyperbolic cosine of x elementwise.")                              \
    X(EXP, exp, 1, INEXACT,                                                   \
      "e raised to the power x elementwise.")                                 \
    X(EXPM1, expm1, 1, INEXACT,                                               \
      "exp(x) - 1 elementwise, accurate for small x.")                        \
    X(LOG, log, 1, INEXACT,                                                   \
      "The natural logarithm of x elementwise.")                              \
    X(LOG1P, log1p, 1, INEXACT,                                               \
      "log(1 + x) elementwise, accurate for small x.")                        \
    X(LOG2, log2, 1, INEXACT,                                                 \
      "The base-2 logarithm of x elementwise.")                               \
    X(LOG10, log10, 1, INEXACT,                                               \
      "The base-10 logarithm of x elementwise.")                              \
    X(SIN, sin, 1, INEXACT,                                                   \
      "The sine of x (radians) elementwise.")                                 \
    X(SINH, sinh, 1, INEXACT,                                                 \
      "The hyperbolic sine of x elementwise.")                                \
    X(SQRT, sqrt, 1, INEXACT,                                                 \
      "The principal square root of x elementwise.")                          \
    X(TAN, tan, 1, INEXACT,                                                   \
      "The tangent of x (radians) elementwise.")                              \
    X(TANH, tanh, 1, INEXACT,                                                 \
      "The hyperbolic tangent of x elementwise.")                             \
    X(ATAN2, atan2, 2, INEXACT,                                               \
      "The angle of the point (x2, x1) elementwise, in radians: the "         \
      "inverse tangent of x1 / x2 in the right quadrant.")                    \
    X(COPYSIGN, copysign, 2, INEXACT,                                         \
      "The magnitude of x1 with the sign bit of x2, elementwise.")            \
    X(LOGADDEXP, logaddexp, 2, INEXACT,                                       \
      "log(exp(x1) + exp(x2)) elementwise, without overflow.")                \
    X(NEXTAFTER, nextafter, 2, INEXACT,                                       \
      "The next representable value after x1 toward x2, elementwise.")        \
    X(NEXTAFTER_HALF, nextafter_half, 2, SAME, "")                            \
    X(CEIL, ceil, 1, SAME,                                                    \
      "The smallest integer-valued number >= x elementwise; integers "        \
      "and bool are returned unchanged.")                                     \
    X(FLOOR, floor, 1, SAME,                                                  \
      "The largest integer-valued number <= x elementwise; integers and "     \
      "bool are returned unchanged.")                                         \
    X(TRUNC, trunc, 1, SAME,                                                  \
      "x rounded toward zero to an integer-valued number elementwise; "       \
      "integers and bool are returned unchanged.")                            \
    X(ROUND, round, 1, SAME,                                                  \
      "x rounded to the nearest integer-valued number elementwise, "          \
      "halves to even; integers are returned unchanged.")                     \
    X(CONJ, conj, 1, NUMBER,                                                  \
      "The complex conjugate of x elementwise; a real x unchanged (bool "     \
      "as int8, as NumPy).")                                                  \
    X(REAL, real, 1, SAME,                                                    \
      "The real part of x elementwise; a real x unchanged.")                  \
    X(IMAG, imag, 1, SAME,                                                    \
      "The imaginary part of x elementwise; zeros of x's dtype for a "        \
      "real x.")                                                              \
    X(ISFINITE, isfinite, 1, INEXACT,                                         \
      "Whether x is finite (neither infinite nor NaN) elementwise, as a "     \
      "bool array.")                                                          \
    X(ISINF, isinf, 1, INEXACT,                                               \
      "Whether x is +-infinity elementwise, as a bool array.")                \
    X(ISNAN, isnan, 1, INEXACT,                                               \
      "Whether x is NaN elementwise, as a bool array.")                       \
    X(SIGNBIT, signbit, 1, INEXACT,                                           \
      "Whether the sign bit of x is set elementwise (true for -0.0 and "      \
      "negative NaNs), as a bool array.")                                     \
    X(LOGICAL_AND, logical_and, 2, BOOL,                                      \
      "x1 and x2 elementwise, as a bool array (operands of any dtype "        \
      "are true where nonzero).")                                             \
    X(LOGICAL_OR, logical_or, 2, BOOL,                                        \
      "x1 or x2 elementwise, as a bool array (operands of any dtype are "     \
      "true where nonzero).")                                                 \
    X(LOGICAL_XOR, logical_xor, 2, BOOL,                                      \
      "x1 xor x2 elementwise, as a bool array (operands of any dtype "        \
      "are true where nonzero).")                                             \
    X(LOGICAL_NOT, logical_not, 1, BOOL,                                      \
      "not x elementwise, as a bool array (x of any dtype is true where "     \
      "nonzero).")                                                            \
    X(MAXIMUM, maximum, 2, SAME,                                              \
      "The larger of x1 and x2 elementwise; NaN if either is NaN.")           \
    X(MINIMUM, minimum, 2, SAME,                                              \
      "The smaller of x1 and x2 elementwise; NaN if either is NaN.")          \
    X(POSITIVE, positive, 1, SAME,                                            \
      "+x elementwise (a copy).")                                             \
    X(RECIPROCAL, reciprocal, 1, NUMBER,                                      \
      "1 / x elementwise, in x's dtype (integers truncate; 1 / 0 is 0).")     \
    X(SIGN, sign, 1, SAME,                                                    \
      "-1, 0 or 1 by the sign of x elementwise; NaN for NaN.")                \
    X(SQUARE, square, 1, NUMBER,                                              \
      "x * x elementwise.")

#define DA_FOR_EACH_LOOP(L, P)                                                \
    L(P, ADD,   BOOL,  SAME, da_bool_add(a, b))                               \
    L(P, ADD,   SINT,  SAME, da_sint_add(a, b))                               \
    L(P, ADD,   UINT,  SAME, da_uint_add(a, b))                               \
    L(P, ADD,   F32,   SAME, da_f32_add(a, b))                                \
    L(P, ADD,   F64,   SAME, da_f64_add(a, b))                                \
    L(P, ADD,   C64,   SAME, da_c64_add(a, b))                                \
    L(P, ADD,   C128,  SAME, da_c128_add(a, b))                               \
    L(P, SUB,   SINT,  SAME, da_sint_sub(a, b))                               \
    L(P, SUB,   UINT,  SAME, da_uint_sub(a, b))                               \
    L(P, SUB,   F32,   SAME, da_f32_sub(a, b))                                \
    L(P, SUB,   F64,   SAME, da_f64_sub(a, b))                                \
    L(P, SUB,   C64,   SAME, da_c64_sub(a, b))                                \
    L(P, SUB,   C128,  SAME, da_c128_sub(a, b))                               \
    L(P, MUL,   BOOL,  SAME, da_bool_mul(a, b))                               \
    L(P, MUL,   SINT,  SAME, da_sint_mul(a, b))                               \
    L(P, MUL,   UINT,  SAME, da_uint_mul(a, b))                               \
    L(P, MUL,   F32,   SAME, da_f32_mul(a, b))                                \
    L(P, MUL,   F64,   SAME, da_f64_mul(a, b))                                \
    L(P, MUL,   C64,   SAME, da_c64_mul(a, b))                                \
    L(P, MUL,   C128,  SAME, da_c128_mul(a, b))                               \
    L(P, DIV,   F32,   SAME, da_f32_div(a, b))                                \
    L(P, DIV,   F64,   SAME, da_f64_div(a, b))                                \
    L(P, DIV,   C64,   SAME, da_c64_div(a, b))                                \
    L(P, DIV,   C128,  SAME, da_c128_div(a, b))                               \
    L(P, HYPOT, FLOAT, SAME, da_math2(hypot, a, b))                           \
    L(P, NEG,   SINT,  SAME, da_sint_neg(a))                                  \
    L(P, NEG,   UINT,  SAME, da_uint_neg(a))                                  \
    L(P, NEG,   F32,   SAME, da_f32_neg(a))                                   \
    L(P, NEG,   F64,   SAME, da_f64_neg(a))                                   \
    L(P, NEG,   C64,   SAME, da_c64_neg(a))                                   \
    L(P, NEG,   C128,  SAME, da_c128_neg(a))                                  \
    L(P, ABS,   BOOL,  SAME, da_bool_abs(a))                                  \
    L(P, ABS,   SINT,  SAME, da_sint_abs(a))                                  \
    L(P, ABS,   UINT,  SAME, da_uint_abs(a))                                  \
    L(P, ABS,   F32,   SAME, da_f32_abs(a))                                   \
    L(P, ABS,   F64,   SAME, da_f64_abs(a))                                   \
    L(P, ABS,   C64,   REAL, da_c64_abs(a))                                   \
    L(P, ABS,   C128,  REAL, da_c128_abs(a))                                  \
    L(P, COPY,  ALL,   SAME, a)                                               \
    L(P, EQUAL, NOTCOMPLEX, BOOL, da_bool_of(a == b))                         \
    L(P, NOT_EQUAL, NOTCOMPLEX, BOOL, da_bool_of(a != b))                     \
    L(P, LESS,  NOTCOMPLEX, BOOL, da_bool_of(a < b))                          \
    L(P, LESS_EQUAL, NOTCOMPLEX, BOOL, da_bool_of(a <= b))                    \
    L(P, GREATER, NOTCOMPLEX, BOOL, da_bool_of(a > b))                        \
    L(P, GREATER_EQUAL, NOTCOMPLEX, BOOL, da_bool_of(a >= b))                 \
    L(P, FLOOR_DIVIDE, SINT, SAME, da_sint_floor_divide(a, b))                \
    L(P, FLOOR_DIVIDE, UINT, SAME, da_uint_floor_divide(a, b))                \
    L(P, FLOOR_DIVIDE, F32, SAME, da_f32_floor_divide(a, b))                  \
    L(P, FLOOR_DIVIDE, F64, SAME, da_f64_floor_divide(a, b))                  \
    L(P, REMAINDER, SINT, SAME, da_sint_remainder(a, b))                      \
    L(P, REMAINDER, UINT, SAME, da_uint_remainder(a, b))                      \
    L(P, REMAINDER, F32, SAME, da_f32_remainder(a, b))                        \
    L(P, REMAINDER, F64, SAME, da_f64_remainder(a, b))                        \
    L(P, POW,   SINT,  SAME, da_sint_pow(a, b))                               \
    L(P, POW,   UINT,  SAME, da_uint_pow(a, b))                               \
    L(P, POW,   FLOAT, SAME, da_math2(pow, a, b))                             \
    L(P, BITWISE_AND, BOOL, SAME, da_bool_and(a, b))                          \
    L(P, BITWISE_AND, SINT, SAME, da_sint_and(a, b))                          \
    L(P, BITWISE_AND, UINT, SAME, da_uint_and(a, b))                          \
    L(P, BITWISE_OR, BOOL, SAME, da_bool_or(a, b))                            \
    L(P, BITWISE_OR, SINT, SAME, da_sint_or(a, b))                            \
    L(P, BITWISE_OR, UINT, SAME, da_uint_or(a, b))                            \
    L(P, BITWISE_XOR, BOOL, SAME, da_bool_xor(a, b))                          \
    L(P, BITWISE_XOR, SINT, SAME, da_sint_xor(a, b))                          \
    L(P, BITWISE_XOR, UINT, SAME, da_uint_xor(a, b))                          \
    L(P, BITWISE_INVERT, BOOL, SAME, da_bool_not(a))                          \
    L(P, BITWISE_INVERT, SINT, SAME, da_sint_invert(a))                       \
    L(P, BITWISE_INVERT, UINT, SAME, da_uint_invert(a))                       \
    L(P, BITWISE_LEFT_SHIFT, SINT, SAME, da_sint_left_shift(a, b))            \
    L(P, BITWISE_LEFT_SHIFT, UINT, SAME, da_uint_left_shift(a, b))            \
    L(P, BITWISE_RIGHT_SHIFT, SINT, SAME, da_sint_right_shift(a, b))          \
    L(P, BITWISE_RIGHT_SHIFT, UINT, SAME, da_uint_right_shift(a, b))          \
    L(P, ACOS, FLOAT, SAME, da_math1(acos, a))                                \
    L(P, ACOSH, FLOAT, SAME, da_math1(acosh, a))                              \
    L(P, ASIN, FLOAT, SAME, da_math1(asin, a))                                \
    L(P, ASINH, FLOAT, SAME, da_math1(asinh, a))                              \
    L(P, ATAN, FLOAT, SAME, da_math1(atan, a))                                \
    L(P, ATANH, FLOAT, SAME, da_math1(atanh, a))                              \
    L(P, COS, FLOAT, SAME, da_math1(cos, a))                                  \
    L(P, COSH, FLOAT, SAME, da_math1(cosh, a))                                \
    L(P, EXP, FLOAT, SAME, da_math1(exp, a))                                  \
    L(P, EXPM1, FLOAT, SAME, da_math1(expm1, a))                              \
    L(P, LOG, FLOAT, SAME, da_math1(log, a))                                  \
    L(P, LOG1P, FLOAT, SAME, da_math1(log1p, a))                              \
    L(P, LOG2, FLOAT, SAME, da_math1(log2, a))                                \
    L(P, LOG10, FLOAT, SAME, da_math1(log10, a))                              \
    L(P, SIN, FLOAT, SAME, da_math1(sin, a))                                  \
    L(P, SINH, FLOAT, SAME, da_math1(sinh, a))                                \
    L(P, SQRT, FLOAT, SAME, da_math1(sqrt, a))                                \
    L(P, TAN, FLOAT, SAME, da_math1(tan, a))                                  \
    L(P, TANH, FLOAT, SAME, da_math1(tanh, a))                                \
    L(P, ATAN2, FLOAT, SAME, da_math2(atan2, a, b))                           \
    L(P, COPYSIGN, FLOAT, SAME, da_math2(copysign, a, b))                     \
    L(P, LOGADDEXP, F32, SAME, da_f32_logaddexp(a, b))                        \
    L(P, LOGADDEXP, F64, SAME, da_f64_logaddexp(a, b))                        \
    L(P, NEXTAFTER, FLOAT, SAME, da_math2(nextafter, a, b))                   \
    L(P, NEXTAFTER_HALF, F32, SAME, da_f32_nextafter_half(a, b))              \
    L(P, CEIL, FLOAT, SAME, da_math1(ceil, a))                                \
    L(P, FLOOR, FLOAT, SAME, da_math1(floor, a))                              \
    L(P, TRUNC, FLOAT, SAME, da_math1(trunc, a))                              \
    L(P, ROUND, FLOAT, SAME, da_math1(rint, a))                               \
    L(P, IMAG, NOTCOMPLEX, SAME, 0)                                           \
    L(P, ISFINITE, FLOAT, BOOL, da_bool_of(isfinite(a)))                      \
    L(P, ISINF, FLOAT, BOOL, da_bool_of(isinf(a)))                            \
    L(P, ISNAN, FLOAT, BOOL, da_bool_of(isnan(a)))                            \
    L(P, SIGNBIT, F32, BOOL, da_f32_signbit(a))                               \
    L(P, SIGNBIT, F64, BOOL, da_f64_signbit(a))                               \
    L(P, LOGICAL_AND, BOOL, SAME, da_bool_and(a, b))                          \
    L(P, LOGICAL_OR, BOOL, SAME, da_bool_or(a, b))                            \
    L(P, LOGICAL_XOR, BOOL, SAME, da_bool_xor(a, b))                          \
    L(P, LOGICAL_NOT, BOOL, SAME, da_bool_not(a))                             \
    L(P, MAXIMUM, BOOL, SAME, da_bool_or(a, b))                               \
    L(P, MAXIMUM, SINT, SAME, da_sint_max(a, b))                              \
    L(P, MAXIMUM, UINT, SAME, da_uint_max(a, b))                              \
    L(P, MAXIMUM, F32, SAME, da_f32_max(a, b))                                \
    L(P, MAXIMUM, F64, SAME, da_f64_max(a, b))                                \
    L(P, MINIMUM, BOOL, SAME, da_bool_and(a, b))                              \
    L(P, MINIMUM, SINT, SAME, da_sint_min(a, b))                              \
    L(P, MINIMUM, UINT, SAME, da_uint_min(a, b))                              \
    L(P, MINIMUM, F32, SAME, da_f32_min(a, b))                                \
    L(P, MINIMUM, F64, SAME, da_f64_min(a, b))                                \
    L(P, RECIPROCAL, SINT, SAME, da_sint_reciprocal(a))                       \
    L(P, RECIPROCAL, UINT, SAME, da_uint_reciprocal(a))                       \
    L(P, RECIPROCAL, FLOAT, SAME, 1 / a)                                      \
    L(P, SIGN, SINT, SAME, da_sint_sign(a))                                   \
    L(P, SIGN, UINT, SAME, da_uint_sign(a))                                   \
    L(P, SIGN, F32, SAME, da_f32_sign(a))                                     \
    L(P, SIGN, F64, SAME, da_f64_sign(a))                                     \
    L(P, SQUARE, SINT, SAME, da_sint_mul(a, a))                               \
    L(P, SQUARE, UINT, SAME, da_uint_mul(a, a))                               \
    L(P, SQUARE, FLOAT, SAME, a * a)                                          \
    DA_FOR_EACH_COMPLEX_LOOP(L, P)

/* The loops of the complex classes beyond arithmetic and abs: the complex
   element functions of ops_complex.h. */
#define DA_FOR_EACH_COMPLEX_LOOP(L, P)                                        \
    L(P, ACOS, C64, SAME, da_c64_acos(a))                                     \
    L(P, ACOS, C128, SAME, da_c128_acos(a))                                   \
    L(P, ACOSH, C64, SAME, da_c64_acosh(a))                                   \
    L(P, ACOSH, C128, SAME, da_c128_acosh(a))                                 \
    L(P, ASIN, C64, SAME, da_c64_asin(a))                                     \
    L(P, ASIN, C128, SAME, da_c128_asin(a))                                   \
    L(P, ASINH, C64, SAME, da_c64_asinh(a))                                   \
    L(P, ASINH, C128, SAME, da_c128_asinh(a))                                 \
    L(P, ATAN, C64, SAME, da_c64_atan(a))                                     \
    L(P, ATAN, C128, SAME, da_c128_atan(a))                                   \
    L(P, ATANH, C64, SAME, da_c64_atanh(a))                                   \
    L(P, ATANH, C128, SAME, da_c128_atanh(a))                                 \
    L(P, COS, C64, SAME, da_c64_cos(a))                                       \
    L(P, COS, C128, SAME, da_c128_cos(a))                                     \
    L(P, COSH, C64, SAME, da_c64_cosh(a))                                     \
    L(P, COSH, C128, SAME, da_c128_cosh(a))                                   \
    L(P, EXP, C64, SAME, da_c64_exp(a))                                       \
    L(P, EXP, C128, SAME, da_c128_exp(a))                                     \
    L(P, EXPM1, C64, SAME, da_c64_expm1(a))                                   \
    L(P, EXPM1, C128, SAME, da_c128_expm1(a))                                 \
    L(P, LOG, C64, SAME, da_c64_log(a))                                       \
    L(P, LOG, C128, SAME, da_c128_log(a))                                     \
    L(P, LOG1P, C64, SAME, da_c64_log1p(a))                                   \
    L(P, LOG1P, C128, SAME, da_c128_log1p(a))                                 \
    L(P, LOG2, C64, SAME, da_c64_log2(a))                                     \
    L(P, LOG2, C128, SAME, da_c128_log2(a))                                   \
    L(P, LOG10, C64, SAME, da_c64_log10(a))                                   \
    L(P, LOG10, C128, SAME, da_c128_log10(a))                                 \
    L(P, RECIPROCAL, C64, SAME, da_c64_reciprocal(a))                         \
    L(P, RECIPROCAL, C128, SAME, da_c128_reciprocal(a))                       \
    L(P, SIN, C64, SAME, da_c64_sin(a))                                       \
    L(P, SIN, C128, SAME, da_c128_sin(a))                                     \
    L(P, SINH, C64, SAME, da_c64_sinh(a))                                     \
    L(P, SINH, C128, SAME, da_c128_sinh(a))                                   \
    L(P, SQRT, C64, SAME, da_c64_sqrt(a))                                     \
    L(P, SQRT, C128, SAME, da_c128_sqrt(a))                                   \
    L(P, TAN, C64, SAME, da_c64_tan(a))                                       \
    L(P, TAN, C128, SAME, da_c128_tan(a))                                     \
    L(P, TANH, C64, SAME, da_c64_tanh(a))                                     \
    L(P, TANH, C128, SAME, da_c128_tanh(a))                                   \
    L(P, CONJ, C64, SAME, da_c64_conj(a))                                     \
    L(P, CONJ, C128, SAME, da_c128_conj(a))                                   \
    L(P, ROUND, C64, SAME, da_c64_round(a))                                   \
    L(P, ROUND, C128, SAME, da_c128_round(a))                                 \
    L(P, SIGN, C64, SAME, da_c64_sign(a))                                     \
    L(P, SIGN, C128, SAME, da_c128_sign(a))                                   \
    L(P, SQUARE, C64, SAME, da_c64_square(a))                                 \
    L(P, SQUARE, C128, SAME, da_c128_square(a))                               \
    L(P, REAL, C64, REAL, da_c64_real(a))                                     \
    L(P, REAL, C128, REAL, da_c128_real(a))                                   \
    L(P, IMAG, C64, REAL, da_c64_imag(a))                                     \
    L(P, IMAG, C128, REAL, da_c128_imag(a))                                   \
    L(P, ISFINITE, C64, BOOL, da_c64_isfinite(a))                             \
    L(P, ISFINITE, C128, BOOL, da_c128_isfinite(a))                           \
    L(P, ISINF, C64, BOOL, da_c64_isinf(a))                                   \
    L(P, ISINF, C128, BOOL, da_c128_isinf(a))                                 \
    L(P, ISNAN, C64, BOOL, da_c64_isnan(a))                                   \
    L(P, ISNAN, C128, BOOL, da_c128_isnan(a))                                 \
    L(P, EQUAL, C64, BOOL, da_c64_equal(a, b))                                \
    L(P, EQUAL, C128, BOOL, da_c128_equal(a, b))                              \
    L(P, NOT_EQUAL, C64, BOOL, da_c64_not_equal(a, b))                        \
    L(P, NOT_EQUAL, C128, BOOL, da_c128_not_equal(a, b))                      \
    L(P, LESS, C64, BOOL, da_c64_less(a, b))                                  \
    L(P, LESS, C128, BOOL, da_c128_less(a, b))                                \
    L(P, LESS_EQUAL, C64, BOOL, da_c64_less_equal(a, b))                      \
    L(P, LESS_EQUAL, C128, BOOL, da_c128_less_equal(a, b))                    \
    L(P, GREATER, C64, BOOL, da_c64_less(b, a))                               \
    L(P, GREATER, C128, BOOL, da_c128_less(b, a))                             \
    L(P, GREATER_EQUAL, C64, BOOL, da_c64_less_equal(b, a))                   \
    L(P, GREATER_EQUAL, C128, BOOL, da_c128_less_equal(b, a))                 \
    L(P, MAXIMUM, C64, SAME, da_c64_maximum(a, b))                            \
    L(P, MAXIMUM, C128, SAME, da_c128_maximum(a, b))                          \
    L(P, MINIMUM, C64, SAME, da_c64_minimum(a, b))                            \
    L(P, MINIMUM, C128, SAME, da_c128_minimum(a, b))                          \
    L(P, POW, C64, SAME, da_c64_pow(a, b))                                    \
    L(P, POW, C128, SAME, da_c128_pow(a, b))

/* DA_FOR_EACH_COPY(C): C(ID, classes): on these classes the op's value is
   its operand's (ceil of an integer, real of a float, ...): it runs as
   COPY (a cast to the result dtype, or a plain copy of the memory), so no
   kernel is instantiated for it. */
#define DA_FOR_EACH_COPY(C)                                                   \
    C(CEIL, BOOLINT)                                                          \
    C(FLOOR, BOOLINT)                                                         \
    C(TRUNC, BOOLINT)                                                         \
    C(ROUND, INT)                                                             \
    C(CONJ, REAL)                                                             \
    C(REAL, NOTCOMPLEX)                                                       \
    C(POSITIVE, REAL)                                                         \
    C(POSITIVE, COMPLEX)

/* The class groups a loop row may name: Y(DA_CLASS_<X>, cname, ...) for
   each class in the group; cname is the class's name in dtypes.h. */
#define DA_CLASSES_BOOL(Y, ...) Y(DA_CLASS_BOOL, bool, __VA_ARGS__)
#define DA_CLASSES_SINT(Y, ...) Y(DA_CLASS_SINT, sint, __VA_ARGS__)
#define DA_CLASSES_UINT(Y, ...) Y(DA_CLASS_UINT, uint, __VA_ARGS__)
#define DA_CLASSES_F32(Y, ...) Y(DA_CLASS_F32, f32, __VA_ARGS__)
#define DA_CLASSES_F64(Y, ...) Y(DA_CLASS_F64, f64, __VA_ARGS__)
#ifdef DA_NO_COMPLEX_LOOPS
#define DA_CLASSES_C64(Y, ...)
#define DA_CLASSES_C128(Y, ...)
#else
#define DA_CLASSES_C64(Y, ...) Y(DA_CLASS_C64, c64, __VA_ARGS__)
#define DA_CLASSES_C128(Y, ...) Y(DA_CLASS_C128, c128, __VA_ARGS__)
#endif
#define DA_CLASSES_INT(Y, ...) DA_CLASSES_SINT(Y, __VA_ARGS__) DA_CLASSES_UINT(Y, __VA_ARGS__)
#define DA_CLASSES_FLOAT(Y, ...) DA_CLASSES_F32(Y, __VA_ARGS__) DA_CLASSES_F64(Y, __VA_ARGS__)
#define DA_CLASSES_COMPLEX(Y, ...) DA_CLASSES_C64(Y, __VA_ARGS__) DA_CLASSES_C128(Y, __VA_ARGS__)
#define DA_CLASSES_REAL(Y, ...) DA_CLASSES_INT(Y, __VA_ARGS__) DA_CLASSES_FLOAT(Y, __VA_ARGS__)
#define DA_CLASSES_INEXACT(Y, ...) DA_CLASSES_FLOAT(Y, __VA_ARGS__) DA_CLASSES_COMPLEX(Y, __VA_ARGS__)
#define DA_CLASSES_BOOLINT(Y, ...) DA_CLASSES_BOOL(Y, __VA_ARGS__) DA_CLASSES_INT(Y, __VA_ARGS__)
#define DA_CLASSES_NOTCOMPLEX(Y, ...) DA_CLASSES_BOOL(Y, __VA_ARGS__) DA_CLASSES_REAL(Y, __VA_ARGS__)
#define DA_CLASSES_ALL(Y, ...)                                                \
    DA_CLASSES_BOOL(Y, __VA_ARGS__) DA_CLASSES_REAL(Y, __VA_ARGS__)           \
    DA_CLASSES_COMPLEX(Y, __VA_ARGS__)
/* clang-format on */

/* ---- what the tables generate ------------------------------------------- */

typedef enum {
#define DA_OP_ENUM_(ID, name, nin, rule, doc) DA_OP_##ID,
    DA_FOR_EACH_OP(DA_OP_ENUM_)
#undef DA_OP_ENUM_
    DA_NOPS
} da_op;

/* Result kinds and type rules, as the tables name them. */
enum { DA_RESULT_SAME, DA_RESULT_BOOL, DA_RESULT_REAL };
enum { DA_RULE_SAME, DA_RULE_FLOAT64, DA_RULE_INEXACT, DA_RULE_NUMBER, DA_RULE_BOOL };

/* The number of operands of an op (constexpr in CUDA, so kernels branch on
   it at compile time). */
#ifdef __cplusplus
#define DA_CONSTEXPR constexpr
#else
#define DA_CONSTEXPR
#endif
DA_HD DA_CONSTEXPR int
da_op_nin(int op)
{
    switch (op) {
#define DA_OP_NIN_(ID, name, nin, rule, doc) \
        case DA_OP_##ID:                     \
            return nin;
        DA_FOR_EACH_OP(DA_OP_NIN_)
#undef DA_OP_NIN_
        default:
            return 0;
    }
}

/* The C type of a class value, and the class a result of each kind is
   stored from, by class name. */
#define DA_CTYPE(cname) DA_CTYPE_I_(cname)
#define DA_CTYPE_I_(cname) DA_CTYPE_##cname
#define DA_CTYPE_bool uint8_t
#define DA_CTYPE_sint int64_t
#define DA_CTYPE_uint uint64_t
#define DA_CTYPE_f32 float
#define DA_CTYPE_f64 double
#define DA_CTYPE_c64 da_c64
#define DA_CTYPE_c128 da_c128

#define DA_RESULT_CNAME_SAME(cname) cname
#define DA_RESULT_CNAME_BOOL(cname) bool
#define DA_RESULT_CNAME_REAL(cname) DA_REAL_##cname
#define DA_REAL_bool bool
#define DA_REAL_sint sint
#define DA_REAL_uint uint
#define DA_REAL_f32 f32
#define DA_REAL_f64 f64
#define DA_REAL_c64 f32
#define DA_REAL_c128 f64

/*
 * DA_FOR_EACH_KERNEL(K): every (op, class) pair of the loop table, as
 *   K(OP, CLS, CNAME, RESULT, RNAME, FN, EXPR)
 * OP and CLS are the enum values, CNAME the class's name, RESULT the
 * DA_RESULT_<kind>, RNAME the class name the result is stored as
 * (da_store_<RNAME>), FN the element function da_op_<ID>_<CNAME>(a, b)
 * defined below, EXPR its expression.  Both backends instantiate exactly
 * this list.
 */
#define DA_FOR_EACH_KERNEL(K) DA_FOR_EACH_LOOP(DA_LOOP_CLASSES_, K)
#define DA_LOOP_CLASSES_(K, ID, classes, result, expr) \
    DA_CLASSES_##classes(DA_LOOP_CLASS_, K, ID, result, expr)
#define DA_LOOP_CLASS_(CLS, cname, K, ID, result, expr)                       \
    DA_LOOP_KERNEL_(K, DA_OP_##ID, CLS, cname, DA_RESULT_##result,           \
                    DA_RESULT_CNAME_##result(cname), da_op_##ID##_##cname, expr)
#define DA_LOOP_KERNEL_(K, OP, CLS, CNAME, RESULT, RNAME, FN, EXPR) \
    K(OP, CLS, CNAME, RESULT, RNAME, FN, EXPR)

/* The element functions.  Every one takes two operands; a unary op's
   kernels pass its operand twice, and its expression reads only `a`. */
#define DA_DEFINE_ELEMENT_FN_(OP, CLS, CNAME, RESULT, RNAME, FN, EXPR)        \
    DA_HD DA_CTYPE(RNAME) FN(DA_CTYPE(CNAME) a, DA_CTYPE(CNAME) b)            \
    {                                                                         \
        (void)a;                                                              \
        (void)b;                                                              \
        return (EXPR);                                                        \
    }
DA_FOR_EACH_KERNEL(DA_DEFINE_ELEMENT_FN_)
#undef DA_DEFINE_ELEMENT_FN_

#endif /* DEVARRAY_KERNELS_OPTABLE_H_ */
