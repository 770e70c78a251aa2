package nk_test

import (
	"errors"
	"fmt"
	"log"
	"sync"

	"github.com/netkit/netkit/nk"
)

// A one-op model (ReLU over 16 values): load it, describe it, run it.
func Example() {
	m, err := nk.Load("../testdata/models/tiny_relu.nk")
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	in := m.Inputs()[0]
	fmt.Println(in.Name, in.Shape, in.DType)

	x := make([]float32, in.Elems())
	for i := range x {
		x[i] = float32(i - 8)
	}
	y, err := m.Predict(x)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(y)
	// Output:
	// x [1 16] f32
	// [0 0 0 0 0 0 0 0 0 1 2 3 4 5 6 7]
}

// Run writes into a caller's slice; a wrong length is an error, not a panic.
func ExampleModel_Run() {
	m, err := nk.Load("../testdata/models/tiny_relu.nk")
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	out := make([]float32, 16)
	err = m.Run(make([]float32, 15), out)
	fmt.Println(errors.Is(err, nk.ErrShape))
	fmt.Println(err)
	// Output:
	// true
	// netkit: input 0 "x": got 15 values, want 16 (shape [1 16])
}

// Classifiers carry their class names in the "labels" metadata.
func ExampleModel_Labels() {
	m, err := nk.Load("../testdata/models/mlp.nk")
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	labels := m.Labels()
	producer, _ := m.Meta("producer")
	fmt.Println(len(labels), labels[3], producer)
	// Output: 10 three netkit testmodels
}

// One Session per goroutine runs one model's weights in parallel.
func ExampleModel_NewSession() {
	m, err := nk.Load("../testdata/models/tiny_relu.nk")
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	sums := make([]float32, 4)
	var wg sync.WaitGroup
	for g := range sums {
		s, err := m.NewSession()
		if err != nil {
			log.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.Close()
			in, out := make([]float32, 16), make([]float32, 16)
			for i := range in {
				in[i] = float32(g) - 1 // -1, 0, 1, 2
			}
			if err := s.Run(in, out); err != nil {
				log.Fatal(err)
			}
			for _, v := range out {
				sums[g] += v
			}
		}()
	}
	wg.Wait()
	fmt.Println(sums)
	// Output: [0 0 16 32]
}

// A budget too small for the model fails with the figures.
func ExampleWithArenaSize() {
	_, err := nk.Load("../testdata/models/mlp.nk", nk.WithArenaSize(256))
	var e *nk.Error
	if errors.As(err, &e) {
		fmt.Println(errors.Is(err, nk.ErrArenaOverflow), e.Capacity, e.Requested > e.Free)
	}
	// Output: true 256 true
}

// Inspect reports the exact arena size and a per-op table.
func ExampleInspect() {
	r, err := nk.Inspect("../testdata/models/cnn.nk")
	if err != nil {
		log.Fatal(err)
	}
	for _, op := range r.Ops[:4] {
		fmt.Printf("%d %-16s %-6s %v\n", op.Index, op.Op, op.Name, op.OutShape)
	}
	fmt.Println(r.ArenaAfterLoad == r.ArenaAfterForward)
	// Output:
	// 0 conv2d           conv1  [1 16 16 8]
	// 1 max_pool2d       pool1  [1 8 8 8]
	// 2 depthwise_conv2d dw     [1 8 8 8]
	// 3 batch_norm       bn     [1 8 8 8]
	// true
}
