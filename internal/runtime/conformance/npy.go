package conformance

// TEMPORARY until internal/npy lands: a reader for little-endian float32 .npy.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
)

func readNpyF32(path string) ([]float32, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		return nil, fmt.Errorf("%s: not a .npy file", path)
	}
	var hl, off int
	if b[6] == 1 {
		hl, off = int(binary.LittleEndian.Uint16(b[8:])), 10
	} else {
		hl, off = int(binary.LittleEndian.Uint32(b[8:])), 12
	}
	hdr := b[off : off+hl]
	if !bytes.Contains(hdr, []byte("'<f4'")) || bytes.Contains(hdr, []byte("'fortran_order': True")) {
		return nil, fmt.Errorf("%s: want C-order <f4, header %s", path, hdr)
	}
	data := b[off+hl:]
	v := make([]float32, len(data)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return v, nil
}
