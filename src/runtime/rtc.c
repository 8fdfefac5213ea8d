/*
 * NVRTC, loaded at first use, and a disk cache of what it compiles: see
 * rtc.h.
 *
 * The cache: a file per cubin in $DEVARRAY_CACHE_DIR, else
 * $XDG_CACHE_HOME/devarray, else ~/.cache/devarray, named by a hash of
 * the source, the architecture and NVRTC's version, and holding the
 * source itself, so a hash collision is caught; written to a temporary
 * name and renamed, so readers never see half a file.  A failure to read
 * or write it only means compiling again.
 *
 * Ownership: the library is never dlclose()d.  All of it is touched with
 * the GIL held, except nvrtcCompileProgram, which runs with it released.
 */
#include "runtime/rtc.h"

#ifdef DEVARRAY_HAVE_CUDA
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nvrtc.h>

#include "runtime/dynlib.h"

/* The op table's headers, embedded by setup.py (rtc_headers.c,
   generated in the build directory). */
extern const int nvrtc_header_count;
extern const char *const nvrtc_header_names[];
extern const char *const nvrtc_header_texts[];

enum { RTC_PATH_BYTES = 4096 };

/* What NVRTC's missing headers provide: the fixed-width integers, and the
   three half conversions dtypes.h uses, as the same PTX instructions that
   cuda_fp16.h emits (the toolkit's headers need not be installed). */
static const char rtc_stdint_h[] =
    "typedef signed char int8_t; typedef unsigned char uint8_t;\n"
    "typedef short int16_t; typedef unsigned short uint16_t;\n"
    "typedef int int32_t; typedef unsigned int uint32_t;\n"
    "typedef long long int64_t; typedef unsigned long long uint64_t;\n"
    "#define UINT64_C(c) c##ULL\n"
    "#define INT64_MAX 9223372036854775807LL\n"
    "#define INT64_MIN (-INT64_MAX - 1)\n"
    "#define UINT64_MAX 18446744073709551615ULL\n";
static const char rtc_fp16_h[] =
    "struct __half { unsigned short x; };\n"
    "static __device__ __forceinline__ __half __ushort_as_half(unsigned short h)\n"
    "{ __half r; r.x = h; return r; }\n"
    "static __device__ __forceinline__ unsigned short __half_as_ushort(__half h)\n"
    "{ return h.x; }\n"
    "static __device__ __forceinline__ float __half2float(__half h)\n"
    "{ float f; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h.x)); return f; }\n"
    "static __device__ __forceinline__ __half __float2half_rn(float f)\n"
    "{ __half r; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(r.x) : \"f\"(f)); return r; }\n"
    "static __device__ __forceinline__ __half __double2half(double d)\n"
    "{ __half r; asm(\"cvt.rn.f16.f64 %0, %1;\" : \"=h\"(r.x) : \"d\"(d)); return r; }\n";

typedef nvrtcResult (*rtc_version_fn)(int *, int *);
typedef nvrtcResult (*rtc_num_archs_fn)(int *);
typedef nvrtcResult (*rtc_archs_fn)(int *);
typedef nvrtcResult (*rtc_create_fn)(nvrtcProgram *, const char *, const char *, int,
                                     const char *const *, const char *const *);
typedef nvrtcResult (*rtc_compile_fn)(nvrtcProgram, int, const char *const *);
typedef nvrtcResult (*rtc_size_fn)(nvrtcProgram, size_t *);
typedef nvrtcResult (*rtc_get_fn)(nvrtcProgram, char *);
typedef nvrtcResult (*rtc_destroy_fn)(nvrtcProgram *);
typedef const char *(*rtc_error_string_fn)(nvrtcResult);

enum { RTC_UNTRIED = 0, RTC_LOADED, RTC_ABSENT };

static struct {
    int state;
    int major, minor;
    rtc_version_fn version;
    rtc_num_archs_fn num_archs;
    rtc_archs_fn archs;
    rtc_create_fn create;
    rtc_compile_fn compile;
    rtc_size_fn cubin_size, log_size;
    rtc_get_fn cubin, log;
    rtc_destroy_fn destroy;
    rtc_error_string_fn error_string;
} rtc_api;

/* dynlib_adopt_fn for libnvrtc. */
static int
rtc_adopt(void *lib, const char *Py_UNUSED(path), void *Py_UNUSED(ctx))
{
    rtc_api.version = (rtc_version_fn)dlsym(lib, "nvrtcVersion");
    rtc_api.num_archs = (rtc_num_archs_fn)dlsym(lib, "nvrtcGetNumSupportedArchs");
    rtc_api.archs = (rtc_archs_fn)dlsym(lib, "nvrtcGetSupportedArchs");
    rtc_api.create = (rtc_create_fn)dlsym(lib, "nvrtcCreateProgram");
    rtc_api.compile = (rtc_compile_fn)dlsym(lib, "nvrtcCompileProgram");
    rtc_api.cubin_size = (rtc_size_fn)dlsym(lib, "nvrtcGetCUBINSize");
    rtc_api.cubin = (rtc_get_fn)dlsym(lib, "nvrtcGetCUBIN");
    rtc_api.log_size = (rtc_size_fn)dlsym(lib, "nvrtcGetProgramLogSize");
    rtc_api.log = (rtc_get_fn)dlsym(lib, "nvrtcGetProgramLog");
    rtc_api.destroy = (rtc_destroy_fn)dlsym(lib, "nvrtcDestroyProgram");
    rtc_api.error_string = (rtc_error_string_fn)dlsym(lib, "nvrtcGetErrorString");
    return rtc_api.version != NULL && rtc_api.num_archs != NULL && rtc_api.archs != NULL &&
           rtc_api.create != NULL && rtc_api.compile != NULL &&
           rtc_api.cubin_size != NULL && rtc_api.cubin != NULL &&
           rtc_api.log_size != NULL && rtc_api.log != NULL && rtc_api.destroy != NULL &&
           rtc_api.error_string != NULL &&
           rtc_api.version(&rtc_api.major, &rtc_api.minor) == NVRTC_SUCCESS;
}

/* Look for NVRTC once: 1 when loaded, 0 when absent (why in `why`). */
static int
rtc_find(char *why, size_t why_bytes)
{
    char soname[32], wheel_dir[32];
    const char *sonames[] = {soname, NULL};
    const char *wheel_dirs[] = {wheel_dir, "nvidia/cuda_nvrtc/lib", NULL};
    dynlib_log log = {"", ""};
    const char *env = getenv("DEVARRAY_NVRTC");
    int found;

    snprintf(soname, sizeof soname, "libnvrtc.so.%d", CUDART_VERSION / 1000);
    snprintf(wheel_dir, sizeof wheel_dir, "nvidia/cu%d/lib", CUDART_VERSION / 1000);
    found = env != NULL && env[0] != '\0' ? dynlib_try(env, rtc_adopt, NULL, &log)
                                          : dynlib_search(sonames, wheel_dirs, rtc_adopt,
                                                          NULL, &log);
    if (!found) {
        snprintf(why, why_bytes, "no usable libnvrtc (tried %.1200s: %.400s)", log.tried,
                 log.last_error);
        return 0;
    }
    if (rtc_api.major * 1000 + rtc_api.minor * 10 != CUDART_VERSION) {
        /* the device math library comes with NVRTC: another release could
           round a transcendental function differently from the build's */
        snprintf(why, why_bytes,
                 "NVRTC %d.%d is not the CUDA %d.%d devarray was built with",
                 rtc_api.major, rtc_api.minor, CUDART_VERSION / 1000,
                 CUDART_VERSION % 1000 / 10);
        return 0;
    }
    return 1;
}

uint64_t
rtc_hash(const void *data, size_t len, uint64_t h)
{
    const uint8_t *p = data;
    size_t i;

    for (i = 0; i < len; i++) {
        h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    }
    return h;
}

/* NVRTC's message for a failed compile: its log, else its error string. */
static void
rtc_compile_error(nvrtcProgram prog, nvrtcResult status, char *why, size_t why_bytes)
{
    size_t bytes = 0;
    char *log = NULL;

    if (rtc_api.log_size(prog, &bytes) == NVRTC_SUCCESS && bytes > 1 &&
        (log = PyMem_Malloc(bytes)) != NULL && rtc_api.log(prog, log) == NVRTC_SUCCESS) {
        snprintf(why, why_bytes, "%s", log);
    }
    else {
        snprintf(why, why_bytes, "%s", rtc_api.error_string(status));
    }
    PyMem_Free(log);
}

/* Compile `source` for sm_<arch> into a new PyMem cubin: 1; 0 when NVRTC
   fails (its log in why); -1 with MemoryError. */
static int
rtc_compile(const char *source, int arch, char **cubin, size_t *bytes, char *why,
                  size_t why_bytes)
{
    const int nheaders = nvrtc_header_count + 3;
    const char *names[16], *texts[16];
    char arch_option[48];
    const char *options[] = {arch_option, "--fmad=false", "-std=c++17", "-DDA_NO_COMPLEX_LOOPS"};
    nvrtcProgram prog = NULL;
    nvrtcResult status;
    int j, result = 0;

    *cubin = NULL;
    if (nheaders > 16) {
        snprintf(why, why_bytes, "too many embedded headers");
        return 0;
    }
    for (j = 0; j < nvrtc_header_count; j++) {
        names[j] = nvrtc_header_names[j];
        texts[j] = nvrtc_header_texts[j];
    }
    names[j] = "stdint.h";
    texts[j++] = rtc_stdint_h;
    names[j] = "cuda_fp16.h";
    texts[j++] = rtc_fp16_h;
    /* memcpy is a builtin of device code */
    names[j] = "string.h";
    texts[j] = "";
    snprintf(arch_option, sizeof arch_option, "--gpu-architecture=sm_%d", arch);
    status = rtc_api.create(&prog, source, "devarray_fused.cu", nheaders, texts, names);
    if (status != NVRTC_SUCCESS) {
        snprintf(why, why_bytes, "%s", rtc_api.error_string(status));
        return 0;
    }
    Py_BEGIN_ALLOW_THREADS
    status = rtc_api.compile(prog, (int)(sizeof options / sizeof options[0]), options);
    Py_END_ALLOW_THREADS
    if (status != NVRTC_SUCCESS) {
        rtc_compile_error(prog, status, why, why_bytes);
        goto done;
    }
    status = rtc_api.cubin_size(prog, bytes);
    if (status != NVRTC_SUCCESS || *bytes == 0) {
        snprintf(why, why_bytes, "no cubin: %s", rtc_api.error_string(status));
        goto done;
    }
    if ((*cubin = PyMem_Malloc(*bytes)) == NULL) {
        PyErr_NoMemory();
        result = -1;
        goto done;
    }
    status = rtc_api.cubin(prog, *cubin);
    if (status != NVRTC_SUCCESS) {
        snprintf(why, why_bytes, "%s", rtc_api.error_string(status));
        PyMem_Free(*cubin);
        *cubin = NULL;
        goto done;
    }
    result = 1;
done:
    rtc_api.destroy(&prog);
    return result;
}

/* ---- the disk cache ---------------------------------------------------------- */

static const char rtc_file_magic[8] = "DAJIT1\n";

/* The cache file of `source` for sm_<arch> into path: 1, or 0 when there
   is no cache directory (created here when missing). */
static int
rtc_cache_path(const char *source, int arch, char *path, size_t bytes)
{
    const char *dir = getenv("DEVARRAY_CACHE_DIR");
    const char *base = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    char root[RTC_PATH_BYTES];
    uint64_t h;
    int n;

    if (dir != NULL && dir[0] != '\0') {
        n = snprintf(root, sizeof root, "%s", dir);
    }
    else if (base != NULL && base[0] != '\0') {
        n = snprintf(root, sizeof root, "%s/devarray", base);
    }
    else if (home != NULL && home[0] != '\0') {
        n = snprintf(root, sizeof root, "%s/.cache/devarray", home);
    }
    else {
        return 0;
    }
    if (n <= 0 || (size_t)n >= sizeof root) {
        return 0;
    }
    /* the parents first, one level at a time */
    {
        char *slash;
        for (slash = strchr(root + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
            *slash = '\0';
            if (mkdir(root, 0755) != 0 && errno != EEXIST) {
                return 0;
            }
            *slash = '/';
        }
        if (mkdir(root, 0755) != 0 && errno != EEXIST) {
            return 0;
        }
    }
    /* the headers too: a devarray with other headers must not reuse it */
    h = rtc_hash(source, strlen(source), RTC_HASH_SEED);
    for (n = 0; n < nvrtc_header_count; n++) {
        h = rtc_hash(nvrtc_header_texts[n], strlen(nvrtc_header_texts[n]), h);
    }
    h = rtc_hash(&rtc_api.major, sizeof rtc_api.major, h);
    h = rtc_hash(&rtc_api.minor, sizeof rtc_api.minor, h);
    n = snprintf(path, bytes, "%s/fuse-sm%d-%016llx.cubin", root, arch, (unsigned long long)h);
    return n > 0 && (size_t)n < bytes;
}

/* The cached cubin of `source` at path into a new PyMem buffer: 1; 0 when
   absent, unreadable or another source's; -1 with MemoryError. */
static int
rtc_cache_read(const char *path, const char *source, char **cubin, size_t *bytes)
{
    const size_t source_len = strlen(source);
    char magic[sizeof rtc_file_magic];
    uint64_t stored_len;
    char *stored = NULL;
    long end;
    int result = 0;
    FILE *file = fopen(path, "rb");

    *cubin = NULL;
    if (file == NULL) {
        return 0;
    }
    if (fread(magic, 1, sizeof magic, file) != sizeof magic ||
        memcmp(magic, rtc_file_magic, sizeof magic) != 0 ||
        fread(&stored_len, sizeof stored_len, 1, file) != 1 || stored_len != source_len ||
        fseek(file, 0, SEEK_END) != 0 || (end = ftell(file)) < 0 ||
        (size_t)end <= sizeof magic + sizeof stored_len + source_len ||
        fseek(file, (long)(sizeof magic + sizeof stored_len), SEEK_SET) != 0) {
        goto done;
    }
    *bytes = (size_t)end - sizeof magic - sizeof stored_len - source_len;
    stored = PyMem_Malloc(source_len + 1);
    *cubin = PyMem_Malloc(*bytes);
    if (stored == NULL || *cubin == NULL) {
        PyErr_NoMemory();
        result = -1;
        goto done;
    }
    if (fread(stored, 1, source_len, file) == source_len &&
        memcmp(stored, source, source_len) == 0 && fread(*cubin, 1, *bytes, file) == *bytes) {
        result = 1;
    }
done:
    if (result != 1) {
        PyMem_Free(*cubin);
        *cubin = NULL;
    }
    PyMem_Free(stored);
    fclose(file);
    return result;
}

/* Store the cubin at path (through a temporary file and a rename); a
   failure only means the next process compiles again. */
static void
rtc_cache_write(const char *path, const char *source, const char *cubin, size_t bytes)
{
    const uint64_t source_len = strlen(source);
    char temp[RTC_PATH_BYTES];
    int ok, n = snprintf(temp, sizeof temp, "%s.%ld.tmp", path, (long)getpid());
    FILE *file;

    if (n <= 0 || (size_t)n >= sizeof temp || (file = fopen(temp, "wb")) == NULL) {
        return;
    }
    ok = fwrite(rtc_file_magic, 1, sizeof rtc_file_magic, file) == sizeof rtc_file_magic &&
         fwrite(&source_len, sizeof source_len, 1, file) == 1 &&
         fwrite(source, 1, source_len, file) == source_len &&
         fwrite(cubin, 1, bytes, file) == bytes;
    ok = fclose(file) == 0 && ok;
    if (!ok || rename(temp, path) != 0) {
        remove(temp);
    }
}


int
rtc_load(char *why, size_t why_bytes)
{
    static char absent_why[2048];

    if (rtc_api.state == RTC_UNTRIED) {
        rtc_api.state =
            rtc_find(absent_why, sizeof absent_why) ? RTC_LOADED : RTC_ABSENT;
    }
    if (rtc_api.state == RTC_ABSENT) {
        snprintf(why, why_bytes, "%s", absent_why);
        return 0;
    }
    return 1;
}

int
rtc_oldest_arch(void)
{
    int count = 0, *archs, arch = 0;

    if (rtc_api.num_archs(&count) != NVRTC_SUCCESS || count < 1 ||
        (archs = PyMem_Calloc((size_t)count, sizeof(int))) == NULL) {
        return 0;
    }
    if (rtc_api.archs(archs) == NVRTC_SUCCESS) {
        arch = archs[0];
    }
    PyMem_Free(archs);
    return arch;
}

int
rtc_cubin(const char *source, int arch, int use_cache, char **cubin, size_t *bytes,
            char *why, size_t why_bytes)
{
    char path[RTC_PATH_BYTES];
    const int cached = use_cache && rtc_cache_path(source, arch, path, sizeof path);
    int status;

    if (cached && (status = rtc_cache_read(path, source, cubin, bytes)) != 0) {
        return status;
    }
    status = rtc_compile(source, arch, cubin, bytes, why, why_bytes);
    if (status > 0 && cached) {
        rtc_cache_write(path, source, *cubin, *bytes);
    }
    return status;
}

#endif
