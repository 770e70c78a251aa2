/* A program built against the installed netkit package, with a warning of
 * its own (an unused variable) that it compiles with -Wall but without
 * -Werror: it must build unless the package forces -Werror on it. It is
 * built twice, through find_package and through `pkg-config --cflags
 * --libs netkit`; both must hand it the public configuration macros as
 * plain values. */
#include <netkit.h>
#include <stdio.h>

#ifndef NETKIT_LOAD_FOLD_BN
#error "the package does not define NETKIT_LOAD_FOLD_BN"
#endif
#if NETKIT_LOAD_FOLD_BN != 0 && NETKIT_LOAD_FOLD_BN != 1
#error "NETKIT_LOAD_FOLD_BN is not 0 or 1"
#endif

int main(void) {
    int unused_on_purpose;
    printf("netkit %s, ABI %u, NETKIT_LOAD_FOLD_BN=%d\n", nk_version(), (unsigned)nk_abi_version(),
           NETKIT_LOAD_FOLD_BN);
    return nk_abi_version() == NK_ABI_VERSION ? 0 : 1;
}
