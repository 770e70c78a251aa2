/*
 * posix_memalign for the bare-metal test builds: newlib 3.3 for
 * arm-none-eabi has memalign (whose blocks free() releases) but not
 * posix_memalign, which tests/c/testutil.c uses. Test support only; the
 * library never allocates.
 */
#include <errno.h>
#include <malloc.h>
#include <stddef.h>

int posix_memalign(void **out, size_t align, size_t n);

int posix_memalign(void **out, size_t align, size_t n) {
    if (align < sizeof(void *) || (align & (align - 1)) != 0) return EINVAL;
    void *p = memalign(align, n);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}
