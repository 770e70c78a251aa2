package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/testmodels"
)

// The converted int8 models in testdata/models_i8 (the C hostile,
// exhaustion and fuzz tests' int8 inputs) are exactly what `netkit
// convert` makes of the TFLite files today: rerun
// testdata/gen/models_i8.sh when this fails.
func TestCommittedInt8ModelsAreCurrent(t *testing.T) {
	src := tfliteDir(t)
	paths, err := filepath.Glob(filepath.Join(modelsI8, "*.nk"))
	require.NoError(t, err)
	dir := t.TempDir()
	converted := 0
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".nk")
		if name == testmodels.Int8OpsName {
			continue // built by internal/testmodels, checked there
		}
		dst := filepath.Join(dir, name+".nk")
		code, _, stderr := cli(t, "convert", filepath.Join(src, name+".tflite"), "-o", dst)
		require.Equal(t, 0, code, "%s: %s", name, stderr)
		made, err := os.ReadFile(dst)
		require.NoError(t, err)
		committed, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(made, committed),
			"testdata/models_i8/%s.nk is stale: run testdata/gen/models_i8.sh", name)
		converted++
	}
	assert.Equal(t, 4, converted, "converted models in %s", modelsI8)
}
