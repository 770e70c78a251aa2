package main

import (
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/netkit/netkit/nk"
)

// hostTarget names the machine netkit runs on for --target.
const hostTarget = "host"

// targetArenaNames lists what --target of inspect and aot takes.
func targetArenaNames() string {
	return hostTarget + ", " + strings.Join(benchTargetNames(), ", ")
}

// targetArena is the arena a buffer load of image needs on target, exact
// for that target's ABI, pointer size, struct layouts and kernel set: the
// host's own figure (r) for "host", else the figure the target's own
// nk_model_arena_size gives, run under QEMU in bench --target's cached
// runner firmware (cmake/cross/bench_runner.c), which also loads the
// model in exactly that many bytes and checks that one byte less fails
// with NK_ERR_ARENA_OVERFLOW. The target's code computes its own layout,
// so no table of ABI parameters is kept beside it.
func targetArena(image []byte, r *nk.Report, target, srcFlag string, log io.Writer) (int64, error) {
	if target == hostTarget {
		return r.ArenaAfterLoad, nil
	}
	if _, ok := benchTargets[target]; !ok {
		return 0, usagef("unknown --target %q (%s)", target, targetArenaNames())
	}
	input, _, err := targetInput(r.Inputs, nil)
	if err != nil {
		return 0, err
	}
	src, err := findSourceTree(srcFlag)
	if err != nil {
		return 0, err
	}
	if err := checkTargetTools(src, target, exec.LookPath, fileExists); err != nil {
		return 0, err
	}
	fw, _, err := ensureRunner(src, target, log)
	if err != nil {
		return 0, err
	}
	facts, err := runRunner(src, fw, target, image, input)
	if err != nil {
		return 0, err
	}
	need, err := facts.num("arena_need")
	if err != nil {
		return 0, err
	}
	if facts.facts["arena_exact"] != "1" {
		return 0, fmt.Errorf("on %s the model did not load in exactly the %d B nk_model_arena_size gave, or loaded in 1 B less: a netkit bug", target, need)
	}
	return int64(need), nil
}
