/*
 * devarray.Device: see deviceobject.h.
 *
 * Compatibility: x.device used to be the int CUDA device id (0 on the host
 * backend).  A CUDA Device still stands for its id where code used the int:
 * operator.index() (so int(d), list indexing, cudaSetDevice-style calls),
 * == with an int, and a hash equal to the int's.  The host Device is no int:
 * its old 0 named no CUDA device, and letting it equal 0 would make
 * Device('host') == 0 == Device('cuda', 0) while the two Devices differ.
 *
 * Ownership: the Device objects for the host and for the first
 * DEVICEOBJECT_CACHED CUDA ordinals are statically allocated singletons,
 * like the DType objects: their references are only borrowed or added to,
 * so they are never deallocated, and x.device costs no allocation.  Devices
 * of higher ordinals are ordinary heap objects.
 */
#include "interop/deviceobject.h"

#include <limits.h>

#include "runtime/backend.h"
#include "runtime/device.h"

typedef struct {
    PyObject_HEAD
    int backend;
    int device;
} DeviceObject;

static PyTypeObject Device_Type;

#define DEVICEOBJECT_CACHED 16

#define DEVICEOBJECT_CUDA(ordinal) \
    {PyObject_HEAD_INIT(&Device_Type) DA_BACKEND_CUDA, ordinal}

static DeviceObject deviceobject_host = {
    PyObject_HEAD_INIT(&Device_Type) DA_BACKEND_HOST, 0};

static DeviceObject deviceobject_cuda[DEVICEOBJECT_CACHED] = {
    DEVICEOBJECT_CUDA(0),  DEVICEOBJECT_CUDA(1),  DEVICEOBJECT_CUDA(2),
    DEVICEOBJECT_CUDA(3),  DEVICEOBJECT_CUDA(4),  DEVICEOBJECT_CUDA(5),
    DEVICEOBJECT_CUDA(6),  DEVICEOBJECT_CUDA(7),  DEVICEOBJECT_CUDA(8),
    DEVICEOBJECT_CUDA(9),  DEVICEOBJECT_CUDA(10), DEVICEOBJECT_CUDA(11),
    DEVICEOBJECT_CUDA(12), DEVICEOBJECT_CUDA(13), DEVICEOBJECT_CUDA(14),
    DEVICEOBJECT_CUDA(15),
};

#undef DEVICEOBJECT_CUDA

/* "host" in ASCII: the host Device's hash, fixed so that it does not depend
   on string hash randomisation. */
#define DEVICEOBJECT_HOST_HASH ((Py_hash_t)0x686f7374)

PyObject *
deviceobject_new(int backend, int device)
{
    DeviceObject *self;

    if (backend == DA_BACKEND_HOST) {
        return Py_NewRef((PyObject *)&deviceobject_host);
    }
    if (device >= 0 && device < DEVICEOBJECT_CACHED) {
        return Py_NewRef((PyObject *)&deviceobject_cuda[device]);
    }
    self = PyObject_New(DeviceObject, &Device_Type);
    if (self != NULL) {
        self->backend = backend;
        self->device = device;
    }
    return (PyObject *)self;
}

/* ---- spellings ----------------------------------------------------------- */

#define DEVICEOBJECT_SPELLINGS "'cuda', 'cuda:N', 'host' or 'cpu'"

/* The backend named by s[0..len): "cuda", "host" or "cpu" (the host); -1
   when it names none. */
static int
deviceobject_backend_named(const char *s, Py_ssize_t len)
{
    if (len == 4 && memcmp(s, "cuda", 4) == 0) {
        return DA_BACKEND_CUDA;
    }
    if ((len == 4 && memcmp(s, "host", 4) == 0) ||
        (len == 3 && memcmp(s, "cpu", 3) == 0)) {
        return DA_BACKEND_HOST;
    }
    return -1;
}

/* A device id from the digits s[0..len), at most INT_MAX; -1 when they are
   not that. */
static int
deviceobject_parse_digits(const char *s, Py_ssize_t len)
{
    long value = 0;
    Py_ssize_t i;

    if (len == 0 || len > 9) {
        return -1;
    }
    for (i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return -1;
        }
        value = value * 10 + (s[i] - '0');
    }
    return (int)value;
}

/* A device id from a Python int (anything with __index__ but bool). */
static int
deviceobject_id_from_object(PyObject *id_obj, int *device)
{
    long value;
    int overflow;
    PyObject *index;

    if (PyBool_Check(id_obj) || !PyIndex_Check(id_obj)) {
        PyErr_Format(PyExc_TypeError, "device id must be an int, not %.200s",
                     Py_TYPE(id_obj)->tp_name);
        return -1;
    }
    index = PyNumber_Index(id_obj);
    if (index == NULL) {
        return -1;
    }
    value = PyLong_AsLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (value == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow != 0 || value < 0 || value > INT_MAX) {
        PyErr_Format(PyExc_ValueError,
                     "device id must be a non-negative int, got %R", id_obj);
        return -1;
    }
    *device = (int)value;
    return 0;
}

/* The place spelled by `type_obj` ('cuda', 'cuda:N', 'host', 'cpu', or a
   Device) and the optional id `id_obj` (NULL or None: not given).  Checks
   the spelling only.  0, or -1 with TypeError/ValueError. */
static int
deviceobject_parse(PyObject *type_obj, PyObject *id_obj, da_place *place)
{
    const char *s, *colon;
    Py_ssize_t len, name_len;
    int has_id = id_obj != NULL && id_obj != Py_None, id_in_string;

    if (Py_IS_TYPE(type_obj, &Device_Type) && !has_id) {
        place->backend = ((DeviceObject *)type_obj)->backend;
        place->device = ((DeviceObject *)type_obj)->device;
        return 0;
    }
    if (!has_id && !PyBool_Check(type_obj) && PyIndex_Check(type_obj) &&
        !PyUnicode_Check(type_obj)) {
        /* an int is a CUDA ordinal, as torch.device(1) */
        place->backend = DA_BACKEND_CUDA;
        return deviceobject_id_from_object(type_obj, &place->device);
    }
    if (!PyUnicode_Check(type_obj)) {
        PyErr_Format(PyExc_TypeError,
                     "device must be a devarray.Device, a CUDA ordinal or one of "
                     DEVICEOBJECT_SPELLINGS ", not %.200s",
                     Py_TYPE(type_obj)->tp_name);
        return -1;
    }
    s = PyUnicode_AsUTF8AndSize(type_obj, &len);
    place->backend = -1;
    place->device = 0;
    id_in_string = 0;
    if (s != NULL) {
        colon = memchr(s, ':', (size_t)len);
        name_len = colon == NULL ? len : colon - s;
        id_in_string = colon != NULL;
        place->backend = deviceobject_backend_named(s, name_len);
        if (id_in_string) {
            place->device = deviceobject_parse_digits(colon + 1, len - name_len - 1);
        }
    }
    else if (PyErr_ExceptionMatches(PyExc_UnicodeError)) {
        /* lone surrogates: no device is spelled that way */
        PyErr_Clear();
    }
    else {
        return -1;
    }
    if (place->backend < 0 || place->device < 0) {
        PyErr_Format(PyExc_ValueError,
                     "unknown device %R: expected " DEVICEOBJECT_SPELLINGS,
                     type_obj);
        return -1;
    }
    if (has_id) {
        if (id_in_string) {
            PyErr_Format(PyExc_ValueError,
                         "device %R already names its id; do not pass id=%R "
                         "as well",
                         type_obj, id_obj);
            return -1;
        }
        if (deviceobject_id_from_object(id_obj, &place->device) < 0) {
            return -1;
        }
    }
    if (place->backend == DA_BACKEND_HOST && place->device != 0) {
        PyErr_Format(PyExc_ValueError,
                     "the host device has id 0, not %d", place->device);
        return -1;
    }
    if (place->backend == DA_BACKEND_CUDA && !id_in_string && !has_id) {
        /* 'cuda' alone: this thread's current device */
        place->device = device_current(DA_BACKEND_CUDA);
    }
    return 0;
}

/* ---- the converter and places -------------------------------------------- */

/* Whether this process can put arrays at `place`; 0, or -1 with
   RuntimeError (no CUDA) or ValueError (an ordinal out of range, naming
   the count). */
static int
deviceobject_check_usable(const da_place *place)
{
    return place->backend == DA_BACKEND_CUDA ? device_check_ordinal(place->device) : 0;
}

int
deviceobject_converter_optional(PyObject *obj, void *place)
{
    da_place *p = (da_place *)place;

    if (obj == Py_None) {
        p->backend = -1;
        p->device = 0;
        return 1;
    }
    if (deviceobject_parse(obj, NULL, p) < 0 || deviceobject_check_usable(p) < 0) {
        return 0;
    }
    return 1;
}

int
deviceobject_default_place(da_place *place)
{
    place->backend = backend_default();
    if (place->backend < 0) {
        return -1;
    }
    place->device = device_current(place->backend);
    /* new arrays go to the active device: this one */
    return device_activate(place->backend, place->device);
}

int
deviceobject_resolve_place(da_place *place)
{
    return place->backend >= 0 ? 0 : deviceobject_default_place(place);
}

PyObject *
deviceobject_available(void)
{
    const int count = device_count();
    PyObject *devices = PyTuple_New(count + 1), *device;
    int i;

    if (devices == NULL) {
        return NULL;
    }
    /* the CUDA ordinals, then the host at index count */
    for (i = 0; i <= count; i++) {
        device = i < count ? deviceobject_new(DA_BACKEND_CUDA, i)
                           : deviceobject_new(DA_BACKEND_HOST, 0);
        if (device == NULL) {
            goto error;
        }
        PyTuple_SET_ITEM(devices, i, device);
    }
    return devices;

error:
    Py_DECREF(devices);
    return NULL;
}

/* ---- the Device type ----------------------------------------------------- */

#define DEVICEOBJECT(self) ((DeviceObject *)(self))

static PyObject *
deviceobject_tp_new(PyTypeObject *Py_UNUSED(type), PyObject *args,
                    PyObject *kwds)
{
    static char *kwlist[] = {"type", "id", NULL};
    PyObject *type_obj, *id_obj = Py_None;
    da_place place;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:Device", kwlist,
                                     &type_obj, &id_obj) ||
        deviceobject_parse(type_obj, id_obj, &place) < 0) {
        return NULL;
    }
    return deviceobject_new(place.backend, place.device);
}

static PyObject *
deviceobject_repr(PyObject *self)
{
    if (DEVICEOBJECT(self)->backend == DA_BACKEND_HOST) {
        return PyUnicode_FromString("Device('host')");
    }
    return PyUnicode_FromFormat("Device('cuda', %d)", DEVICEOBJECT(self)->device);
}

static PyObject *
deviceobject_str(PyObject *self)
{
    if (DEVICEOBJECT(self)->backend == DA_BACKEND_HOST) {
        return PyUnicode_FromString("host");
    }
    return PyUnicode_FromFormat("cuda:%d", DEVICEOBJECT(self)->device);
}

/* A CUDA Device hashes as its id (hash(n) is n for these ints), so that it
   finds the int in a dict, as == says it should. */
static Py_hash_t
deviceobject_hash(PyObject *self)
{
    if (DEVICEOBJECT(self)->backend == DA_BACKEND_HOST) {
        return DEVICEOBJECT_HOST_HASH;
    }
    return (Py_hash_t)DEVICEOBJECT(self)->device;
}

/* Equal to a Device of the same place, and (a CUDA Device) to its id as an
   int; anything else is left to the other operand. */
static PyObject *
deviceobject_richcompare(PyObject *self, PyObject *other, int op)
{
    int equal = 0;

    if (op != Py_EQ && op != Py_NE) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (Py_IS_TYPE(other, &Device_Type)) {
        equal = DEVICEOBJECT(self)->backend == DEVICEOBJECT(other)->backend &&
                DEVICEOBJECT(self)->device == DEVICEOBJECT(other)->device;
    }
    else if (PyLong_Check(other) && !PyBool_Check(other) &&
             DEVICEOBJECT(self)->backend == DA_BACKEND_CUDA) {
        int overflow;
        long value = PyLong_AsLongAndOverflow(other, &overflow);
        if (value == -1 && PyErr_Occurred()) {
            return NULL;
        }
        equal = overflow == 0 && value == DEVICEOBJECT(self)->device;
    }
    else {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return PyBool_FromLong(equal == (op == Py_EQ));
}

static PyObject *
deviceobject_index(PyObject *self)
{
    if (DEVICEOBJECT(self)->backend == DA_BACKEND_HOST) {
        PyErr_SetString(PyExc_TypeError,
                        "Device('host') is not a CUDA device id; use .id (0) "
                        "or .type");
        return NULL;
    }
    return PyLong_FromLong(DEVICEOBJECT(self)->device);
}

static PyObject *
deviceobject_reduce(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    if (DEVICEOBJECT(self)->backend == DA_BACKEND_HOST) {
        return Py_BuildValue("(O(s))", (PyObject *)&Device_Type, "host");
    }
    return Py_BuildValue("(O(si))", (PyObject *)&Device_Type, "cuda",
                         DEVICEOBJECT(self)->device);
}

static PyObject *
deviceobject_get_type(PyObject *self, void *Py_UNUSED(closure))
{
    return PyUnicode_FromString(backend_name(DEVICEOBJECT(self)->backend));
}

static PyObject *
deviceobject_get_id(PyObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromLong(DEVICEOBJECT(self)->device);
}

/* `with Device(n)`: the thread's current devices before each entry, and
   the ordinal each entry set, innermost last. */
#define DEVICEOBJECT_DEPTH 64
static _Thread_local int deviceobject_saved[DEVICEOBJECT_DEPTH];
static _Thread_local int deviceobject_entered[DEVICEOBJECT_DEPTH];
static _Thread_local int deviceobject_depth = 0;

static PyObject *
deviceobject_enter(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    int ordinal = DEVICEOBJECT(self)->device;

    if (DEVICEOBJECT(self)->backend == DA_BACKEND_HOST) {
        PyErr_SetString(PyExc_ValueError,
                        "Device('host') cannot be entered: 'with' sets the "
                        "current CUDA device; use devarray.set_backend('host') "
                        "or device='host'");
        return NULL;
    }
    if (device_check_ordinal(ordinal) < 0) {
        return NULL;
    }
    if (deviceobject_depth == DEVICEOBJECT_DEPTH) {
        PyErr_Format(PyExc_RuntimeError,
                     "devices entered with 'with' nest at most %d deep",
                     DEVICEOBJECT_DEPTH);
        return NULL;
    }
    /* the runtime's device too, as cupy.cuda.Device does: CuPy, PyTorch
       and kernels of the caller's own inside the block work there */
    if (device_activate(DA_BACKEND_CUDA, ordinal) < 0) {
        return NULL;
    }
    deviceobject_entered[deviceobject_depth] = ordinal;
    deviceobject_saved[deviceobject_depth++] = device_set_current(ordinal);
    return Py_NewRef(self);
}

/* Restores the current device whether or not the block raised, and lets
   its exception propagate. */
static PyObject *
deviceobject_exit(PyObject *self, PyObject *Py_UNUSED(args))
{
    if (deviceobject_depth == 0 || DEVICEOBJECT(self)->backend != DA_BACKEND_CUDA ||
        deviceobject_entered[deviceobject_depth - 1] != DEVICEOBJECT(self)->device) {
        PyErr_Format(PyExc_RuntimeError,
                     "%R is not the innermost device entered on this thread: "
                     "'with' blocks must exit in order",
                     self);
        return NULL;
    }
    device_set_current(deviceobject_saved[--deviceobject_depth]);
    /* the runtime's device back to the restored one (failure is the next
       CUDA call's to report) */
    (void)device_enter_quiet(DA_BACKEND_CUDA, device_current(DA_BACKEND_CUDA));
    Py_RETURN_FALSE;
}

static PyNumberMethods deviceobject_as_number = {
    .nb_index = deviceobject_index,
};

static PyMethodDef deviceobject_methods[] = {
    {"__reduce__", deviceobject_reduce, METH_NOARGS, NULL},
    {"__enter__", deviceobject_enter, METH_NOARGS,
     "Make this CUDA device the thread's current device (where new arrays "
     "go, and the CUDA runtime's current device) until the block exits."},
    {"__exit__", deviceobject_exit, METH_VARARGS,
     "Restore the thread's previous current device, also on an exception."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef deviceobject_getset[] = {
    {"type", deviceobject_get_type, NULL,
     "The backend: 'cuda' or 'host'.", NULL},
    {"id", deviceobject_get_id, NULL,
     "The CUDA device ordinal (0 for the host).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(deviceobject_doc,
"Device(type, id=None)\n"
"--\n"
"\n"
"Where an array lives: Device('cuda', 0) or Device('host').  type is\n"
"'cuda', 'host' or 'cpu' (the host), 'cuda:N', or an int N (Device(1) is\n"
"Device('cuda', 1)); a CUDA device without an id is the thread's current\n"
"one.  'with Device(n):' makes CUDA device n the thread's current device\n"
"(where creation functions put arrays, and the CUDA runtime's current\n"
"device, as cupy.cuda.Device does) until the block exits, also on an\n"
"exception; blocks nest.  Immutable and hashable.  For code\n"
"written when x.device was an int, a CUDA Device also acts as its id:\n"
"operator.index(d) and int(d) give it, d == id holds, hash(d) == hash(id).\n"
"Any Device can be made; using one that this process cannot reach as a\n"
"device= argument raises.");

static PyTypeObject Device_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "devarray._core.Device",
    .tp_basicsize = sizeof(DeviceObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = deviceobject_doc,
    .tp_new = deviceobject_tp_new,
    .tp_repr = deviceobject_repr,
    .tp_str = deviceobject_str,
    .tp_hash = deviceobject_hash,
    .tp_richcompare = deviceobject_richcompare,
    /* number */
    .tp_as_number = &deviceobject_as_number,
    .tp_methods = deviceobject_methods,
    .tp_getset = deviceobject_getset,
};

int
deviceobject_module_init(PyObject *module)
{
    if (PyType_Ready(&Device_Type) < 0) {
        return -1;
    }
    return PyModule_AddObjectRef(module, "Device", (PyObject *)&Device_Type);
}
