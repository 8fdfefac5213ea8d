"""The axis check devarray's Python extension modules (fft, linalg) share."""

import operator

import devarray


def normalized_axis(axis, ndim):
    """axis (an integer, negative counting from the end) as a non-negative
    int below ndim; devarray.AxisError where it is out of range."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise devarray.AxisError("axis %d is out of bounds for array of dimension %d"
                                 % (axis, ndim))
    return axis % ndim
