package graph_test

import (
	"fmt"
	"log"

	"github.com/netkit/netkit/internal/graph"
	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/onnx"
)

// Convert a PyTorch-exported CNN: its two BatchNorms fold into the
// convolutions, the Relus into the ops before them, and the image input
// stays NCHW as onnxruntime takes it.
func ExampleConvert() {
	m, err := onnx.ReadFile("../../testdata/fashion/cnn_bn.onnx")
	if err != nil {
		log.Fatal(err)
	}
	g, err := graph.Convert(m, graph.Options{Source: "cnn_bn.onnx"})
	if err != nil {
		log.Fatal(err)
	}
	model, err := g.ToNK()
	if err != nil {
		log.Fatal(err)
	}
	if _, err := nkfile.Encode(model); err != nil {
		log.Fatal(err)
	}
	fmt.Println("folded BatchNorms:", g.Stats.FoldedBatchNorms)
	fmt.Println("input layout:", model.Inputs[0].Layout)
	for _, op := range model.Ops {
		fmt.Printf("%s %v -> %v (%s)\n", op.Type, model.Tensors[op.Inputs[0]].Shape, model.Tensors[op.Outputs[0]].Shape, op.Act)
	}
	// Output:
	// folded BatchNorms: 2
	// input layout: nchw
	// reshape [1 1 28 28] -> [1 28 28 1] (none)
	// conv2d [1 28 28 1] -> [1 28 28 16] (relu)
	// max_pool2d [1 28 28 16] -> [1 14 14 16] (none)
	// conv2d [1 14 14 16] -> [1 14 14 32] (relu)
	// max_pool2d [1 14 14 32] -> [1 7 7 32] (none)
	// reshape [1 7 7 32] -> [1 1568] (none)
	// dense [1 1568] -> [1 32] (relu)
	// dense [1 32] -> [1 10] (none)
}
