// Package cliutil holds small parsers and file helpers shared by the
// netkit commands.
package cliutil

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseSize reads a positive byte count: a plain number ("65536") or one
// with a binary suffix, K/KB/KiB = 1024, M/MB/MiB = 1024^2, G/GB/GiB =
// 1024^3 (case-insensitive; embedded sizes are binary). "64K" is 65536.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	lower := strings.ToLower(t)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{
		{"kib", 1 << 10}, {"kb", 1 << 10}, {"k", 1 << 10},
		{"mib", 1 << 20}, {"mb", 1 << 20}, {"m", 1 << 20},
		{"gib", 1 << 30}, {"gb", 1 << 30}, {"g", 1 << 30},
		{"b", 1},
	} {
		if strings.HasSuffix(lower, u.suffix) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || t == "" || t[0] == '+' {
		return 0, fmt.Errorf("bad size %q: want a byte count like 65536, 64K, 64KiB, 2M or 2MiB", s)
	}
	if n <= 0 {
		return 0, fmt.Errorf("bad size %q: must be positive", s)
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("bad size %q: too large", s)
	}
	return n * mult, nil
}

// FormatSize prints a byte count exactly, with a binary-unit hint for
// large values: "14544 B (14.2 KiB)".
func FormatSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d B (%.1f MiB)", n, float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d B (%.1f KiB)", n, float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
