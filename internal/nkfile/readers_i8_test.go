package nkfile_test

import (
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/internal/testmodels"
	"github.com/netkit/netkit/nk"
)

// int8Model is testmodels.Int8Ops encoded: one of every int8 op, with
// per-channel and per-tensor multiplier tensors.
func int8Model(t testing.TB) []byte {
	img, err := testmodels.EncodeInt8Ops()
	require.NoError(t, err)
	return img
}

func readBoth(img []byte) (goErr, cErr error) {
	m, goErr := nkfile.Decode(img)
	if goErr == nil {
		goErr = m.CheckShapes()
	}
	cm, cErr := nk.LoadBytes(img)
	if cErr == nil {
		cErr = cm.Close()
	}
	return goErr, cErr
}

// The Go reader with CheckShapes and the C core accept the same int8
// images: every single-bit corruption (three bit positions per byte, the
// checksum repaired) of a model with every int8 op, including the
// multiplier and shift payloads in DATA, is accepted by both or neither.
func TestReadersAgreeInt8(t *testing.T) {
	img := int8Model(t)
	goErr, cErr := readBoth(img)
	require.NoError(t, goErr)
	require.NoError(t, cErr)
	disagree := 0
	for i := 12; i < len(img); i++ {
		for _, x := range []byte{0x01, 0x10, 0x80} {
			b := append([]byte(nil), img...)
			b[i] ^= x
			binary.LittleEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[12:]))
			goErr, cErr := readBoth(b)
			if (goErr == nil) != (cErr == nil) {
				disagree++
				if disagree <= 10 {
					t.Errorf("byte %d ^ %#x: Go says %v, C says %v", i, x, goErr, cErr)
				}
			}
		}
	}
	require.Zero(t, disagree)
}

// FuzzReadersAgreeInt8: as TestReadersAgreeInt8 for any mutation (the
// checksum repaired so mutations reach the structure checks).
func FuzzReadersAgreeInt8(f *testing.F) {
	f.Add(int8Model(f))
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
