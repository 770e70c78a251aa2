package cliutil

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	good := map[string]int64{
		"65536": 65536, "64K": 65536, "64KiB": 65536, "64k": 65536, "64KB": 65536,
		"2M": 2097152, "2MiB": 2097152, "2mb": 2097152, "1G": 1073741824, "1GiB": 1073741824,
		"100B": 100, " 48K ": 49152, "1": 1, "48 KiB": 49152,
	}
	for in, want := range good {
		got, err := ParseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "K", "0", "-5", "+5", "1.5K", "64X", "12KiBB", "0x10", "9223372036854775807K", "abc"} {
		_, err := ParseSize(in)
		assert.Error(t, err, in)
	}
}

func TestFormatSize(t *testing.T) {
	assert.Equal(t, "512 B", FormatSize(512))
	assert.Equal(t, "14544 B (14.2 KiB)", FormatSize(14544))
	assert.Equal(t, "3145728 B (3.0 MiB)", FormatSize(3<<20))
}
