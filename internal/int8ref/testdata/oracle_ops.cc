// Oracle generator: runs TFLite's int8 reference kernels on random small
// cases and prints inputs, parameters and outputs as JSON (see README.md).
// It only calls TFLite; none of TFLite's code is in netkit.
#include "tensorflow/lite/kernels/internal/common.h"
#include "tensorflow/lite/kernels/internal/quantization_util.h"
#include "tensorflow/lite/kernels/internal/reference/integer_ops/conv.h"
#include "tensorflow/lite/kernels/internal/reference/integer_ops/depthwise_conv.h"
#include "tensorflow/lite/kernels/internal/reference/integer_ops/fully_connected.h"
#include "tensorflow/lite/kernels/internal/reference/integer_ops/pooling.h"
#include "tensorflow/lite/kernels/internal/reference/integer_ops/add.h"
#include "tensorflow/lite/kernels/internal/reference/integer_ops/mul.h"
#include "tensorflow/lite/kernels/internal/reference/integer_ops/logistic.h"
#include "tensorflow/lite/kernels/internal/reference/integer_ops/tanh.h"
#include "tensorflow/lite/kernels/internal/reference/softmax.h"
#include "tensorflow/lite/kernels/internal/reference/quantize.h"
#include "tensorflow/lite/kernels/internal/reference/dequantize.h"
#include "tensorflow/lite/kernels/padding.h"
#include <cstdio>
#include <vector>
#include <string>
using namespace tflite;
static RuntimeShape RS(std::initializer_list<int> l) { std::vector<int32_t> d(l.begin(), l.end()); return RuntimeShape((int)d.size(), d.data()); }
static uint32_t rs = 2463534242u;
static uint32_t rnd() { rs ^= rs << 13; rs ^= rs >> 17; rs ^= rs << 5; return rs; }
static int ri(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }
static float rf(float lo, float hi) { return lo + (hi - lo) * (float)((rnd() >> 8) / 16777216.0); }
template <typename T> static std::string js(const std::vector<T>& v) {
  std::string s = "["; char b[64];
  for (size_t i = 0; i < v.size(); i++) { snprintf(b, sizeof b, "%s%lld", i ? "," : "", (long long)v[i]); s += b; }
  return s + "]";
}
static std::string jf(const std::vector<float>& v) {
  std::string s = "["; char b[64];
  for (size_t i = 0; i < v.size(); i++) { snprintf(b, sizeof b, "%s%.9g", i ? "," : "", v[i]); s += b; }
  return s + "]";
}
static std::vector<int8_t> ri8(int n, int lo = -128, int hi = 127) { std::vector<int8_t> v(n); for (auto& x : v) x = (int8_t)ri(lo, hi); return v; }
static void act_range(int act, float s, int zp, int* lo, int* hi) {
  auto q = [&](float x) { return zp + (int32_t)TfLiteRound(x / s); };
  *lo = -128; *hi = 127;
  if (act == 1) { *lo = std::max(-128, q(0.0)); }
  if (act == 3) { *lo = std::max(-128, q(0.0)); *hi = std::min(127, q(6.0)); }
}
static const char* sep(int i) { return i ? ",\n" : ""; }
int main() {
  printf("{\n\"conv\":[\n");
  for (int t = 0; t < 40; t++) {
    int N = ri(1, 2), H = ri(1, 7), W = ri(1, 7), C = ri(1, 4), O = ri(1, 4), KH = ri(1, 3), KW = ri(1, 3);
    int sh = ri(1, 2), sw = ri(1, 2), dh = ri(1, 2), dw = ri(1, 2);
    TfLitePadding pad = (t % 2) ? kTfLitePaddingSame : kTfLitePaddingValid;
    int OH = ComputeOutSize(pad, H, KH, sh, dh), OW = ComputeOutSize(pad, W, KW, sw, dw);
    if (OH <= 0 || OW <= 0) { pad = kTfLitePaddingSame; OH = ComputeOutSize(pad, H, KH, sh, dh); OW = ComputeOutSize(pad, W, KW, sw, dw); }
    int ph = ComputePadding(sh, dh, H, KH, OH), pw = ComputePadding(sw, dw, W, KW, OW);
    float s_in = rf(0.005f, 0.1f), s_out = rf(0.02f, 0.3f); int zin = ri(-30, 30), zout = ri(-128, 20);
    std::vector<float> sw_(O); for (auto& x : sw_) x = rf(0.0005f, 0.03f);
    std::vector<int32_t> M(O); std::vector<int32_t> S(O);
    for (int c = 0; c < O; c++) { int sh_; QuantizeMultiplier((double)s_in * (double)sw_[c] / (double)s_out, &M[c], &sh_); S[c] = sh_; }
    int act = (t % 3 == 0) ? 1 : (t % 3 == 1 ? 0 : 3); int lo, hi; act_range(act, s_out, zout, &lo, &hi);
    auto x = ri8(N * H * W * C), w = ri8(O * KH * KW * C, -127, 127);
    std::vector<int32_t> bias(O); for (auto& b : bias) b = ri(-20000, 20000);
    bool has_bias = t % 5 != 4;
    std::vector<int8_t> y(N * OH * OW * O);
    ConvParams p{}; p.padding_values.height = ph; p.padding_values.width = pw; p.stride_height = sh; p.stride_width = sw;
    p.dilation_height_factor = dh; p.dilation_width_factor = dw; p.input_offset = -zin; p.output_offset = zout;
    p.quantized_activation_min = lo; p.quantized_activation_max = hi;
    std::vector<int> Si(S.begin(), S.end());
    reference_integer_ops::ConvPerChannel(p, M.data(), Si.data(), RS({N, H, W, C}), x.data(), RS({O, KH, KW, C}), w.data(),
      RS({O}), has_bias ? bias.data() : nullptr, RS({N, OH, OW, O}), y.data());
    printf("%s{\"in\":[%d,%d,%d,%d],\"k\":[%d,%d,%d],\"stride\":[%d,%d],\"dil\":[%d,%d],\"same\":%d,\"pad\":[%d,%d],\"out\":[%d,%d],"
      "\"s_in\":%.9g,\"s_out\":%.9g,\"s_w\":%s,\"zp_in\":%d,\"zp_out\":%d,\"act\":%d,\"act_min\":%d,\"act_max\":%d,\"M\":%s,\"shift\":%s,"
      "\"x\":%s,\"w\":%s,\"bias\":%s,\"y\":%s}", sep(t), N, H, W, C, O, KH, KW, sh, sw, dh, dw, pad == kTfLitePaddingSame, ph, pw, OH, OW,
      s_in, s_out, jf(sw_).c_str(), zin, zout, act, lo, hi, js(M).c_str(), js(S).c_str(), js(x).c_str(), js(w).c_str(),
      has_bias ? js(bias).c_str() : "null", js(y).c_str());
  }
  printf("],\n\"dw\":[\n");
  for (int t = 0; t < 40; t++) {
    int N = ri(1, 2), H = ri(1, 7), W = ri(1, 7), C = ri(1, 4), Mu = ri(1, 3), KH = ri(1, 3), KW = ri(1, 3);
    int O = C * Mu;
    int sh = ri(1, 2), sw = ri(1, 2), dh = ri(1, 2), dw = ri(1, 2);
    TfLitePadding pad = (t % 2) ? kTfLitePaddingSame : kTfLitePaddingValid;
    int OH = ComputeOutSize(pad, H, KH, sh, dh), OW = ComputeOutSize(pad, W, KW, sw, dw);
    if (OH <= 0 || OW <= 0) { pad = kTfLitePaddingSame; OH = ComputeOutSize(pad, H, KH, sh, dh); OW = ComputeOutSize(pad, W, KW, sw, dw); }
    int ph = ComputePadding(sh, dh, H, KH, OH), pw = ComputePadding(sw, dw, W, KW, OW);
    float s_in = rf(0.005f, 0.1f), s_out = rf(0.02f, 0.3f); int zin = ri(-30, 30), zout = ri(-128, 20);
    std::vector<float> sw_(O); for (auto& x : sw_) x = rf(0.0005f, 0.03f);
    std::vector<int32_t> M(O), S(O);
    for (int c = 0; c < O; c++) { int sh_; QuantizeMultiplier((double)s_in * (double)sw_[c] / (double)s_out, &M[c], &sh_); S[c] = sh_; }
    int act = t % 3; int lo, hi; act_range(act == 2 ? 3 : act, s_out, zout, &lo, &hi);
    auto x = ri8(N * H * W * C), w = ri8(KH * KW * O, -127, 127);
    std::vector<int32_t> bias(O); for (auto& b : bias) b = ri(-20000, 20000);
    std::vector<int8_t> y(N * OH * OW * O);
    DepthwiseParams p{}; p.padding_values.height = ph; p.padding_values.width = pw; p.stride_height = sh; p.stride_width = sw;
    p.dilation_height_factor = dh; p.dilation_width_factor = dw; p.depth_multiplier = Mu; p.input_offset = -zin; p.output_offset = zout;
    p.quantized_activation_min = lo; p.quantized_activation_max = hi;
    std::vector<int> Si(S.begin(), S.end());
    reference_integer_ops::DepthwiseConvPerChannel(p, M.data(), Si.data(), RS({N, H, W, C}), x.data(), RS({1, KH, KW, O}), w.data(),
      RS({O}), bias.data(), RS({N, OH, OW, O}), y.data());
    printf("%s{\"in\":[%d,%d,%d,%d],\"k\":[%d,%d],\"mult\":%d,\"stride\":[%d,%d],\"dil\":[%d,%d],\"same\":%d,\"pad\":[%d,%d],\"out\":[%d,%d],"
      "\"s_in\":%.9g,\"s_out\":%.9g,\"s_w\":%s,\"zp_in\":%d,\"zp_out\":%d,\"act_min\":%d,\"act_max\":%d,\"M\":%s,\"shift\":%s,"
      "\"x\":%s,\"w\":%s,\"bias\":%s,\"y\":%s}", sep(t), N, H, W, C, KH, KW, Mu, sh, sw, dh, dw, pad == kTfLitePaddingSame, ph, pw, OH, OW,
      s_in, s_out, jf(sw_).c_str(), zin, zout, lo, hi, js(M).c_str(), js(S).c_str(), js(x).c_str(), js(w).c_str(), js(bias).c_str(), js(y).c_str());
  }
  printf("],\n\"fc\":[\n");
  for (int t = 0; t < 30; t++) {
    int B = ri(1, 3), K = ri(1, 40), O = ri(1, 8);
    float s_in = rf(0.005f, 0.5f), s_w = rf(0.0005f, 0.05f), s_out = rf(0.01f, 0.5f); int zin = ri(-128, 30), zout = ri(-128, 30);
    int32_t M; int sh; QuantizeMultiplier((double)(s_in * s_w) / (double)s_out, &M, &sh);
    int32_t Mpc; int shpc; QuantizeMultiplier((double)s_in * (double)s_w / (double)s_out, &Mpc, &shpc);
    int act = t % 2; int lo, hi; act_range(act, s_out, zout, &lo, &hi);
    auto x = ri8(B * K), w = ri8(O * K, -127, 127);
    std::vector<int32_t> bias(O); for (auto& b : bias) b = ri(-20000, 20000);
    std::vector<int8_t> y(B * O);
    FullyConnectedParams p{}; p.input_offset = -zin; p.weights_offset = 0; p.output_offset = zout; p.output_multiplier = M; p.output_shift = sh;
    p.quantized_activation_min = lo; p.quantized_activation_max = hi;
    reference_integer_ops::FullyConnected(p, RS({B, K}), x.data(), RS({O, K}), w.data(), RS({O}), bias.data(), RS({B, O}), y.data());
    printf("%s{\"batch\":%d,\"depth\":%d,\"units\":%d,\"s_in\":%.9g,\"s_w\":%.9g,\"s_out\":%.9g,\"zp_in\":%d,\"zp_out\":%d,\"act\":%d,\"act_min\":%d,\"act_max\":%d,"
      "\"M\":%d,\"shift\":%d,\"M_pc\":%d,\"shift_pc\":%d,\"x\":%s,\"w\":%s,\"bias\":%s,\"y\":%s}", sep(t), B, K, O, s_in, s_w, s_out, zin, zout, act, lo, hi,
      M, sh, Mpc, shpc, js(x).c_str(), js(w).c_str(), js(bias).c_str(), js(y).c_str());
  }
  printf("],\n\"pool\":[\n");
  for (int t = 0; t < 40; t++) {
    int N = ri(1, 2), H = ri(1, 8), W = ri(1, 8), C = ri(1, 3), FH = ri(1, 4), FW = ri(1, 4), sh = ri(1, 3), sw = ri(1, 3);
    TfLitePadding pad = (t % 2) ? kTfLitePaddingSame : kTfLitePaddingValid;
    int OH = ComputeOutSize(pad, H, FH, sh, 1), OW = ComputeOutSize(pad, W, FW, sw, 1);
    if (OH <= 0 || OW <= 0) { pad = kTfLitePaddingSame; OH = ComputeOutSize(pad, H, FH, sh, 1); OW = ComputeOutSize(pad, W, FW, sw, 1); }
    int ph = ComputePadding(sh, 1, H, FH, OH), pw = ComputePadding(sw, 1, W, FW, OW);
    int lo = -128, hi = 127; if (t % 3 == 0) { lo = ri(-128, 0); hi = ri(0, 127); }
    auto x = ri8(N * H * W * C);
    std::vector<int8_t> ya(N * OH * OW * C), ym(N * OH * OW * C);
    PoolParams p{}; p.padding_values.height = ph; p.padding_values.width = pw; p.stride_height = sh; p.stride_width = sw; p.filter_height = FH; p.filter_width = FW;
    p.quantized_activation_min = lo; p.quantized_activation_max = hi;
    reference_integer_ops::AveragePool(p, RS({N, H, W, C}), x.data(), RS({N, OH, OW, C}), ya.data());
    reference_integer_ops::MaxPool(p, RS({N, H, W, C}), x.data(), RS({N, OH, OW, C}), ym.data());
    printf("%s{\"in\":[%d,%d,%d,%d],\"k\":[%d,%d],\"stride\":[%d,%d],\"same\":%d,\"pad\":[%d,%d],\"out\":[%d,%d],\"act_min\":%d,\"act_max\":%d,\"x\":%s,\"avg\":%s,\"max\":%s}",
      sep(t), N, H, W, C, FH, FW, sh, sw, pad == kTfLitePaddingSame, ph, pw, OH, OW, lo, hi, js(x).c_str(), js(ya).c_str(), js(ym).c_str());
  }
  printf("],\n\"add\":[\n");
  for (int t = 0; t < 30; t++) {
    int n = ri(1, 64);
    float s1 = rf(0.005f, 0.5f), s2 = rf(0.005f, 0.5f), so = rf(0.01f, 1.0f); int z1 = ri(-128, 127), z2 = ri(-128, 127), zo = ri(-128, 127);
    if (t == 0) { s2 = s1; }
    const int left_shift = 20; const double twice_max = 2 * std::max((double)s1, (double)s2);
    int32_t M1, M2, Mo; int sh1, sh2, sho;
    QuantizeMultiplier((double)s1 / twice_max, &M1, &sh1); QuantizeMultiplier((double)s2 / twice_max, &M2, &sh2);
    QuantizeMultiplier(twice_max / ((1 << left_shift) * (double)so), &Mo, &sho);
    int act = t % 2; int lo, hi; act_range(act, so, zo, &lo, &hi);
    auto a = ri8(n), b = ri8(n); std::vector<int8_t> y(n);
    ArithmeticParams p{}; p.input1_offset = -z1; p.input2_offset = -z2; p.output_offset = zo; p.left_shift = left_shift;
    p.input1_multiplier = M1; p.input1_shift = sh1; p.input2_multiplier = M2; p.input2_shift = sh2; p.output_multiplier = Mo; p.output_shift = sho;
    p.quantized_activation_min = lo; p.quantized_activation_max = hi;
    reference_integer_ops::Add(p, RS({n}), a.data(), RS({n}), b.data(), RS({n}), y.data());
    printf("%s{\"s1\":%.9g,\"s2\":%.9g,\"s_out\":%.9g,\"zp1\":%d,\"zp2\":%d,\"zp_out\":%d,\"act\":%d,\"act_min\":%d,\"act_max\":%d,\"M1\":%d,\"shift1\":%d,\"M2\":%d,\"shift2\":%d,\"Mo\":%d,\"shift_out\":%d,\"a\":%s,\"b\":%s,\"y\":%s}",
      sep(t), s1, s2, so, z1, z2, zo, act, lo, hi, M1, sh1, M2, sh2, Mo, sho, js(a).c_str(), js(b).c_str(), js(y).c_str());
  }
  printf("],\n\"mul\":[\n");
  for (int t = 0; t < 30; t++) {
    int n = ri(1, 64);
    float s1 = rf(0.005f, 0.5f), s2 = rf(0.005f, 0.5f), so = rf(0.01f, 1.0f); int z1 = ri(-128, 127), z2 = ri(-128, 127), zo = ri(-128, 127);
    int32_t Mo; int sho; QuantizeMultiplier((double)s1 * (double)s2 / (double)so, &Mo, &sho);
    int act = t % 2; int lo, hi; act_range(act, so, zo, &lo, &hi);
    auto a = ri8(n), b = ri8(n); std::vector<int8_t> y(n);
    ArithmeticParams p{}; p.input1_offset = -z1; p.input2_offset = -z2; p.output_offset = zo; p.output_multiplier = Mo; p.output_shift = sho;
    p.quantized_activation_min = lo; p.quantized_activation_max = hi;
    reference_integer_ops::Mul(p, RS({n}), a.data(), RS({n}), b.data(), RS({n}), y.data());
    printf("%s{\"s1\":%.9g,\"s2\":%.9g,\"s_out\":%.9g,\"zp1\":%d,\"zp2\":%d,\"zp_out\":%d,\"act\":%d,\"act_min\":%d,\"act_max\":%d,\"Mo\":%d,\"shift_out\":%d,\"a\":%s,\"b\":%s,\"y\":%s}",
      sep(t), s1, s2, so, z1, z2, zo, act, lo, hi, Mo, sho, js(a).c_str(), js(b).c_str(), js(y).c_str());
  }
  printf("],\n\"softmax\":[\n");
  for (int t = 0; t < 30; t++) {
    int rows = ri(1, 3), n = ri(1, 40); float s_in = rf(0.01f, 0.6f); float beta = (t % 4 == 3) ? 0.5f : 1.0f;
    if (t == 0) s_in = 1000.0f; // huge scale: capped real multiplier
    if (t == 1) s_in = 1e-4f;
    int32_t M; int sh; PreprocessSoftmaxScaling((double)beta, (double)s_in, 5, &M, &sh);
    int diff_min = -1.0 * CalculateInputRadius(5, sh);
    auto x = ri8(rows * n); std::vector<int8_t> y(rows * n);
    SoftmaxParams p{}; p.input_multiplier = M; p.input_left_shift = sh; p.diff_min = diff_min;
    reference_ops::Softmax(p, RS({rows, n}), x.data(), RS({rows, n}), y.data());
    printf("%s{\"rows\":%d,\"n\":%d,\"s_in\":%.9g,\"beta\":%.9g,\"M\":%d,\"shift\":%d,\"diff_min\":%d,\"x\":%s,\"y\":%s}", sep(t), rows, n, s_in, beta, M, sh, diff_min, js(x).c_str(), js(y).c_str());
  }
  printf("],\n\"logistic\":[\n");
  for (int t = 0; t < 12; t++) {
    float s = t == 0 ? 1.0f / 16 : rf(0.001f, 0.3f); int zp = t == 0 ? 0 : ri(-128, 127);
    const double real = (double)s * (double)(1 << 27); int sh; const double q = std::frexp(real, &sh);
    int32_t M = static_cast<int32_t>(TfLiteRound(q * (1ll << 31))); int radius = CalculateInputRadius(4, sh, 31);
    std::vector<int8_t> x(256), yl(256), yt(256); for (int i = 0; i < 256; i++) x[i] = (int8_t)(i - 128);
    reference_integer_ops::Logistic(zp, radius, M, sh, 256, x.data(), yl.data());
    reference_integer_ops::Tanh(zp, radius, M, sh, RS({256}), x.data(), RS({256}), yt.data());
    printf("%s{\"s_in\":%.9g,\"zp_in\":%d,\"M\":%d,\"shift\":%d,\"radius\":%d,\"logistic\":%s,\"tanh\":%s}", sep(t), s, zp, M, sh, radius, js(yl).c_str(), js(yt).c_str());
  }
  printf("],\n\"quantize\":[\n");
  for (int t = 0; t < 10; t++) {
    float s = rf(0.001f, 0.5f); int zp = ri(-128, 127);
    std::vector<float> f(64); for (int i = 0; i < 64; i++) f[i] = (i < 16) ? s * ((float)(i - 8) + 0.5f) : rf(-100.0f, 100.0f);
    std::vector<int8_t> q(64); std::vector<float> dq(64);
    QuantizationParams qp; qp.zero_point = zp; qp.scale = s;
    reference_ops::AffineQuantize(qp, RS({64}), f.data(), RS({64}), q.data());
    DequantizationParams dp; dp.scale = s; dp.zero_point = zp;
    reference_ops::Dequantize(dp, RS({64}), q.data(), RS({64}), dq.data());
    printf("%s{\"scale\":%.9g,\"zp\":%d,\"f\":%s,\"q\":%s,\"dq\":%s}", sep(t), s, zp, jf(f).c_str(), js(q).c_str(), jf(dq).c_str());
  }
  printf("]\n}\n");
}
