/*
 * Region markers for the nkinsn QEMU plugin (tools/qemu-plugin/nkinsn.c).
 * Call nk_bench_start() before and nk_bench_stop() after the code to
 * measure; the plugin, given the two functions' addresses, reports the
 * instructions executed in between. Include in exactly one file per program.
 *
 * The functions must stay out of line and distinct: each writes a different
 * value to a volatile so identical-code folding cannot merge them.
 */
#ifndef NK_BENCH_MARKERS_H
#define NK_BENCH_MARKERS_H

volatile unsigned nk_bench_marker_sink;

__attribute__((noinline, used)) void nk_bench_start(void) { nk_bench_marker_sink = 1u; }
__attribute__((noinline, used)) void nk_bench_stop(void) { nk_bench_marker_sink = 2u; }

#endif
