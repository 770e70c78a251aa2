// TFLite Micro host runner used to make models/tflm_golden.json (see README.md):
// runs a .tflite on an input file, writes the output (and, with a 4th argument,
// every operator output). It only calls TFLM; none of TFLM's code is in netkit.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/schema/schema_generated.h"
static std::vector<uint8_t> rd(const char* p) { FILE* f = fopen(p, "rb"); if (!f) { perror(p); exit(2); } std::vector<uint8_t> b; int c; while ((c = fgetc(f)) != EOF) b.push_back((uint8_t)c); fclose(f); return b; }
alignas(16) static uint8_t arena[4 << 20];
int main(int argc, char** argv) {
  if (argc < 4) { fprintf(stderr, "usage: model input output\n"); return 2; }
  auto mb = rd(argv[1]); auto in = rd(argv[2]);
  std::vector<uint8_t> model(mb.size() + 16); uint8_t* mp = model.data(); while ((uintptr_t)mp % 16) mp++; memcpy(mp, mb.data(), mb.size());
  const tflite::Model* m = tflite::GetModel(mp);
  static tflite::MicroMutableOpResolver<16> r;
  r.AddConv2D(); r.AddDepthwiseConv2D(); r.AddFullyConnected(); r.AddAveragePool2D(); r.AddMaxPool2D(); r.AddReshape(); r.AddSoftmax();
  r.AddAdd(); r.AddMul(); r.AddQuantize(); r.AddDequantize(); r.AddLogistic(); r.AddTanh(); r.AddPad(); r.AddConcatenation();
  const bool all = argc > 4;
  tflite::MicroInterpreter it(m, r, arena, sizeof arena, nullptr, nullptr, all);
  if (it.AllocateTensors() != kTfLiteOk) { fprintf(stderr, "allocate failed\n"); return 1; }
  TfLiteTensor* ti = it.input(0);
  if (ti->bytes != in.size()) { fprintf(stderr, "input is %zu bytes, want %zu\n", in.size(), ti->bytes); return 1; }
  memcpy(ti->data.raw, in.data(), in.size());
  if (it.Invoke() != kTfLiteOk) { fprintf(stderr, "invoke failed\n"); return 1; }
  TfLiteTensor* to = it.output(0);
  FILE* f = fopen(argv[3], "wb"); fwrite(to->data.raw, 1, to->bytes, f); fclose(f);
  if (all) {  // every operator output, as: u32 tensor index, u32 bytes, bytes
    FILE* g = fopen(argv[4], "wb");
    const auto* sg = m->subgraphs()->Get(0);
    for (size_t o = 0; o < sg->operators()->size(); o++) {
      for (int32_t ti : *sg->operators()->Get(o)->outputs()) {
        TfLiteEvalTensor* t = it.GetTensor(ti);
        size_t n = 1; for (int d = 0; d < t->dims->size; d++) n *= t->dims->data[d];
        size_t es = t->type == kTfLiteInt8 ? 1 : t->type == kTfLiteInt16 ? 2 : 4;
        uint32_t hdr[2] = {(uint32_t)ti, (uint32_t)(n * es)};
        fwrite(hdr, 4, 2, g); fwrite(t->data.raw, 1, n * es, g);
      }
    }
    fclose(g);
  }
  printf("arena_used_bytes %zu output_bytes %zu\n", it.arena_used_bytes(), to->bytes);
  return 0;
}
