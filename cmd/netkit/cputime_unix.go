//go:build unix

package main

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used (user + system): a
// figure preemption does not inflate, unlike wall time on a busy machine.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
