/* Deliberately calls the heap: the no-heap check must reject the library
 * built from this file (cross_no_heap_check_fails), proving it can fail. */
#include <stdlib.h>

void *nk_heap_canary(size_t n) { return malloc(n); }
