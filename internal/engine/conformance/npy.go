package conformance

import (
	"os"

	"github.com/netkit/netkit/nk/npy"
)

// readNpyF32 reads the float32 elements of a .npy file.
func readNpyF32(path string) ([]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := npy.Read(f)
	if err != nil {
		return nil, err
	}
	return a.F32()
}
