package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/netkit/netkit/internal/aot"
	"github.com/netkit/netkit/internal/cliutil"
	"github.com/netkit/netkit/internal/nkfile"
	"github.com/netkit/netkit/nk"
)

func init() {
	register(&command{
		name:    "aot",
		summary: "embed a model in firmware as C source with its exact arena size",
		usage:   "MODEL [-o DIR|-] [--name IDENT] [--lower] [--target NAME [--src DIR]]",
		help: `Writes IDENT.c, the model image as a 16-byte aligned const array (it stays
in flash: the core binds the weights in place, nothing is copied to RAM),
and IDENT.h with IDENT_nk / IDENT_nk_len, IDENT_ARENA_SIZE (the exact arena
nk_model_load_buffer needs for this image, from inspect: this host's
figure, or with --target NAME that target's exact one, as inspect --target
gives it) and the byte size
of each input and output, with IDENT_INPUT0_SCALE and IDENT_INPUT0_ZERO_POINT
(and so on) for a quantized one. IDENT defaults to the model's file name.
It also writes IDENT_ops.c, the op table of this model's ops only: linked
with libnetkit.a it replaces the library's table, so the firmware carries
only these ops' kernels (one such file per firmware). IDENT_plan.c is the
activation plan made for this image on the host, as const data: linked too,
the loader applies it (after checking the image is this one) instead of
running the planner, which is then left out of the firmware; such a
firmware loads only this image (leave the file out to load others).

With --lower there is no interpreter: IDENT.c holds the weights and op
parameters as const data and IDENT_run(ram), which calls the op kernels in
order over the planner's offsets in one buffer of IDENT_RAM_SIZE bytes
(activations, then workspace; the same on every target). IDENT.h has that
size and, per input and output, its offset in the buffer (IDENT_INPUT0(ram)
points at it), byte size, and scale and zero point when quantized. It
needs netkit's headers (csrc/, installed as include/netkit/internal/) and
libnetkit.a for the kernels; no parser, loader or planner is linked.
Outputs are byte for byte the interpreter's with the same kernels. A model
with STATE tensors (a recurrent state carried between invokes) also gets
IDENT_reset_state(ram), to call before the first IDENT_run.
Each file is written beside its final name and renamed into place;
none may be MODEL itself. With -o - (not with --lower) the header and the
image array go to standard output as one C file (for a build that takes a
single source; no op table) and the summary to standard error.`,
		flags: func(fs *flag.FlagSet) func([]string, io.Writer, io.Writer) error {
			dir := fs.String("o", ".", "output `DIR`ectory, or - for one C file on standard output")
			name := fs.String("name", "", "C identifier prefix `IDENT` (default: from MODEL's file name)")
			lower := fs.Bool("lower", false, "lower the model to C: a static plan calling the kernels, no interpreter")
			target := fs.String("target", "", "size IDENT_ARENA_SIZE exactly for target `NAME` (host, or a bench --target target; default: this host)")
			src := fs.String("src", "", "netkit source tree `DIR` for --target (default: as bench --target finds it)")
			return func(args []string, stdout, stderr io.Writer) error {
				if len(args) != 1 {
					return usagef("want one MODEL, have %d arguments", len(args))
				}
				ident := aot.Ident(strings.TrimSuffix(filepath.Base(args[0]), filepath.Ext(args[0])))
				if *name != "" {
					if aot.Ident(*name) != *name {
						return usagef("--name %q is not a lower-case C identifier (try %q)", *name, aot.Ident(*name))
					}
					ident = *name
				}
				if *lower {
					if *dir == stdoutName {
						return usagef("--lower writes several files: give -o a directory")
					}
					if *target != "" {
						return usagef("--target sizes the embedded image's arena; lowered code's RAM is its own (no records)")
					}
					return writeLowered(stdout, args[0], *dir, ident)
				}
				return writeAot(stdout, stderr, args[0], *dir, ident, *target, *src)
			}
		},
	})
}

// aotOutputs are the files `aot` writes for ident in dir: header, source, op table, plan.
func aotOutputs(path, dir, ident string) (h, c, ops, plan string, err error) {
	h, c = filepath.Join(dir, ident+".h"), filepath.Join(dir, ident+".c")
	ops, plan = filepath.Join(dir, ident+"_ops.c"), filepath.Join(dir, ident+"_plan.c")
	for _, out := range []string{h, c, ops, plan} {
		if cliutil.SameFile(out, path) {
			return "", "", "", "", usagef("output %q is the input file; choose another -o or --name", out)
		}
	}
	return h, c, ops, plan, nil
}

// planOf is the activation plan in an inspect report, as data.
func planOf(r *nk.Report) aot.Plan {
	p := aot.Plan{TensorOffsets: r.TensorOffsets, Activations: r.PeakActivations, Workspace: r.Workspace,
		InPlace: make([]bool, len(r.Ops)), Stages: make([]aot.Stage, len(r.Ops)), Room: make([]int64, len(r.Ops))}
	for k, op := range r.Ops {
		p.InPlace[k] = op.InPlace
		p.Room[k] = op.Room
		if op.Staged {
			p.Stages[k] = aot.Stage{Band: op.StageBand, Slots: op.StageSlots}
		}
	}
	return p
}

// writeOpTable writes IDENT_ops.c for the decoded image.
func writeOpTable(out, path, ident string, img []byte) (*nkfile.Model, error) {
	m, err := nkfile.Decode(img)
	if err != nil {
		return nil, loadError(path, err)
	}
	src, err := aot.OpTable(ident, filepath.Base(path), m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, cliutil.WriteFile(out, src)
}

// writeAot writes IDENT.h, IDENT.c, IDENT_ops.c and IDENT_plan.c into dir, or with dir
// "-" the header and the array as one file to stdout (the summary then
// goes to stderr).
func writeAot(stdout, stderr io.Writer, path, dir, ident, target, src string) error {
	h, c, ops, plan, err := aotOutputs(path, dir, ident)
	if err != nil {
		return err
	}
	img, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read model: %w", err)
	}
	// The figures of a buffer load of exactly these bytes, as on the device.
	restore := deviceKernels()
	r, err := nk.InspectBytes(img)
	restore()
	if err != nil {
		return loadError(path, err)
	}
	if target != "" {
		// the target's own figure (target_arena.go) replaces the host's
		if r.ArenaAfterLoad, err = targetArena(img, r, target, src, stderr); err != nil {
			return err
		}
	}
	tensors := func(ts []nk.TensorInfo) []aot.Tensor {
		out := make([]aot.Tensor, len(ts))
		for i, t := range ts {
			out[i] = aot.Tensor{Name: t.Name, Shape: t.Shape, DType: t.DType.String(), Bytes: int64(t.Bytes()),
				Scale: t.Scale, ZeroPoint: t.ZeroPoint}
		}
		return out
	}
	e := &aot.Embed{Ident: ident, ModelFile: filepath.Base(path), Image: img, ArenaBytes: r.ArenaAfterLoad,
		Inputs: tensors(r.Inputs), Outputs: tensors(r.Outputs)}
	if dir == stdoutName {
		if err := writeOutput(stdoutName, e.Combined(), stdout); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s.h and %s.c as one file to standard output: %d B image in flash, arena %d B (%s_ARENA_SIZE)\n",
			ident, ident, len(img), r.ArenaAfterLoad, strings.ToUpper(ident))
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := cliutil.WriteFile(h, e.Header()); err != nil {
		return err
	}
	if err := cliutil.WriteFile(c, e.Source()); err != nil {
		return err
	}
	m, err := writeOpTable(ops, path, ident, img)
	if err != nil {
		return err
	}
	planSrc, err := aot.FixedPlan(ident, filepath.Base(path), img, m, planOf(r))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := cliutil.WriteFile(plan, planSrc); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s, %s, %s and %s: %d B image in flash, arena %d B (%s_ARENA_SIZE)\n", h, c, ops, plan, len(img), r.ArenaAfterLoad, strings.ToUpper(ident))
	return nil
}

// writeLowered is `aot --lower`: the plan comes from the C core (a buffer
// load with the device's kernels), the ops and weights from the file.
func writeLowered(w io.Writer, path, dir, ident string) error {
	h, c, _, _, err := aotOutputs(path, dir, ident)
	if err != nil {
		return err
	}
	img, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read model: %w", err)
	}
	m, err := nkfile.Decode(img)
	if err != nil {
		return loadError(path, err)
	}
	for _, op := range m.Ops {
		if op.Type == nkfile.OpBatchNorm {
			// a host load folds it into the conv before planning; the file's graph would not match that plan
			return fmt.Errorf("%s: --lower needs batch-norms folded (op %q): run netkit convert on it first", path, op.Name)
		}
	}
	restore := deviceKernels()
	r, err := nk.InspectBytes(img)
	restore()
	if err != nil {
		return loadError(path, err)
	}
	l := &aot.Lowered{Ident: ident, ModelFile: filepath.Base(path), Model: m, Plan: planOf(r)}
	hdr, err := l.Header()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	src, err := l.Source()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := cliutil.WriteFile(h, hdr); err != nil {
		return err
	}
	if err := cliutil.WriteFile(c, src); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s and %s: lowered, %d ops, RAM %d B (%s_RAM_SIZE), interpreter arena %d B\n",
		h, c, len(m.Ops), l.RAMBytes(), strings.ToUpper(ident), r.ArenaAfterLoad)
	return nil
}

// deviceKernels makes the loads that follow size the model as a device
// runs it, with the portable kernels: on x86-64 and aarch64 hosts the core
// otherwise picks its SIMD kernels, whose weights packed at load would
// count in the arena the firmware declares. A NETKIT_HOST_ISA the user set
// is kept. Batch tiles are off whatever it is: a firmware runs a batch model
// op by op, so the plan it is given must be that one. It returns the undo.
func deviceKernels() func() {
	var undo []func()
	set := func(env, value string, force bool) {
		old, had := os.LookupEnv(env)
		if had && !force {
			return
		}
		os.Setenv(env, value)
		undo = append(undo, func() {
			if had {
				os.Setenv(env, old)
			} else {
				os.Unsetenv(env)
			}
		})
	}
	set("NETKIT_HOST_ISA", "portable", false)
	set("NETKIT_BATCH_TILES", "0", true)
	return func() {
		for _, u := range undo {
			u()
		}
	}
}
