package onnx

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// WithSymbolicBatch returns a copy of the ONNX model image b whose graph
// inputs and outputs have the symbolic first dimension param (a dim_param)
// instead of a fixed size: what an export with a dynamic batch axis writes,
// for models exported with a fixed batch of one. Inputs that are
// initializers keep their shapes; every other byte is copied unchanged.
func WithSymbolicBatch(b []byte, param string) ([]byte, error) {
	changed := 0
	out, err := rewriteFields(b, func(num protowire.Number, v []byte) ([]byte, error) {
		if num != 7 { // ModelProto.graph
			return nil, nil
		}
		return symbolicGraph(v, param, &changed)
	})
	if err != nil {
		return nil, err
	}
	if changed == 0 {
		return nil, fmt.Errorf("onnx: no graph input or output has a shape to change")
	}
	return out, nil
}

func symbolicGraph(g []byte, param string, changed *int) ([]byte, error) {
	inits := map[string]bool{}
	err := eachField(g, func(num protowire.Number, typ protowire.Type, f field) error {
		if num == 5 && typ == protowire.BytesType { // GraphProto.initializer
			return eachField(f.bytes, func(n protowire.Number, t protowire.Type, x field) error {
				if n == 8 && t == protowire.BytesType { // TensorProto.name
					inits[string(x.bytes)] = true
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rewriteFields(g, func(num protowire.Number, vi []byte) ([]byte, error) {
		if num != 11 && num != 12 { // GraphProto.input, .output
			return nil, nil
		}
		info, err := decodeValueInfo(vi)
		if err != nil || inits[info.Name] || !info.HasShape || len(info.Dims) == 0 {
			return nil, err
		}
		*changed++
		// ValueInfoProto.type -> TypeProto.tensor_type -> .shape -> first dim
		return rewritePath(vi, []protowire.Number{2, 1, 2}, func(shape []byte) ([]byte, error) {
			first := true
			return rewriteFields(shape, func(num protowire.Number, dim []byte) ([]byte, error) {
				if num != 1 || !first {
					return nil, nil
				}
				first = false
				var d []byte
				err := eachField(dim, func(n protowire.Number, t protowire.Type, x field) error {
					if n == 3 && t == protowire.BytesType { // keep a denotation
						d = protowire.AppendTag(d, 3, protowire.BytesType)
						d = protowire.AppendBytes(d, x.bytes)
					}
					return nil
				})
				d = protowire.AppendTag(d, 2, protowire.BytesType) // dim_param
				return protowire.AppendString(d, param), err
			})
		})
	})
}

// rewritePath rewrites the message found by following the length-delimited
// fields path (the first of each number) from b.
func rewritePath(b []byte, path []protowire.Number, fn func([]byte) ([]byte, error)) ([]byte, error) {
	if len(path) == 0 {
		return fn(b)
	}
	done := false
	return rewriteFields(b, func(num protowire.Number, v []byte) ([]byte, error) {
		if num != path[0] || done {
			return nil, nil
		}
		done = true
		return rewritePath(v, path[1:], fn)
	})
}

// rewriteFields copies the message b, replacing the value of each
// length-delimited field for which fn returns a non-nil value.
func rewriteFields(b []byte, fn func(protowire.Number, []byte) ([]byte, error)) ([]byte, error) {
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, fmt.Errorf("onnx: field %d: %w", num, protowire.ParseError(m))
		}
		raw := b[:n+m]
		b = b[n+m:]
		if typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(raw[n:])
			nv, err := fn(num, v)
			if err != nil {
				return nil, err
			}
			if nv != nil {
				out = protowire.AppendTag(out, num, protowire.BytesType)
				out = protowire.AppendBytes(out, nv)
				continue
			}
		}
		out = append(out, raw...)
	}
	return out, nil
}
