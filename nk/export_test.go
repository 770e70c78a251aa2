package nk

import (
	"github.com/netkit/netkit/internal/runtime"
	"github.com/netkit/netkit/internal/runtime/conformance"
)

// Open is the package's backend opener, for the conformance tests that
// count its C calls.
var Open = open

// Binding is package nk for the conformance suite, which works on the
// shared runtime's types: options go in wrapped, models come out
// unwrapped. Reports come from the runtime directly; TestReportFields
// checks the public Report against it.
func Binding(name string, extra ...Option) conformance.Binding {
	return conformance.Binding{
		Name: name,
		Load: func(p string, o ...runtime.Option) (*runtime.Model, error) {
			return unwrapModel(Load(p, append(wrapOptions(o), extra...)...))
		},
		LoadBytes: func(b []byte, o ...runtime.Option) (*runtime.Model, error) {
			return unwrapModel(LoadBytes(b, append(wrapOptions(o), extra...)...))
		},
		Inspect: func(p string, o ...runtime.Option) (*runtime.Report, error) {
			return runtime.Inspect(open, p, append(o, unwrapOptions(extra)...)...)
		},
		InspectBytes: func(b []byte, o ...runtime.Option) (*runtime.Report, error) {
			return runtime.InspectBytes(open, b, append(o, unwrapOptions(extra)...)...)
		},
		Open: open,
	}
}

func wrapOptions(o []runtime.Option) []Option {
	out := make([]Option, len(o))
	for i := range o {
		out[i] = Option{o[i]}
	}
	return out
}

func unwrapModel(m *Model, err error) (*runtime.Model, error) {
	if err != nil {
		return nil, err
	}
	return m.m, nil
}

// RuntimeInspect is the shared runtime's report, for TestReportFields.
func RuntimeInspect(path string) (*runtime.Report, error) { return runtime.Inspect(open, path) }
