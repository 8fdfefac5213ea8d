/*
 * A growing text buffer (see strbuf.h).
 *
 * Ownership: a strbuf owns its PyMem block until strbuf_release; the block
 * may move on every append.
 */
#include "interop/strbuf.h"

#include <string.h>

static void
strbuf_reserve(strbuf *sb, Py_ssize_t extra)
{
    Py_ssize_t cap;
    char *data;

    if (sb->failed || sb->len + extra <= sb->cap) {
        return;
    }
    cap = sb->cap > 0 ? sb->cap : 128;
    while (cap < sb->len + extra) {
        cap *= 2;
    }
    data = PyMem_Realloc(sb->data, (size_t)cap);
    if (data == NULL) {
        sb->failed = 1;
        return;
    }
    sb->data = data;
    sb->cap = cap;
}

void
strbuf_write(strbuf *sb, const char *s, Py_ssize_t n)
{
    strbuf_reserve(sb, n);
    if (!sb->failed && n > 0) {
        memcpy(sb->data + sb->len, s, (size_t)n);
        sb->len += n;
    }
}

void
strbuf_puts(strbuf *sb, const char *s)
{
    strbuf_write(sb, s, (Py_ssize_t)strlen(s));
}

void
strbuf_repeat(strbuf *sb, char c, Py_ssize_t n)
{
    strbuf_reserve(sb, n);
    if (!sb->failed && n > 0) {
        memset(sb->data + sb->len, c, (size_t)n);
        sb->len += n;
    }
}

void
strbuf_rstrip(strbuf *sb)
{
    while (sb->len > 0 && sb->data[sb->len - 1] == ' ') {
        sb->len--;
    }
}

int
strbuf_check(const strbuf *sb)
{
    if (sb->failed) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

void
strbuf_release(strbuf *sb)
{
    PyMem_Free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
}
