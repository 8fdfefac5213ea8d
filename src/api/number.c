/*
 * The number protocol of DeviceArray: the arithmetic, bitwise and shift
 * operators (and in place), ** , unary - + ~ abs, @ (linalg.c), and
 * conversion to Python scalars; the rich comparisons, which are the same
 * kind of slot, are here too.  The operators are the ops of
 * kernels/optable.h, run by ufunc_apply (ufunc.c); an operand that is
 * neither a DeviceArray nor a Python scalar gives NotImplemented, so Python
 * asks the other operand (and `d == None` is False).
 */
#include "api/number.h"

#include "core/array.h"
#include "base/dtype.h"
#include "interop/host_out.h"
#include "ops/linalg.h"
#include "ops/ufunc.h"

#define NUMBER_DEFINE_BINARY(name, op)                                    \
    static PyObject *number_##name(PyObject *a, PyObject *b)              \
    {                                                                     \
        PyObject *operands[2] = {a, b};                                   \
        return ufunc_apply(op, operands, 0, 1);                           \
    }                                                                     \
    static PyObject *number_inplace_##name(PyObject *a, PyObject *b)      \
    {                                                                     \
        PyObject *operands[2] = {a, b};                                   \
        return ufunc_apply(op, operands, 1, 1);                           \
    }

NUMBER_DEFINE_BINARY(add, DA_OP_ADD)
NUMBER_DEFINE_BINARY(subtract, DA_OP_SUB)
NUMBER_DEFINE_BINARY(multiply, DA_OP_MUL)
NUMBER_DEFINE_BINARY(true_divide, DA_OP_DIV)
NUMBER_DEFINE_BINARY(floor_divide, DA_OP_FLOOR_DIVIDE)
NUMBER_DEFINE_BINARY(remainder, DA_OP_REMAINDER)
NUMBER_DEFINE_BINARY(and, DA_OP_BITWISE_AND)
NUMBER_DEFINE_BINARY(or, DA_OP_BITWISE_OR)
NUMBER_DEFINE_BINARY(xor, DA_OP_BITWISE_XOR)
NUMBER_DEFINE_BINARY(lshift, DA_OP_BITWISE_LEFT_SHIFT)
NUMBER_DEFINE_BINARY(rshift, DA_OP_BITWISE_RIGHT_SHIFT)
#undef NUMBER_DEFINE_BINARY

/* pow(a, b, modulo): only modulo None, as the array API's __pow__. */
static PyObject *
number_power_of(PyObject *a, PyObject *b, PyObject *modulo, int inplace)
{
    PyObject *operands[2] = {a, b};
    if (modulo != Py_None) {
        PyErr_SetString(PyExc_TypeError,
                        "pow() with a third argument (modulo) is not "
                        "supported for DeviceArrays; use (a ** b) % m");
        return NULL;
    }
    return ufunc_apply(DA_OP_POW, operands, inplace, 1);
}

static PyObject *
number_power(PyObject *a, PyObject *b, PyObject *modulo)
{
    return number_power_of(a, b, modulo, 0);
}

static PyObject *
number_inplace_power(PyObject *a, PyObject *b, PyObject *modulo)
{
    return number_power_of(a, b, modulo, 1);
}

/* divmod(a, b): (a // b, a % b), as NumPy's. */
static PyObject *
number_divmod(PyObject *a, PyObject *b)
{
    PyObject *operands[2] = {a, b}, *quotient, *remainder;

    quotient = ufunc_apply(DA_OP_FLOOR_DIVIDE, operands, 0, 1);
    if (quotient == NULL || quotient == Py_NotImplemented) {
        return quotient;
    }
    remainder = ufunc_apply(DA_OP_REMAINDER, operands, 0, 1);
    if (remainder == NULL) {
        Py_DECREF(quotient);
        return NULL;
    }
    return Py_BuildValue("(NN)", quotient, remainder);
}

/* a @ b and a @= b: linalg.c's (NumPy's rules). */
static PyObject *
number_matmul(PyObject *a, PyObject *b)
{
    return linalg_matmul_operator(a, b, 0);
}

static PyObject *
number_inplace_matmul(PyObject *a, PyObject *b)
{
    return linalg_matmul_operator(a, b, 1);
}

PyObject *
number_richcompare(PyObject *a, PyObject *b, int cmp)
{
    static const int ops[] = {
        [Py_LT] = DA_OP_LESS,  [Py_LE] = DA_OP_LESS_EQUAL, [Py_EQ] = DA_OP_EQUAL,
        [Py_NE] = DA_OP_NOT_EQUAL, [Py_GT] = DA_OP_GREATER,
        [Py_GE] = DA_OP_GREATER_EQUAL,
    };
    PyObject *operands[2] = {a, b};
    return ufunc_apply(ops[cmp], operands, 0, 1);
}

static PyObject *
number_negative(PyObject *self)
{
    return ufunc_apply(DA_OP_NEG, &self, 0, 1);
}

/* +a: a copy (the array API's positive), TypeError for bool as NumPy. */
static PyObject *
number_positive(PyObject *self)
{
    return ufunc_apply(DA_OP_POSITIVE, &self, 0, 1);
}

static PyObject *
number_invert(PyObject *self)
{
    return ufunc_apply(DA_OP_BITWISE_INVERT, &self, 0, 1);
}

static PyObject *
number_absolute(PyObject *self)
{
    return ufunc_apply(DA_OP_ABS, &self, 0, 1);
}

/* ---- conversion to Python scalars --------------------------------------- */

/* The element of a 0-d array as a Python object, or NULL with TypeError
   naming `what` for other arrays (the array API and NumPy 2 convert only
   0-d arrays to int, float and complex; bool() takes any size-1 array). */
static PyObject *
number_single_item(PyObject *self, const char *what)
{
    DeviceArrayObject *a = (DeviceArrayObject *)self;
    if (a->ndim != 0) {
        PyObject *shape = array_int64_tuple(a->ndim, DA_SHAPE(a));
        if (shape != NULL) {
            PyErr_Format(PyExc_TypeError,
                         "only 0-dimensional arrays can be converted to "
                         "Python %s (this one has shape %R)",
                         what, shape);
            Py_DECREF(shape);
        }
        return NULL;
    }
    return host_out_item(a);
}

static int
number_bool(PyObject *self)
{
    DeviceArrayObject *a = (DeviceArrayObject *)self;
    PyObject *item;
    int truth;
    if (a->size != 1) {
        PyErr_SetString(PyExc_ValueError,
                        a->size == 0
                            ? "The truth value of an empty array is ambiguous. "
                              "Use `array.size > 0` to check that an array is "
                              "not empty."
                            : "The truth value of an array with more than one "
                              "element is ambiguous. Use a.any() or a.all()");
        return -1;
    }
    item = host_out_item(a);
    if (item == NULL) {
        return -1;
    }
    truth = PyObject_IsTrue(item);
    Py_DECREF(item);
    return truth;
}

static PyObject *
number_float(PyObject *self)
{
    PyObject *item = number_single_item(self, "floats"), *result;
    if (item == NULL) {
        return NULL;
    }
    result = PyNumber_Float(item);
    Py_DECREF(item);
    return result;
}

static PyObject *
number_int(PyObject *self)
{
    PyObject *item = number_single_item(self, "ints"), *result;
    if (item == NULL) {
        return NULL;
    }
    result = PyNumber_Long(item);
    Py_DECREF(item);
    return result;
}

static PyObject *
number_index(PyObject *self)
{
    DeviceArrayObject *a = (DeviceArrayObject *)self;
    if (a->ndim != 0 || (dtype_table[a->typenum].kind != 'i' &&
                         dtype_table[a->typenum].kind != 'u')) {
        PyErr_SetString(PyExc_TypeError,
                        "only integer scalar arrays can be converted to a "
                        "scalar index");
        return NULL;
    }
    return host_out_item(a);
}

PyObject *
number_complex(PyObject *self, PyObject *Py_UNUSED(args))
{
    PyObject *item = number_single_item(self, "complex numbers"), *result;
    if (item == NULL) {
        return NULL;
    }
    result = PyComplex_Check(item)
                 ? item
                 : PyObject_CallOneArg((PyObject *)&PyComplex_Type, item);
    if (result != item) {
        Py_DECREF(item);
    }
    return result;
}

PyNumberMethods number_as_number = {
    .nb_add = number_add,
    .nb_subtract = number_subtract,
    .nb_multiply = number_multiply,
    .nb_true_divide = number_true_divide,
    .nb_inplace_add = number_inplace_add,
    .nb_inplace_subtract = number_inplace_subtract,
    .nb_inplace_multiply = number_inplace_multiply,
    .nb_inplace_true_divide = number_inplace_true_divide,
    .nb_floor_divide = number_floor_divide,
    .nb_inplace_floor_divide = number_inplace_floor_divide,
    .nb_remainder = number_remainder,
    .nb_inplace_remainder = number_inplace_remainder,
    .nb_divmod = number_divmod,
    .nb_power = number_power,
    .nb_inplace_power = number_inplace_power,
    .nb_and = number_and,
    .nb_inplace_and = number_inplace_and,
    .nb_or = number_or,
    .nb_inplace_or = number_inplace_or,
    .nb_xor = number_xor,
    .nb_inplace_xor = number_inplace_xor,
    .nb_lshift = number_lshift,
    .nb_inplace_lshift = number_inplace_lshift,
    .nb_rshift = number_rshift,
    .nb_inplace_rshift = number_inplace_rshift,
    .nb_matrix_multiply = number_matmul,
    .nb_inplace_matrix_multiply = number_inplace_matmul,
    .nb_invert = number_invert,
    .nb_negative = number_negative,
    .nb_positive = number_positive,
    .nb_absolute = number_absolute,
    .nb_bool = number_bool,
    .nb_int = number_int,
    .nb_float = number_float,
    .nb_index = number_index,
};
