package main

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/nk"
)

// The CLI reads models with both the pure-Go reader (nkfile) and the C
// core (nk). Differential test: for every single-byte corruption of the
// test models (checksum repaired so it reaches the structure checks), the
// Go reader plus its shape check accepts exactly when the C loader does.
// The float models' weight payloads are skipped: no reader validates their
// values. The int8 models' DATA holds the requantization multipliers and
// shifts, which both readers check. Every position of the test models;
// a stride through the converted models' large sections, fewer positions
// the larger the image.
func TestReadersAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive corruption sweep")
	}
	for _, path := range agreeModels(t) {
		img, err := os.ReadFile(path)
		require.NoError(t, err)
		int8 := filepath.Dir(path) == modelsI8
		dataOff, dataEnd := len(img), len(img)
		for k := range binary.LittleEndian.Uint32(img[16:]) {
			if binary.LittleEndian.Uint32(img[32+16*k:]) == nkfile.SectionData {
				dataOff = int(binary.LittleEndian.Uint32(img[32+16*k+4:]))
				dataEnd = dataOff + int(binary.LittleEndian.Uint32(img[32+16*k+8:]))
			}
		}
		positions := 0
		disagree := 0
		// Each try reads the whole image: positions fall as size grows.
		budget := max(512, 170_000_000/len(img))
		structStride := stride(dataOff-12, min(4096, budget*3/4))
		dataStride := stride(dataEnd-dataOff, min(1024, budget/4))
		for i := 12; i < len(img); i++ {
			if i < dataOff && (i-12)%structStride != 0 ||
				i >= dataOff && (!int8 || i >= dataEnd || (i-dataOff)%dataStride != 0) {
				continue
			}
			positions++
			for _, x := range []byte{0x01, 0x10, 0x80} {
				b := append([]byte(nil), img...)
				b[i] ^= x
				binary.LittleEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[12:]))
				goErr, cErr := readBoth(b)
				if (goErr == nil) != (cErr == nil) {
					disagree++
					if disagree <= 5 {
						t.Errorf("%s: byte %d ^ %#x: Go says %v, C says %v", filepath.Base(path), i, x, goErr, cErr)
					}
				}
			}
		}
		if disagree > 5 {
			t.Errorf("%s: %d disagreements in all", filepath.Base(path), disagree)
		}
		t.Logf("%s: %d byte positions, %d disagreements", filepath.Base(path), positions, disagree)
	}
}

// modelsI8 holds the int8 models (testdata/gen/models_i8.sh writes them).
var modelsI8 = filepath.Join("..", "..", "testdata", "models_i8")

// agreeModels: the four float test models and every int8 one.
func agreeModels(t testing.TB) []string {
	var paths []string
	for _, name := range []string{"tiny_relu", "mlp", "branch", "cnn"} {
		paths = append(paths, model(name+".nk"))
	}
	i8, err := filepath.Glob(filepath.Join(modelsI8, "*.nk"))
	require.NoError(t, err)
	require.NotEmpty(t, i8, "no int8 models in %s", modelsI8)
	return append(paths, i8...)
}

// stride visits at most max positions of n bytes.
func stride(n, max int) int { return (n + max - 1) / max }

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
	for _, path := range agreeModels(f) {
		img, err := os.ReadFile(path)
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
