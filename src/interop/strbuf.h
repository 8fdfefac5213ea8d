/*
 * A growing text buffer for building repr and str output.  Appends never
 * fail individually: an allocation failure is remembered and reported once
 * by strbuf_check.  Start from { 0 }; end with strbuf_release.
 */
#ifndef DEVARRAY_SRC_STRBUF_H_
#define DEVARRAY_SRC_STRBUF_H_

#include "base/common.h"

typedef struct {
    char *data;
    Py_ssize_t len;
    Py_ssize_t cap;
    int failed;
} strbuf;

/* Append n bytes of s, a NUL-terminated s, or n copies of c. */
void strbuf_write(strbuf *sb, const char *s, Py_ssize_t n);
void strbuf_puts(strbuf *sb, const char *s);
void strbuf_repeat(strbuf *sb, char c, Py_ssize_t n);

/* Drop trailing spaces. */
void strbuf_rstrip(strbuf *sb);

/* -1 with MemoryError when an append failed, else 0. */
int strbuf_check(const strbuf *sb);

/* Free the text and empty the buffer. */
void strbuf_release(strbuf *sb);

#endif /* DEVARRAY_SRC_STRBUF_H_ */
