/*
 * The test vectors a cross model test embeds (netkit-mcu-tests.cmake): up to
 * NK_VEC_MAX input and expected-output .npy images, one per graph input and
 * output, as nk_in<k>_npy / nk_out<k>_npy arrays. Absent ones are weak
 * symbols that resolve to NULL, so one program serves every model.
 */
#ifndef NK_CROSS_VECTORS_H
#define NK_CROSS_VECTORS_H

#include <stddef.h>

#define NK_VEC_MAX 4

#define NK_VEC_DECL(sym)                                             \
    extern const unsigned char sym[] __attribute__((weak));          \
    extern const size_t sym##_len __attribute__((weak));

NK_VEC_DECL(nk_in0_npy)
NK_VEC_DECL(nk_in1_npy)
NK_VEC_DECL(nk_in2_npy)
NK_VEC_DECL(nk_in3_npy)
NK_VEC_DECL(nk_out0_npy)
NK_VEC_DECL(nk_out1_npy)
NK_VEC_DECL(nk_out2_npy)
NK_VEC_DECL(nk_out3_npy)

typedef struct nk_vec {
    const unsigned char *img;
    const size_t *len;
} nk_vec;

static const nk_vec nk_vec_in[NK_VEC_MAX] = {
    {nk_in0_npy, &nk_in0_npy_len},
    {nk_in1_npy, &nk_in1_npy_len},
    {nk_in2_npy, &nk_in2_npy_len},
    {nk_in3_npy, &nk_in3_npy_len},
};
static const nk_vec nk_vec_out[NK_VEC_MAX] = {
    {nk_out0_npy, &nk_out0_npy_len},
    {nk_out1_npy, &nk_out1_npy_len},
    {nk_out2_npy, &nk_out2_npy_len},
    {nk_out3_npy, &nk_out3_npy_len},
};

/* How many leading entries are present. */
static int nk_vec_count(const nk_vec *v) {
    int n = 0;
    while (n < NK_VEC_MAX && v[n].img != NULL && v[n].len != NULL) n++;
    return n;
}

#endif
