package nkc_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nkrt "github.com/netkit/netkit/internal/runtime"
	"github.com/netkit/netkit/internal/runtime/conformance"
	"github.com/netkit/netkit/nkc"
)

// binding runs nkc over a libnetkit built from this tree's sources.
func binding(tb testing.TB) conformance.Binding {
	path := conformance.SharedLibrary(tb)
	lib := nkc.WithLibrary(path)
	with := func(opts []nkrt.Option) []nkrt.Option { return append(opts, lib) }
	return conformance.Binding{
		Name:         "nkc",
		Load:         func(p string, o ...nkrt.Option) (*nkrt.Model, error) { return nkc.Load(p, with(o)...) },
		LoadBytes:    func(b []byte, o ...nkrt.Option) (*nkrt.Model, error) { return nkc.LoadBytes(b, with(o)...) },
		Inspect:      func(p string, o ...nkrt.Option) (*nkrt.Report, error) { return nkc.Inspect(p, with(o)...) },
		InspectBytes: func(b []byte, o ...nkrt.Option) (*nkrt.Report, error) { return nkc.InspectBytes(b, with(o)...) },
		Open:         func(string) (*nkrt.Backend, error) { return nkc.Open(path) },
	}
}

func TestConformance(t *testing.T) { conformance.Run(t, binding(t)) }

func TestSessionRunZeroAllocs(t *testing.T) {
	assert.Zero(t, conformance.SessionRunAllocs(t, binding(t)))
}

func TestMissingLibrary(t *testing.T) {
	_, err := nkc.Load(conformance.ModelPath(t, conformance.OneOpModel), nkc.WithLibrary("/nonexistent/libnetkit.so"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/nonexistent/libnetkit.so")
}

func BenchmarkRunOneOp(b *testing.B) { conformance.BenchRunOneOp(b, binding(b)) }
