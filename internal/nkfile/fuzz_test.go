package nkfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDecode: Decode never panics, fails only with *FormatError, and any
// model it accepts re-encodes to an image that decodes and re-encodes to
// the same bytes. Each input is
// tried as is and with its checksum repaired, so mutations get past the CRC.
func FuzzDecode(f *testing.F) {
	img, err := Encode(richModel(f))
	require.NoError(f, err)
	f.Add(img)
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "models", "*.nk"))
	int8, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "models_i8", "*.nk"))
	seeds = append(seeds, int8...)
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, in := range [][]byte{b, fixCRC(append([]byte(nil), b...))} {
			m, err := Decode(in)
			if err != nil {
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("error %v is not a *FormatError", err)
				}
				continue
			}
			out, err := Encode(m)
			if err != nil {
				t.Fatalf("decoded model does not re-encode: %v", err)
			}
			m2, err := Decode(out)
			if err != nil {
				t.Fatalf("re-encoded model does not decode: %v", err)
			}
			// Compare as bytes: NaN scales make a DeepEqual of models fail.
			out2, err := Encode(m2)
			if err != nil || !bytes.Equal(out, out2) {
				t.Fatalf("decode/encode is not a fixed point: %v", err)
			}
		}
	})
}
