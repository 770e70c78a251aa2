package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/netkit/netkit/internal/nkfile"
)

// modelFormat is what a model file holds, told by its content.
type modelFormat int

const (
	formatUnknown modelFormat = iota
	formatNK
	formatTFLite
	formatONNX
)

func (f modelFormat) String() string {
	return [...]string{"unknown", ".nk", "TFLite", "ONNX"}[f]
}

// sniffFormat tells a model's format by its content: the .nk magic,
// TFLite's FlatBuffer identifier "TFL3" at offset 4, or an ONNX ModelProto:
// bytes that parse as protobuf fields from end to end, each one ModelProto
// has with its wire type, the graph (field 7) among them.
func sniffFormat(b []byte) modelFormat {
	switch {
	case len(b) >= 4 && string(b[:4]) == nkfile.Magic:
		return formatNK
	case len(b) >= 8 && string(b[4:8]) == "TFL3":
		return formatTFLite
	case isModelProto(b):
		return formatONNX
	}
	return formatUnknown
}

// modelProtoFields are ModelProto's field numbers and wire types (onnx.proto).
var modelProtoFields = map[protowire.Number]protowire.Type{
	1: protowire.VarintType, 2: protowire.BytesType, 3: protowire.BytesType, 4: protowire.BytesType,
	5: protowire.VarintType, 6: protowire.BytesType, 7: protowire.BytesType, 8: protowire.BytesType,
	14: protowire.BytesType, 20: protowire.BytesType, 25: protowire.BytesType, 26: protowire.BytesType,
}

func isModelProto(b []byte) bool {
	graph := false
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		if want, ok := modelProtoFields[num]; !ok || want != typ {
			return false
		}
		graph = graph || num == 7
		b = b[n:]
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return false
		}
		b = b[n:]
	}
	return graph
}

// formatByExt is the format a file name suggests, the fallback when the
// content says nothing.
func formatByExt(path string) modelFormat {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".nk":
		return formatNK
	case ".tflite":
		return formatTFLite
	case ".onnx":
		return formatONNX
	}
	return formatUnknown
}

// readModel reads a model file and tells its format: by content, and by the
// extension only when the content is not recognized.
func readModel(path string) ([]byte, modelFormat, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, formatUnknown, err
	}
	f := sniffFormat(b)
	if f == formatUnknown {
		f = formatByExt(path)
	}
	return b, f, nil
}

// checkNK says what to do with a file that is not a .nk model, for the
// commands that take one (run, inspect, aot, bench). Unknown content goes
// on to the core, whose format error is the precise one, as does a file
// that cannot be read.
func checkNK(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil // the load reports it
	}
	switch f := sniffFormat(b); f {
	case formatTFLite, formatONNX:
		article := map[modelFormat]string{formatTFLite: "a", formatONNX: "an"}[f]
		return fmt.Errorf("%s is %s %s model, not a .nk: convert it first with 'netkit convert %s'", path, article, f, path)
	}
	return nil
}

// loadError is the error of a command that could not load the .nk model at
// path: a model of another format says to convert it, anything else is
// "load PATH: why".
func loadError(path string, err error) error {
	if ferr := checkNK(path); ferr != nil {
		return ferr
	}
	return fmt.Errorf("load %s: %w", path, err)
}
