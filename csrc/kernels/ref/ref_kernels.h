/*
 * ref_kernels.h — the portable float32 reference kernels.
 *
 * Plain math over explicit pointers, dims and parameters; they know nothing
 * of the op table, tensors or the arena, so an accelerated backend can
 * replace any of them one for one. Layout is NHWC (channels last). None
 * allocates or needs a workspace. Kernels whose op may run in place
 * (activations, batch norm, softmax, add/mul) accept y == x (and y == a);
 * the others take restrict pointers and need distinct buffers.
 *
 * The fused activation of conv/dense/pool/add/mul is a clamp to
 * [act_min, act_max] (-inf/+inf for unbounded).
 */
#ifndef NK_REF_KERNELS_H
#define NK_REF_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus)
#define NK_RESTRICT
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define NK_RESTRICT restrict
#else
#define NK_RESTRICT
#endif

#if defined(__GNUC__) || defined(__clang__)
#define NK_REF_HIDDEN __attribute__((visibility("hidden")))
#else
#define NK_REF_HIDDEN
#endif

/* 1 where the compiler can vectorize float loops (SSE2, NEON, Helium with
 * float, RISC-V V): kernels then keep four partial sums per output so the
 * sums vectorize without reassociation. On scalar FPUs (Cortex-M4/M7) those
 * extra sums spill to the stack, so kernels keep one per output instead.
 * Define it to 0 or 1 to override. */
#ifndef NK_REF_VECTOR_FPU
#if defined(__SSE2__) || defined(__ARM_NEON) || defined(__riscv_v) ||                          \
    (defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2))
#define NK_REF_VECTOR_FPU 1
#else
#define NK_REF_VECTOR_FPU 0
#endif
#endif

/* Placed before the 4-lane loop of a partial-sum kernel: keeps GCC from
 * unrolling it before vectorization (at -O3 it would otherwise vectorize
 * the outer loop with strided lanes, several times slower). */
#if defined(__GNUC__) && NK_REF_VECTOR_FPU
#define NK_REF_LANES _Pragma("GCC unroll 1")
#else
#define NK_REF_LANES
#endif

static inline float nk_clampf(float v, float lo, float hi) {
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
}

/* Maximum/minimum that pass a NaN in either operand through (numpy, ONNX). */
static inline float nk_maxf(float a, float b) {
    return (a != a || a > b) ? a : b;
}
static inline float nk_minf(float a, float b) {
    return (a != a || a < b) ? a : b;
}

/* Pool window taps [*lo, *hi) of k taps from input index `start` that land
 * inside [0, n) (dilation 1); float and int8 pools share it. */
static inline void nk_ref_pool_range(int32_t start, int32_t k, int32_t n, int32_t *lo,
                                     int32_t *hi) {
    *lo = start < 0 ? -start : 0;
    *hi = n - start < k ? n - start : k;
}
/* The same for k taps d apart (tap j reads start + j*d); empty (*lo >= *hi)
 * when none lands inside, which the validators rule out. Dilation 1 takes
 * the division-free path above. All values stay below 2^26 (validated
 * window), so int32 arithmetic does not overflow. */
static inline void nk_ref_pool_range_dil(int32_t start, int32_t k, int32_t d, int32_t n,
                                         int32_t *lo, int32_t *hi) {
    int32_t first, end;
    if (d == 1) {
        nk_ref_pool_range(start, k, n, lo, hi);
        return;
    }
    first = start < 0 ? (d - 1 - start) / d : 0;
    end = n > start ? (n - start + d - 1) / d : 0;
    *lo = first < k ? first : k;
    *hi = end < k ? end : k;
}

/* y[r, n] = clamp(sum_k x[r, k] * w[n, k] + bias[n]); bias may be NULL. */
NK_REF_HIDDEN void nk_ref_dense_f32(const float *NK_RESTRICT x, const float *NK_RESTRICT w,
                                    const float *NK_RESTRICT bias, float *NK_RESTRICT y,
                                    size_t rows, int32_t in_features, int32_t out_features,
                                    float act_min, float act_max);

/* Batched matrix product with numpy broadcasting of the batch dims:
 * a [..., M, K], b [..., K, N] -> y [..., M, N] (ranks 2..6; a missing
 * leading batch dim counts as 1), y = clamp(a @ b). y overlaps neither. */
NK_REF_HIDDEN void nk_ref_matmul_f32(const float *NK_RESTRICT a, const int32_t *a_dims,
                                     int32_t a_rank, const float *NK_RESTRICT b,
                                     const int32_t *b_dims, int32_t b_rank, float *NK_RESTRICT y,
                                     const int32_t *y_dims, int32_t y_rank, float act_min,
                                     float act_max);

/* Geometry of a 2-D convolution or pooling window over NHWC tensors.
 * Output pixel (oy, ox) reads input rows oy*stride_h - pad_top + ky*dil_h
 * (likewise for columns); positions outside the input are padding. */
typedef struct nk_ref_conv_geom {
    int32_t batch;
    int32_t in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t k_h, k_w;
    int32_t stride_h, stride_w;
    int32_t dil_h, dil_w;
    int32_t pad_top, pad_left;
    int32_t groups;            /* conv2d: in_c and out_c are multiples of it */
    int32_t multiplier;        /* depthwise: out_c = in_c * multiplier */
    int32_t count_include_pad; /* avg pool: divide by k_h*k_w, else by valid taps */
    float act_min, act_max;
} nk_ref_conv_geom;

/* w is [out_c, k_h, k_w, in_c/groups]; bias [out_c] or NULL. */
NK_REF_HIDDEN void nk_ref_conv2d_f32(const float *x, const float *NK_RESTRICT w,
                                     const float *NK_RESTRICT bias, float *y,
                                     const nk_ref_conv_geom *g);
/* w is [1, k_h, k_w, in_c*multiplier]; output channel c*multiplier+m reads
 * input channel c. bias [out_c] or NULL. */
NK_REF_HIDDEN void nk_ref_depthwise_conv2d_f32(const float *x,
                                               const float *NK_RESTRICT w,
                                               const float *NK_RESTRICT bias,
                                               float *y, const nk_ref_conv_geom *g);
/* Pools use k_h, k_w, strides, pads (dilation 1); out_c == in_c. Every
 * window must hold at least one input pixel (pads < kernel). */
NK_REF_HIDDEN void nk_ref_max_pool2d_f32(const float *x, float *y,
                                         const nk_ref_conv_geom *g);
NK_REF_HIDDEN void nk_ref_avg_pool2d_f32(const float *x, float *y,
                                         const nk_ref_conv_geom *g);
/* [batch, hw, c] -> [batch, c]: mean over hw. */
NK_REF_HIDDEN void nk_ref_global_avg_pool_f32(const float *NK_RESTRICT x, float *NK_RESTRICT y,
                                              int32_t batch, size_t hw, int32_t c);

/* Channels-last batch norm over `rows` rows of c channels:
 * y = (x - mean) * gamma / sqrt(var + eps) + beta. y may equal x. */
NK_REF_HIDDEN void nk_ref_batch_norm_f32(const float *x, float *y, size_t rows, int32_t c,
                                         const float *gamma, const float *beta,
                                         const float *mean, const float *var, float eps);

/* Layer normalization of `rows` rows of n values: y = (x - mean) /
 * sqrt(var + eps) * scale + bias with the row's mean and (biased) variance;
 * scale [n], bias [n] or NULL. y may equal x. */
NK_REF_HIDDEN void nk_ref_layer_norm_f32(const float *x, float *y, size_t rows, size_t n,
                                         const float *scale, const float *bias, float eps);

/* Elementwise activations over n values; y may equal x. */
NK_REF_HIDDEN void nk_ref_relu_f32(const float *x, float *y, size_t n);
NK_REF_HIDDEN void nk_ref_clip_f32(const float *x, float *y, size_t n, float lo, float hi);
NK_REF_HIDDEN void nk_ref_leaky_relu_f32(const float *x, float *y, size_t n, float alpha);
NK_REF_HIDDEN void nk_ref_sigmoid_f32(const float *x, float *y, size_t n);
NK_REF_HIDDEN void nk_ref_tanh_f32(const float *x, float *y, size_t n);
/* approximate 0: x/2 * (1 + erf(x/sqrt 2)); 1: the tanh form. */
NK_REF_HIDDEN void nk_ref_gelu_f32(const float *x, float *y, size_t n, int32_t approximate);
/* Softmax of beta*x over each row of `cols` values (max-subtracted); y may equal x. */
NK_REF_HIDDEN void nk_ref_softmax_f32(const float *x, float *y, size_t rows, size_t cols,
                                      float beta);

/* y = clamp(a + b) / clamp(a * b) with numpy broadcasting, ranks <= 6
 * (dims outermost first; a missing leading dim counts as 1). y may equal a
 * when y's shape is a's (up to leading 1s); likewise for b. */
NK_REF_HIDDEN void nk_ref_add_f32(const float *a, const int32_t *a_dims, int32_t a_rank,
                                  const float *b, const int32_t *b_dims, int32_t b_rank,
                                  float *y, const int32_t *y_dims, int32_t y_rank,
                                  float act_min, float act_max);
NK_REF_HIDDEN void nk_ref_mul_f32(const float *a, const int32_t *a_dims, int32_t a_rank,
                                  const float *b, const int32_t *b_dims, int32_t b_rank,
                                  float *y, const int32_t *y_dims, int32_t y_rank,
                                  float act_min, float act_max);

/* Every binary op with numpy broadcasting, as nk_ref_add_f32 (same shapes
 * rules, y may equal a or b): y = clamp(a op b). MAX/MIN pass NaN through;
 * POW is powf. */
typedef enum nk_ref_binop {
    NK_BINOP_ADD,
    NK_BINOP_MUL,
    NK_BINOP_SUB,
    NK_BINOP_DIV,
    NK_BINOP_MAX,
    NK_BINOP_MIN,
    NK_BINOP_POW
} nk_ref_binop;
NK_REF_HIDDEN void nk_ref_binary_f32(nk_ref_binop kind, const float *a, const int32_t *a_dims,
                                     int32_t a_rank, const float *b, const int32_t *b_dims,
                                     int32_t b_rank, float *y, const int32_t *y_dims,
                                     int32_t y_rank, float act_min, float act_max);

/* The binary ops on integer, float16 and double tensors (graph I/O of ONNX
 * models; one element type for a, b and y): elements of `size` bytes (1, 2,
 * 4 or 8) that are signed or unsigned integers, or IEEE floats (size 2
 * binary16, size 8 binary64; MAX and MIN only, compared as integers, NaN
 * passed through as nk_maxf). Integer ADD, SUB and MUL wrap; DIV truncates
 * toward zero, gives 0 for a zero divisor and wraps the one overflowing
 * quotient (minimum / -1). No clamp, no POW. Same broadcasting rules as
 * nk_ref_binary_f32; y may equal a or b. */
typedef enum nk_ref_num { NK_NUM_SIGNED, NK_NUM_UNSIGNED, NK_NUM_FLOAT } nk_ref_num;
NK_REF_HIDDEN void nk_ref_binary_typed(nk_ref_binop kind, nk_ref_num num, uint32_t size,
                                       const void *a, const int32_t *a_dims, int32_t a_rank,
                                       const void *b, const int32_t *b_dims, int32_t b_rank,
                                       void *y, const int32_t *y_dims, int32_t y_rank);

/* The numpy broadcast of a and b to y as runs: fn(ctx, ia, sa, ib, sb, iy,
 * n) covers y[iy .. iy+n), reading a from element ia with stride sa and b
 * from ib with stride sb, each stride 1 (contiguous) or 0 (one value
 * repeated). Size-1 output dims are dropped and neighbouring dims that
 * broadcast alike merged, so a per-channel operand gives one run per
 * pixel and equal shapes a single run. Runs go in output order. */
typedef void (*nk_ref_bcast_fn)(void *ctx, size_t ia, size_t sa, size_t ib, size_t sb, size_t iy,
                                size_t n);
NK_REF_HIDDEN void nk_ref_broadcast_runs(const int32_t *a_dims, int32_t a_rank,
                                         const int32_t *b_dims, int32_t b_rank,
                                         const int32_t *y_dims, int32_t y_rank,
                                         nk_ref_bcast_fn fn, void *ctx);

/* Unary math over n values; y may equal x. */
typedef enum nk_ref_unop {
    NK_UNOP_EXP,
    NK_UNOP_SQRT,
    NK_UNOP_NEG,
    NK_UNOP_ABS,
    NK_UNOP_RECIPROCAL
} nk_ref_unop;
NK_REF_HIDDEN void nk_ref_unary_f32(nk_ref_unop kind, const float *x, float *y, size_t n);
/* y = max(0, min(1, alpha*x + beta)); hard_swish: y = x * hard_sigmoid(x)
 * with alpha 1/6, beta 1/2 (ONNX HardSwish). y may equal x. */
NK_REF_HIDDEN void nk_ref_hard_sigmoid_f32(const float *x, float *y, size_t n, float alpha,
                                           float beta);
NK_REF_HIDDEN void nk_ref_hard_swish_f32(const float *x, float *y, size_t n);

/* Recurrent layers (ONNX LSTM and GRU) over a whole sequence. */
typedef enum nk_ref_rnn_cell { NK_RNN_LSTM, NK_RNN_GRU } nk_ref_rnn_cell;
/* Gate activations (the codes of the LSTM/GRU op params). */
typedef enum nk_ref_rnn_act_kind {
    NK_RNN_ACT_SIGMOID,
    NK_RNN_ACT_TANH,
    NK_RNN_ACT_RELU,
    NK_RNN_ACT_HARD_SIGMOID,
    NK_RNN_ACT_LEAKY_RELU,
    NK_RNN_ACT_COUNT
} nk_ref_rnn_act_kind;
typedef struct nk_ref_rnn_act {
    int32_t kind; /* nk_ref_rnn_act_kind */
    float alpha, beta;
} nk_ref_rnn_act;
/* y = act(x) over n values, by the activation kernels; y may equal x. */
NK_REF_HIDDEN void nk_ref_rnn_activate(nk_ref_rnn_act a, const float *x, float *y, size_t n);
/* A float32 dense kernel with nk_ref_dense_f32's arguments. */
typedef void (*nk_ref_dense_f32_fn)(const float *x, const float *w, const float *bias, float *y,
                                    size_t rows, int32_t in_features, int32_t out_features,
                                    float act_min, float act_max);
typedef struct nk_ref_rnn_args {
    int32_t cell;                /* nk_ref_rnn_cell */
    int32_t seq, batch, input, hidden, dirs;
    int32_t reverse;             /* one direction, run last step first */
    int32_t batch_first;         /* ONNX layout 1: x [B,T,I], y [B,T,D,H], states [B,D,H] */
    int32_t linear_before_reset; /* GRU */
    float clip;                  /* pre-activation clamp to [-clip, clip]; +inf: none */
    nk_ref_rnn_act act[6];       /* f, g, h per direction (GRU: f, g) */
    const float *x;              /* [T,B,I] */
    const float *w, *r, *b;      /* [D,G*H,I], [D,G*H,H], [D,2*G*H] or NULL (G: 4 LSTM, 3 GRU) */
    const float *h0, *c0, *p;    /* [D,B,H] or NULL; peepholes [D,3H] (i, o, f) or NULL */
    const int32_t *seq_lens;     /* [B] (each 1..T) or NULL: all T */
    float *y;                    /* [T,D,B,H] or NULL */
    float *y_h, *y_c;            /* [D,B,H]: the states, written in place (h0/c0 may equal them) */
    float *work;                 /* LSTM 8H, GRU 6H floats */
    nk_ref_dense_f32_fn dense;   /* the gate products' kernel (NULL: nk_ref_dense_f32) */
} nk_ref_rnn_args;
NK_REF_HIDDEN void nk_ref_rnn_f32(const nk_ref_rnn_args *a);

/* The dims of a reduction as runs: size-1 dims dropped, neighbours that are
 * both reduced or both kept (mask bit d: dim d reduced) merged. Fills len
 * and red (1: reduced) for each of the runs (at most 6) and returns how
 * many there are. */
static inline int32_t nk_ref_reduce_runs(const int32_t *dims, int32_t rank, uint32_t mask,
                                         size_t *len, unsigned char *red) {
    int32_t r = 0, d;
    for (d = 0; d < rank; d++) {
        const unsigned char f = (unsigned char)((mask >> d) & 1u);
        if (dims[d] == 1)
            continue;
        if (r > 0 && red[r - 1] == f) {
            len[r - 1] *= (size_t)dims[d];
        } else {
            len[r] = (size_t)dims[d];
            red[r++] = f;
        }
    }
    return r;
}

/* Reduction of x (dims outermost first, rank <= 6) over the dims whose bit
 * is set in `mask`; y has x's dims with those set to 1 (keepdims). MAX
 * passes NaN through; MEAN is the sum over the count. y must not overlap x. */
typedef enum nk_ref_reduce {
    NK_REDUCE_MEAN,
    NK_REDUCE_SUM,
    NK_REDUCE_MAX
} nk_ref_reduce;
NK_REF_HIDDEN void nk_ref_reduce_f32(nk_ref_reduce kind, const float *NK_RESTRICT x,
                                     const int32_t *dims, int32_t rank, uint32_t mask,
                                     float *NK_RESTRICT y);

/* The data-movement kernels below work for any dtype: elements are `es`
 * bytes (1, 2 or 4; other sizes work, slower).
 *
 * Concatenation along one axis: the tensors are viewed as [outer, axis_i,
 * inner]; y is [outer, sum axis_i, inner]. */
NK_REF_HIDDEN void nk_ref_concat(const void *const *xs, const int32_t *axis_dims, int32_t n_in,
                                 void *y, size_t outer, size_t inner, size_t es);

#define NK_PAD_CONSTANT 0
#define NK_PAD_REFLECT 1
#define NK_PAD_EDGE 2
/* out_dims[d] = in_dims[d] + before[d] + after[d]; before may be negative
 * (cropping). Reflect needs |pads| <= dim-1 (mirror without the edge), edge
 * repeats the border value, constant fills the es bytes at `value`. */
NK_REF_HIDDEN void nk_ref_pad(const void *NK_RESTRICT x, const int32_t *in_dims, int32_t rank,
                              const int32_t *before, void *NK_RESTRICT y,
                              const int32_t *out_dims, int32_t mode, const void *value,
                              size_t es);
/* y[i] = x[begin + i*step] per dim (step may be negative; every index is
 * inside x, which the caller checked); rank <= 6. */
NK_REF_HIDDEN void nk_ref_slice(const void *NK_RESTRICT x, const int32_t *in_dims, int32_t rank,
                                const int32_t *begin, const int32_t *step, void *NK_RESTRICT y,
                                const int32_t *out_dims, size_t es);
/* y's dim i is x's dim perm[i]; rank <= 6. */
NK_REF_HIDDEN void nk_ref_transpose(const void *NK_RESTRICT x, const int32_t *in_dims,
                                    int32_t rank, const int32_t *perm, void *NK_RESTRICT y,
                                    size_t es);

/* RESIZE2D (docs/NK_FORMAT.md): mode, coordinate transform and nearest
 * rounding as in ONNX Resize; scales are output/input. */
#define NK_RESIZE_NEAREST 0
#define NK_RESIZE_BILINEAR 1
#define NK_RESIZE_CUBIC 2
#define NK_RESIZE_HALF_PIXEL 0
#define NK_RESIZE_ALIGN_CORNERS 1
#define NK_RESIZE_ASYMMETRIC 2
#define NK_RESIZE_PYTORCH_HALF_PIXEL 3
#define NK_RESIZE_TF_HALF_PIXEL_FOR_NN 4
#define NK_RESIZE_TF_CROP_AND_RESIZE 5
#define NK_RESIZE_ROUND_PREFER_FLOOR 0
#define NK_RESIZE_ROUND_PREFER_CEIL 1
#define NK_RESIZE_FLOOR 2
#define NK_RESIZE_CEIL 3
typedef struct nk_ref_resize_geom {
    int32_t batch, in_h, in_w, channels, out_h, out_w;
    int32_t mode, coord, rounding;
    float scale_h, scale_w;
    float cubic_a;           /* cubic: Keys' coefficient (ONNX cubic_coeff_a) */
    int32_t exclude_outside; /* cubic: taps off the input weigh 0, the rest renormalized */
    /* tf_crop_and_resize: the crop box (fractions of the input; start, end)
     * and the value of an output pixel whose source lies outside the input */
    float crop_h[2], crop_w[2], extrapolation;
} nk_ref_resize_geom;
/* Nearest over elements of es bytes (any dtype: it copies; f32 only with
 * tf_crop_and_resize, whose extrapolation value is a float). */
NK_REF_HIDDEN void nk_ref_resize2d_nearest(const void *NK_RESTRICT x, void *NK_RESTRICT y,
                                           const nk_ref_resize_geom *g, size_t es);
/* x [batch, in_h, in_w, channels] -> y [batch, out_h, out_w, channels];
 * out-of-range source coordinates take the edge value. Cubic is ONNX's:
 * four taps per axis, the input edge-extended by two pixels each side. */
NK_REF_HIDDEN void nk_ref_resize2d_f32(const float *NK_RESTRICT x, float *NK_RESTRICT y,
                                       const nk_ref_resize_geom *g);
/* Transposed convolution: w is [out_c, k_h, k_w, in_c] (groups 1); output
 * pixel (oy, ox) gathers input (iy, ix) through tap (ky, kx) where
 * iy*stride_h + ky*dil_h == oy + pad_top (likewise for columns). bias may
 * be NULL; the result is clamped to [act_min, act_max]. */
NK_REF_HIDDEN void nk_ref_conv_transpose2d_f32(const float *NK_RESTRICT x,
                                               const float *NK_RESTRICT w,
                                               const float *NK_RESTRICT bias,
                                               float *NK_RESTRICT y, const nk_ref_conv_geom *g);

#endif /* NK_REF_KERNELS_H */
