//go:build unix

package cliutil

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// A new file honours the umask, whatever it is (0644 under the usual 022
// would hide a hard-coded mode). The umask is process-wide: not parallel.
func TestWriteFileHonoursUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	t.Cleanup(func() { syscall.Umask(old) })
	p := filepath.Join(t.TempDir(), "fresh.nk")
	require.NoError(t, WriteFile(p, []byte("new")))
	assertSameModeAsWriteFile(t, p)
}
