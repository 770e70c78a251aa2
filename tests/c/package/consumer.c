/* A program built against the installed netkit package, with a warning of
 * its own (an unused variable) that it compiles with -Wall but without
 * -Werror: it must build unless the package forces -Werror on it. */
#include <netkit.h>

int main(void) {
    int unused_on_purpose;
    return nk_abi_version() == NK_ABI_VERSION ? 0 : 1;
}
