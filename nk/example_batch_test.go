package nk_test

import (
	"encoding/binary"
	"fmt"
	"log"
	"math"
	"os"
	"time"

	"github.com/netkit/netkit/nk"
)

// RunBatch classifies several images in one call. A model converted with
// `netkit convert --batch N` runs N of them per invoke; this one (batch 1)
// runs one per invoke, with the same call.
func ExampleModel_RunBatch() {
	m, err := nk.Load("../testdata/fashion/cnn_dw.nk")
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	// 100 images, float32 [100, 1, 28, 28] after a .npy version 1 header
	b, err := os.ReadFile("../testdata/fashion/input.npy")
	if err != nil {
		log.Fatal(err)
	}
	raw := b[10+int(binary.LittleEndian.Uint16(b[8:10])):]
	images := make([]float32, len(raw)/4)
	for i := range images {
		images[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}

	const n = 4
	logits := make([]float32, n*10)
	if err := m.RunBatch(images[:n*28*28], logits); err != nil {
		log.Fatal(err)
	}
	labels := m.Labels()
	for i := range n {
		best := 0
		for c, v := range logits[i*10 : (i+1)*10] {
			if v > logits[i*10+best] {
				best = c
			}
		}
		fmt.Println(i, labels[best])
	}
	fmt.Println("samples per invoke:", m.Batch())
	// Output:
	// 0 Ankle boot
	// 1 Pullover
	// 2 Trouser
	// 3 Trouser
	// samples per invoke: 1
}

// RunProfiled times each op of one run in the C core; the rows of
// Report().Ops name them.
func ExampleModel_RunProfiled() {
	m, err := nk.Load("../testdata/fashion/cnn_dw.nk")
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	rep, err := m.Report()
	if err != nil {
		log.Fatal(err)
	}
	in := make([]byte, m.Inputs()[0].Bytes())
	out := make([]byte, m.Outputs()[0].Bytes())
	times := make([]time.Duration, m.NumOps())
	if err := m.RunProfiled([][]byte{in}, [][]byte{out}, times); err != nil {
		log.Fatal(err)
	}
	for k, op := range rep.Ops[1:3] {
		fmt.Println(k+1, op.Op, op.Name, times[k+1] > 0)
	}
	// Output:
	// 1 conv2d /stem/stem.0/Conv true
	// 2 gelu /stem/stem.2/Mul_1 true
}
