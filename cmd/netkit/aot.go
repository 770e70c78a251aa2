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
	"github.com/netkit/netkit/nk"
)

func init() {
	register(&command{
		name:    "aot",
		summary: "embed a model in firmware as C source with its exact arena size",
		usage:   "MODEL [-o DIR|-] [--name IDENT]",
		help: `Writes IDENT.c, the model image as a 16-byte aligned const array (it stays
in flash: the core binds the weights in place, nothing is copied to RAM),
and IDENT.h with IDENT_nk / IDENT_nk_len, IDENT_ARENA_SIZE (the exact arena
nk_model_load_buffer needs for this image, from inspect) and the byte size
of each input and output, with IDENT_INPUT0_SCALE and IDENT_INPUT0_ZERO_POINT
(and so on) for a quantized one. IDENT defaults to the model's file name.
Each file is written beside its final name and renamed into place;
neither may be MODEL itself. With -o - the header and the array go to
standard output as one C file (for a build that takes a single source)
and the summary to standard error.`,
		flags: func(fs *flag.FlagSet) func([]string, io.Writer, io.Writer) error {
			dir := fs.String("o", ".", "output `DIR`ectory, or - for one C file on standard output")
			name := fs.String("name", "", "C identifier prefix `IDENT` (default: from MODEL's file name)")
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
				return writeAot(stdout, stderr, args[0], *dir, ident)
			}
		},
	})
}

// writeAot writes IDENT.h and IDENT.c into dir, or with dir "-" both as one
// file to stdout (the summary then goes to stderr).
func writeAot(stdout, stderr io.Writer, path, dir, ident string) error {
	h, c := filepath.Join(dir, ident+".h"), filepath.Join(dir, ident+".c")
	for _, out := range []string{h, c} {
		if dir != stdoutName && cliutil.SameFile(out, path) {
			return usagef("output %q is the input file; choose another -o or --name", out)
		}
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
	fmt.Fprintf(stdout, "wrote %s and %s: %d B image in flash, arena %d B (%s_ARENA_SIZE)\n", h, c, len(img), r.ArenaAfterLoad, strings.ToUpper(ident))
	return nil
}

// deviceKernels makes the loads that follow size the model as a device
// runs it, with the portable kernels: on x86-64 and aarch64 hosts the core
// otherwise picks its SIMD kernels, whose weights packed at load would
// count in the arena the firmware declares. A NETKIT_HOST_ISA the user set
// is kept. It returns the undo.
func deviceKernels() func() {
	const env = "NETKIT_HOST_ISA"
	if _, set := os.LookupEnv(env); set {
		return func() {}
	}
	os.Setenv(env, "portable")
	return func() { os.Unsetenv(env) }
}
