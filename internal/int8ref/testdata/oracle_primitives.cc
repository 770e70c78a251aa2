// Oracle generator: prints gemmlowp / TFLite reference values as JSON (see README.md).
// It only calls TFLite and gemmlowp; none of their code is in netkit.
#include "tensorflow/lite/kernels/internal/common.h"
#include "tensorflow/lite/kernels/internal/quantization_util.h"
#include "fixedpoint/fixedpoint.h"
#include <cstdio>
#include <vector>
#include <cmath>
using namespace gemmlowp;
template <int E> int32_t satpot(int32_t x) { return SaturatingRoundingMultiplyByPOT<E>(x); }
typedef int32_t (*fn)(int32_t);
template <int... E> struct T { static void fill(fn* t) { int i = 0; ((t[E] = &satpot<E>), ...); (void)i; } };
template <int IB> int32_t expn(int32_t a) { return exp_on_negative_values(FixedPoint<int32_t, IB>::FromRaw(a)).raw(); }
int main() {
  fn sat[32]; T<1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31>::fill(sat);
  std::vector<int32_t> v = {INT32_MIN, INT32_MIN+1, -1073741825, -1073741824, -1073741823, -65536, -12345, -7, -6, -5, -3, -2, -1, 0, 1, 2, 3, 5, 6, 7, 12345, 65536, 1073741823, 1073741824, 1073741825, INT32_MAX-1, INT32_MAX};
  printf("{\n\"srdhm\":[");
  bool first = true;
  for (int32_t a : v) for (int32_t b : v) { printf("%s[%d,%d,%d]", first?"":",", a, b, SaturatingRoundingDoublingHighMul(a, b)); first = false; }
  printf("],\n\"rdbpot\":["); first = true;
  for (int32_t a : v) for (int e = 0; e <= 31; e++) { printf("%s[%d,%d,%d]", first?"":",", a, e, RoundingDivideByPOT(a, e)); first = false; }
  printf("],\n\"satshl\":["); first = true;
  for (int32_t a : v) for (int e = 1; e <= 31; e++) { printf("%s[%d,%d,%d]", first?"":",", a, e, sat[e](a)); first = false; }
  // requantize: every shift, several vals/multipliers kept in range for left shifts
  std::vector<int32_t> ms = {0, 1073741824, 1073741825, 1288490189, 1518500250, 2147483646, 2147483647};
  std::vector<int32_t> vals = {INT32_MIN, -1000000007, -65536, -3, -2, -1, 0, 1, 2, 3, 5, 77, 65535, 999999937, INT32_MAX};
  printf("],\n\"requant\":["); first = true;
  for (int s = -31; s <= 30; s++) for (int32_t m : ms) for (int32_t x : vals) {
    if (s > 0) { int64_t y = (int64_t)x * ((int64_t)1 << s); if (y > INT32_MAX || y < INT32_MIN) { x = (int32_t)(x / ((int64_t)1 << s)); } }
    printf("%s[%d,%d,%d,%d]", first?"":",", x, m, s, tflite::MultiplyByQuantizedMultiplier(x, m, s)); first = false; }
  // QuantizeMultiplier
  std::vector<double> ds = {0.0, 1e-12, 4.6e-10, 4.656612873077393e-10, 4.656612873077392e-10, 2.3283064365386963e-10, 0.25, 0.3, 0.5, 0.75, 0.9999999997, 0.99999999977, 0.9999999998, 1.0, 1.5, 2.0, 3.0, 1e6, 1073741823.9, 1073741824.0, 2147483647.0, 2147483648.0, 4294967296.0, 1e10,
    0.0039215688593685627, 0.00048828125, 0.12345678901234, 0.000123456789, 7.62939453125e-06, 0.6666666666666666, 1.0/3.0};
  printf("],\n\"qm\":["); first = true;
  for (double d : ds) { int32_t m; int sh; tflite::QuantizeMultiplier(d, &m, &sh); printf("%s[%.17g,%d,%d]", first?"":",", d, m, sh); first = false; }
  // exp_on_negative_values ib 4,5; 1/(1+x); logistic/tanh q4
  std::vector<int32_t> ea;
  for (int32_t a : v) if (a <= 0) ea.push_back(a);
  for (int k = 0; k < 200; k++) ea.push_back(-(int32_t)((uint32_t)k * 10737418u + (uint32_t)k * k * 7u));
  for (int k = 0; k <= 31; k++) { ea.push_back(-(int32_t)((1u << k) & 0x7fffffffu)); }
  printf("],\n\"exp5\":["); first = true;
  for (int32_t a : ea) { printf("%s[%d,%d]", first?"":",", a, expn<5>(a)); first = false; }
  printf("],\n\"exp4\":["); first = true;
  for (int32_t a : ea) { printf("%s[%d,%d]", first?"":",", a, expn<4>(a)); first = false; }
  printf("],\n\"exp0\":["); first = true;
  for (int32_t a : ea) { if (a < -(1<<29)) continue; printf("%s[%d,%d]", first?"":",", a, expn<0>(a)); first = false; }
  printf("],\n\"exp6\":["); first = true;
  for (int32_t a : ea) { printf("%s[%d,%d]", first?"":",", a, expn<6>(a)); first = false; }
  std::vector<int32_t> ra;
  for (int32_t a : v) if (a >= 0) ra.push_back(a);
  for (int k = 0; k < 100; k++) ra.push_back((int32_t)((uint32_t)k * 21474836u + (uint32_t)k * k * 13u));
  printf("],\n\"recip\":["); first = true;
  for (int32_t a : ra) { printf("%s[%d,%d]", first?"":",", a, one_over_one_plus_x_for_x_in_0_1(FixedPoint<int32_t,0>::FromRaw(a)).raw()); first = false; }
  printf("],\n\"omxopx\":["); first = true;
  for (int32_t a : ra) { printf("%s[%d,%d]", first?"":",", a, one_minus_x_over_one_plus_x_for_x_in_0_1(FixedPoint<int32_t,0>::FromRaw(a)).raw()); first = false; }
  std::vector<int32_t> la = v;
  for (int k = -100; k <= 100; k++) la.push_back(k * 21474836 + k * k * 3);
  printf("],\n\"logistic4\":["); first = true;
  for (int32_t a : la) { if (a == INT32_MIN) continue; printf("%s[%d,%d]", first?"":",", a, logistic(FixedPoint<int32_t,4>::FromRaw(a)).raw()); first = false; }
  printf("],\n\"tanh4\":["); first = true;
  for (int32_t a : la) { if (a == INT32_MIN) continue; printf("%s[%d,%d]", first?"":",", a, tanh(FixedPoint<int32_t,4>::FromRaw(a)).raw()); first = false; }
  printf("]\n}\n");
}
