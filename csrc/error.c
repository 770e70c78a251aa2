/*
 * error.c — status names and error reports, without stdio: the core must
 * build freestanding, so messages are assembled with the small append
 * helpers below instead of snprintf. Each helper takes the current length
 * and returns the new one, always NUL-terminating and never writing past
 * `cap`, so callers can chain them without checking each step.
 *
 * With NETKIT_STRIP_MESSAGES the message builders are macros (format.h)
 * and only nk_fail (which leaves the message empty), nk_core_alloc and the
 * status names are compiled; their names are parenthesised below so those
 * macros do not expand here.
 */
#include "format.h"

const char *nk_status_str(nk_status s) {
    switch (s) {
    case NK_OK: return "ok";
    case NK_ERR_ARG: return "invalid argument";
    case NK_ERR_ARENA_OVERFLOW: return "arena overflow";
    case NK_ERR_FORMAT: return "bad model format";
    case NK_ERR_VERSION: return "unsupported format version";
    case NK_ERR_CHECKSUM: return "checksum mismatch";
    case NK_ERR_ALIGN: return "misaligned data";
    case NK_ERR_UNSUPPORTED: return "unsupported";
    case NK_ERR_SHAPE: return "shape mismatch";
    case NK_ERR_DTYPE: return "dtype mismatch";
    case NK_ERR_IO: return "i/o error";
    case NK_ERR_STATE: return "invalid state";
    }
    return "unknown status";
}

size_t nk_str_append(char *dst, size_t cap, size_t len, const char *s) {
    if (dst == NULL || cap == 0) return 0;
    if (len >= cap) len = cap - 1;
    if (s != NULL) {
        while (*s != '\0' && len + 1 < cap) dst[len++] = *s++;
    }
    dst[len] = '\0';
    return len;
}

nk_status(nk_fail)(nk_error_t *err, nk_status s, int32_t op_index, const char *msg) {
    if (err != NULL) {
        memset(err, 0, sizeof *err);
        err->status = (int32_t)s;
        err->op_index = op_index;
#if NETKIT_STRIP_MESSAGES
        /* no text at all: the status names stay out of the firmware unless
         * it calls nk_status_str(err->status) itself */
        (void)msg;
#else
        nk_str_append(err->message, sizeof err->message, 0, msg != NULL ? msg : nk_status_str(s));
#endif
    }
    return s;
}

/* The helpers below serve the loader and planner (declared in format.h). */
#if !NETKIT_STRIP_MESSAGES

void nk_msg_s(nk_msg *m, const char *s) {
    m->len = nk_str_append(m->text, sizeof m->text, m->len, s);
}

void nk_msg_u(nk_msg *m, uint64_t v) {
    char digits[21];
    size_t n = sizeof digits - 1;
    digits[n] = '\0';
    do {
        digits[--n] = (char)('0' + (int)(v % 10u));
        v /= 10u;
    } while (v != 0);
    nk_msg_s(m, digits + n);
}

void nk_msg_i(nk_msg *m, int64_t v) {
    uint64_t u = (uint64_t)v;
    if (v < 0) {
        nk_msg_s(m, "-");
        u = 0u - u; /* in unsigned arithmetic: INT64_MIN does not overflow */
    }
    nk_msg_u(m, u);
}

void nk_msg_fmt(nk_msg *m, const char *fmt, const char *s, const uint32_t *v) {
    static const char hex[] = "0123456789abcdef";
    char one[11];
    int i;
    for (; *fmt != '\0'; fmt++) {
        if (*fmt != '%') {
            one[0] = *fmt;
            one[1] = '\0';
            nk_msg_s(m, one);
            continue;
        }
        switch (*++fmt) {
        case 's': nk_msg_s(m, s); break;
        case 'q':
            if (s != NULL && s[0] != '\0') {
                nk_msg_s(m, " (\"");
                nk_msg_s(m, s);
                nk_msg_s(m, "\")");
            }
            break;
        case 'd': nk_msg_i(m, (int32_t)*v++); break;
        case 'x':
            one[0] = '0';
            one[1] = 'x';
            for (i = 0; i < 8; i++) one[2 + i] = hex[(*v >> (28 - 4 * i)) & 15u];
            one[10] = '\0';
            v++;
            nk_msg_s(m, one);
            break;
        default: nk_msg_u(m, *v++); break;
        }
    }
}

nk_status nk_fail_f(nk_error_t *err, nk_status st, int32_t op_index, const char *fmt,
                    const char *s, const uint32_t *v) {
    nk_msg m = NK_MSG_INIT;
    nk_msg_fmt(&m, fmt, s, v);
    return nk_fail(err, st, op_index, m.text);
}

void nk_msg_op_ref(nk_msg *m, int32_t index, const nk_op_rt *op) {
    uint32_t v[2];
    v[0] = (uint32_t)index;
    if (op == NULL) {
        nk_msg_fmt(m, "op %d", NULL, v);
        return;
    }
    v[1] = op->type;
    if (op->def != NULL)
        nk_msg_fmt(m, "op %d (%s", op->def->name, v);
    else
        nk_msg_fmt(m, "op %d (type %u", NULL, v);
    if (op->name != NULL && op->name[0] != '\0') nk_msg_fmt(m, " \"%s\"", op->name, v);
    nk_msg_s(m, ")");
}

nk_status nk_fail_op(nk_error_t *err, nk_status st, int32_t index, const nk_op_rt *op,
                     const char *fmt, const char *s, const uint32_t *v) {
    nk_msg m = NK_MSG_INIT;
    nk_msg_op_ref(&m, index, op);
    nk_msg_s(&m, ": ");
    nk_msg_fmt(&m, fmt, s, v);
    return nk_fail(err, st, index, m.text);
}
#endif /* !NETKIT_STRIP_MESSAGES */

void *(nk_core_alloc)(nk_arena_t *a, size_t size, const char *what, int32_t op_index,
                      const nk_op_rt *op, nk_error_t *err) {
    void *p = nk_arena_alloc_zeroed(a, size, NK_PAYLOAD_ALIGN);
    if (p == NULL) {
        nk_msg m = NK_MSG_INIT;
        size_t remaining = nk_arena_remaining(a), free_bytes = remaining;
        size_t capacity = nk_arena_capacity(a);
        if (a != NULL && a->base != NULL) {
            size_t pad = (size_t)(0u - ((uintptr_t)a->base + a->used)) & (NK_PAYLOAD_ALIGN - 1);
            free_bytes = pad < remaining ? remaining - pad : 0;
        }
        /* sizes as u64: on a host they can pass 32 bits */
        nk_msg_s(&m, "arena overflow: ");
        nk_msg_u(&m, size);
        nk_msg_fmt(&m, " B for %s", what, NULL);
        if (op_index >= 0) {
            nk_msg_s(&m, " of ");
            nk_msg_op_ref(&m, op_index, op);
        }
        nk_msg_s(&m, ", ");
        nk_msg_u(&m, free_bytes);
        nk_msg_s(&m, " of ");
        nk_msg_u(&m, capacity);
        nk_msg_s(&m, " B free");
        nk_fail(err, NK_ERR_ARENA_OVERFLOW, op_index, m.text);
        if (err != NULL) {
            err->requested = size;
            err->free_bytes = free_bytes;
            err->capacity = capacity;
        }
    }
    return p;
}
