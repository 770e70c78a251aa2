package main

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/nk"
)

// The CLI reads models with both the pure-Go reader (nkfile) and the C
// core (nk). Differential test: for every single-byte corruption of the
// test models (checksum repaired so it reaches the structure checks), the
// Go reader plus its shape check accepts exactly when the C loader does.
// Weight payloads are skipped: no reader validates their values.
func TestReadersAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive corruption sweep")
	}
	for _, name := range []string{"tiny_relu", "mlp", "branch", "cnn"} {
		img, err := os.ReadFile(model(name + ".nk"))
		require.NoError(t, err)
		disagree, end := 0, len(img)
		for k := range binary.LittleEndian.Uint32(img[16:]) {
			if binary.LittleEndian.Uint32(img[32+16*k:]) == nkfile.SectionData {
				end = int(binary.LittleEndian.Uint32(img[32+16*k+4:]))
			}
		}
		for i := 12; i < end; i++ {
			for _, x := range []byte{0x01, 0x10, 0x80} {
				b := append([]byte(nil), img...)
				b[i] ^= x
				binary.LittleEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[12:]))
				goErr, cErr := readBoth(b)
				if (goErr == nil) != (cErr == nil) {
					disagree++
					if disagree <= 5 {
						t.Errorf("%s: byte %d ^ %#x: Go says %v, C says %v", name, i, x, goErr, cErr)
					}
				}
			}
		}
		if disagree > 5 {
			t.Errorf("%s: %d disagreements in all", name, disagree)
		}
	}
}

// readBoth loads b with the Go reader (plus its shape check) and the C core.
func readBoth(b []byte) (goErr, cErr error) {
	m, goErr := nkfile.Decode(b)
	if goErr == nil {
		goErr = m.CheckShapes()
	}
	cm, cErr := nk.LoadBytes(b)
	if cErr == nil {
		cErr = cm.Close()
	}
	return goErr, cErr
}

// FuzzReadersAgree: the Go and C readers accept the same images. Inputs
// are tried with the checksum repaired so mutations reach the structure.
func FuzzReadersAgree(f *testing.F) {
	for _, name := range []string{"tiny_relu", "mlp", "branch", "cnn"} {
		img, err := os.ReadFile(model(name + ".nk"))
		require.NoError(f, err)
		f.Add(img)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) >= 32 {
			if size := binary.LittleEndian.Uint32(b[12:]); size >= 12 && uint64(size) <= uint64(len(b)) {
				binary.LittleEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[12:size]))
			}
		}
		goErr, cErr := readBoth(b)
		if (goErr == nil) != (cErr == nil) {
			t.Fatalf("Go says %v, C says %v", goErr, cErr)
		}
	})
}
