// Command onnxbatch writes a copy of an ONNX model whose graph inputs and
// outputs have a symbolic batch dimension (dim_param), for models exported
// with a fixed batch of one: scripts/bench-host.sh feeds the copies to
// onnxruntime at batch 100 and to netkit convert --batch.
//
//	go run ./internal/tools/onnxbatch IN.onnx OUT.onnx
package main

import (
	"fmt"
	"os"

	"github.com/netkit/netkit/internal/onnx"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: onnxbatch IN.onnx OUT.onnx")
		os.Exit(2)
	}
	b, err := os.ReadFile(os.Args[1])
	if err == nil {
		b, err = onnx.WithSymbolicBatch(b, "N")
	}
	if err == nil {
		err = os.WriteFile(os.Args[2], b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "onnxbatch:", err)
		os.Exit(1)
	}
}
