package npy_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/netkit/netkit/nk/npy"
)

// Write an int8 batch for an int8 model's input and read it back.
func Example() {
	path := filepath.Join(os.TempDir(), "netkit-npy-example.npy")
	defer os.Remove(path)
	if err := npy.WriteFile(path, npy.FromI8([]int{2, 3}, []int8{-128, 0, 127, 1, 2, 3})); err != nil {
		fmt.Println(err)
		return
	}
	a, err := npy.ReadFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := a.I8()
	fmt.Println(a.Descr, a.Shape, v, err)
	_, err = a.F32()
	fmt.Println(err)
	// Output:
	// |i1 [2 3] [-128 0 127 1 2 3] <nil>
	// npy: array holds |i1, not float32 (<f4)
}
