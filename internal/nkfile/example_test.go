package nkfile_test

import (
	"fmt"

	"github.com/netkit/netkit/internal/nkfile"
)

// Build a two-op classifier, encode it, and read it back. The builder
// infers each op's output shape.
func ExampleBuilder() {
	b := nkfile.NewBuilder()
	x := b.Input("x", nkfile.F32, 1, 4)
	w := b.ConstF32("w", []int{3, 4}, make([]float32, 12))
	y := b.Dense("fc", x, w, -1, nkfile.ActRelu)
	p := b.Op(nkfile.OpSoftmax, "prob", []int{y}, nkfile.F32Words(1), nkfile.ActNone)
	b.Output(p)
	b.Meta("labels", "cat\ndog\nbird")
	m, err := b.Model()
	if err != nil {
		panic(err)
	}
	img, err := nkfile.Encode(m)
	if err != nil {
		panic(err)
	}
	back, err := nkfile.Decode(img)
	if err != nil {
		panic(err)
	}
	for _, op := range back.Ops {
		fmt.Println(op.Type, op.Name, back.Tensors[op.Outputs[0]].Shape)
	}
	// Output:
	// dense fc [1 3]
	// softmax prob [1 3]
}
