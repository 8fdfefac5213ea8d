/*
 * Finding optional CUDA libraries: see dynlib.h.
 *
 * Touched with the GIL held (the sys.path walk reads Python objects).
 */
#include "runtime/dynlib.h"

#ifdef DEVARRAY_HAVE_CUDA
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { DYNLIB_PATH_BYTES = 4096 };

int
dynlib_try(const char *path, dynlib_adopt_fn adopt, void *ctx, dynlib_log *log)
{
    size_t used = strlen(log->tried);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);

    if (used + strlen(path) + 3 < sizeof log->tried) {
        snprintf(log->tried + used, sizeof log->tried - used, "%s%s",
                 used > 0 ? ", " : "", path);
    }
    if (lib == NULL) {
        const char *why = dlerror();
        snprintf(log->last_error, sizeof log->last_error, "%s",
                 why != NULL ? why : "dlopen failed");
        return 0;
    }
    if (!adopt(lib, path, ctx)) {
        snprintf(log->last_error, sizeof log->last_error,
                 "%s lacks entry points devarray needs", path);
        dlclose(lib);
        return 0;
    }
    return 1;
}

/* Try `dir`/`name` for every name, where the file exists. */
static int
dynlib_try_dir(const char *dir, const char *const *sonames, dynlib_adopt_fn adopt,
               void *ctx, dynlib_log *log)
{
    char path[DYNLIB_PATH_BYTES];
    size_t f;

    for (f = 0; sonames[f] != NULL; f++) {
        int n = snprintf(path, sizeof path, "%s/%s", dir, sonames[f]);
        if (n > 0 && (size_t)n < sizeof path && access(path, R_OK) == 0 &&
            dynlib_try(path, adopt, ctx, log)) {
            return 1;
        }
    }
    return 0;
}

/* Try the wheels' lib directories under every sys.path entry. */
static int
dynlib_try_wheels(const char *const *sonames, const char *const *wheel_dirs,
                  dynlib_adopt_fn adopt, void *ctx, dynlib_log *log)
{
    char dir[DYNLIB_PATH_BYTES];
    PyObject *sys_path = PySys_GetObject("path"); /* borrowed */
    Py_ssize_t i, count;
    size_t d;

    if (sys_path == NULL || !PyList_Check(sys_path)) {
        return 0;
    }
    count = PyList_GET_SIZE(sys_path);
    for (i = 0; i < count; i++) {
        PyObject *entry = PyList_GET_ITEM(sys_path, i);
        const char *base;
        if (!PyUnicode_Check(entry) || (base = PyUnicode_AsUTF8(entry)) == NULL) {
            PyErr_Clear();
            continue;
        }
        for (d = 0; wheel_dirs[d] != NULL; d++) {
            int n = snprintf(dir, sizeof dir, "%s/%s", base[0] != '\0' ? base : ".",
                             wheel_dirs[d]);
            if (n > 0 && (size_t)n < sizeof dir &&
                dynlib_try_dir(dir, sonames, adopt, ctx, log)) {
                return 1;
            }
        }
    }
    return 0;
}

/* Try lib64 of the toolkit directories. */
static int
dynlib_try_toolkits(const char *const *sonames, dynlib_adopt_fn adopt, void *ctx,
                    dynlib_log *log)
{
    const char *homes[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    char dir[DYNLIB_PATH_BYTES];
    size_t h;

    for (h = 0; h < sizeof homes / sizeof homes[0]; h++) {
        int n;
        if (homes[h] == NULL || homes[h][0] == '\0') {
            continue;
        }
        n = snprintf(dir, sizeof dir, "%s/lib64", homes[h]);
        if (n > 0 && (size_t)n < sizeof dir &&
            dynlib_try_dir(dir, sonames, adopt, ctx, log)) {
            return 1;
        }
    }
    return 0;
}

int
dynlib_search(const char *const *sonames, const char *const *wheel_dirs,
              dynlib_adopt_fn adopt, void *ctx, dynlib_log *log)
{
    size_t f;

    for (f = 0; sonames[f] != NULL; f++) {
        if (dynlib_try(sonames[f], adopt, ctx, log)) {
            return 1;
        }
    }
    return dynlib_try_wheels(sonames, wheel_dirs, adopt, ctx, log) ||
           dynlib_try_toolkits(sonames, adopt, ctx, log);
}

#endif
