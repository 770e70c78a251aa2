package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/netkit/netkit/internal/cliutil"
	"github.com/netkit/netkit/nk"
)

func init() {
	register(&command{
		name:    "inspect",
		summary: "report the exact arena, workspace and flash a model needs",
		usage:   "MODEL [--full] [--json] [--regions] [--svg FILE] [--target NAME [--src DIR]]",
		help: `Loads MODEL the way the C core does on a device and reports, from the
core itself: the arena bytes after load and after a forward pass (the size
to declare in firmware), the shared kernel workspace, the weight bytes kept
in place outside the arena (flash), and what the arena holds.

--full adds the per-op table: shapes, multiply-accumulates, constant bytes,
where each op's output sits in the activation block, the workspace it asks
for and the room above its operands that the invoke lends it (activation
bytes nothing alive uses while it runs), whether it runs in place, and
which implementation runs it: the build's backend (e.g.
"xnnpack"), the host's SIMD kernel set for a float op or an int8 op it
has kernels for ("avx512vnni", "avx512", "avx2", "neon"; NETKIT_HOST_ISA
forces one), or "portable" (netkit's C kernels), and how many times it
runs per invoke: a batch model's conv layers run as a batch tile, a few
samples at a time, with the tensors made and consumed inside it at one
chunk's size (docs/MEMORY.md; NETKIT_BATCH_TILES=0 turns tiles off).
--json prints the same as JSON.

--regions adds what a board with a fast and a slow RAM needs in each when
it loads with nk_model_load_buffer_regions: the activation block and the
workspace in the fast region, the model's persistent records in the slow
one. The load's scratch goes into the fast region, or into the slow one
when it does not fit there; where the scratch is larger than the block,
both exact pairs are shown. Exact for the host's ABI; firmware gets its
target's figures from nk_model_region_sizes.

--svg FILE also writes the memory map as SVG: each tensor a box over the
ops it is alive for (x) and the bytes it holds in the activation block
(y), the workspace above the block, each op's room a dashed box in its
column below the workspace, lines at the planned peak and the liveness
lower bound; hovering a box names its tensor.

Every figure is this host's (its pointer size and struct layouts; a 32-bit
MCU needs less). --target NAME adds the arena a buffer load needs on that
target, exact for it: "host", or a target of bench --target (cortex-m4f,
cortex-m55, xtensa-lx106, armv7-linux, ...), whose own nk_model_arena_size
runs under QEMU in bench --target's cached runner, which also checks that the model
loads in exactly that many bytes and fails in one byte less. The declare
line then uses it. --src DIR: the netkit source tree (as bench --target).`,
		flags: func(fs *flag.FlagSet) func([]string, io.Writer, io.Writer) error {
			full := fs.Bool("full", false, "add the per-op table")
			asJSON := fs.Bool("json", false, "print JSON instead of a table")
			svgPath := fs.String("svg", "", "also write the memory map as SVG to `FILE`")
			regions := fs.Bool("regions", false, "add each memory region's need (fast: activations, slow: records)")
			target := fs.String("target", "", "also give the exact arena on target `NAME` (host, or a bench --target target)")
			src := fs.String("src", "", "netkit source tree `DIR` for --target (default: as bench --target finds it)")
			return func(args []string, stdout, stderr io.Writer) error {
				if len(args) != 1 {
					return usagef("want one MODEL, have %d arguments", len(args))
				}
				r, err := nk.Inspect(args[0])
				if err != nil {
					return loadError(args[0], err)
				}
				var onTarget *targetFigure
				if *target != "" {
					image, err := os.ReadFile(args[0])
					if err != nil {
						return err
					}
					n, err := targetArena(image, r, *target, *src, stderr)
					if err != nil {
						return err
					}
					onTarget = &targetFigure{Target: *target, ArenaBytes: n}
				}
				if *svgPath != "" {
					if err := writeSVGFile(*svgPath, args[0], r); err != nil {
						return err
					}
				}
				if *asJSON {
					return writeInspectJSON(stdout, args[0], r, *full, *regions, onTarget)
				}
				writeInspectTable(stdout, args[0], r, *full, *regions, onTarget)
				return nil
			}
		},
	})
}

// targetFigure is inspect --target's figure: the arena on that target.
type targetFigure struct {
	Target     string `json:"target"`
	ArenaBytes int64  `json:"arena_bytes"`
}

// declareLine is the C declaration of an arena big enough for the model:
// the target's exact figure when given, else the host's.
func declareLine(r *nk.Report, t *targetFigure) string {
	n := r.ArenaAfterLoad
	if t != nil {
		n = t.ArenaBytes
	}
	return fmt.Sprintf("static uint8_t arena[%d] __attribute__((aligned(16)));", n)
}

func writeInspectTable(w io.Writer, path string, r *nk.Report, full, regions bool, t *targetFigure) {
	// One fixed key column keeps every group aligned.
	row := func(k, v string) {
		if k == "" {
			fmt.Fprintln(w)
			return
		}
		fmt.Fprintf(w, "%-22s%s\n", k, v)
	}
	sz := cliutil.FormatSize
	row("model", path)
	row("file", sz(r.FileBytes))
	row("ops / tensors", fmt.Sprintf("%d / %d", len(r.Ops), r.NumTensors))
	row("MACs per inference", fmt.Sprint(r.MACs))
	row("inputs", describeInfos(r.Inputs))
	row("outputs", describeInfos(r.Outputs))
	row("", "")
	if t != nil {
		row("arena on target", sz(t.ArenaBytes)+" on "+t.Target+" (exact for that target; the figures below are this host's)")
	}
	row("arena after load", sz(r.ArenaAfterLoad))
	row("arena after forward", sz(r.ArenaAfterForward))
	row("  model (shared)", sz(r.ModelBytes))
	row("  one context", sz(r.ContextBytes))
	row("workspace", sz(r.Workspace))
	row("flash payload", sz(r.FlashPayload)+" of weights, bound in place outside the arena")
	row("parameters", sz(r.ParamBytes))
	if r.BackendHeapBytes > 0 {
		row("backend heap", sz(r.BackendHeapBytes)+" held by the backend's operators, outside the arena")
	}
	row("", "")
	row("arena breakdown", "(sums to arena after load)")
	row("  structs", sz(r.BytesStructs))
	row("  activations", sz(r.BytesActivations))
	row("  graph I/O", sz(r.BytesIO))
	if r.BytesState > 0 {
		row("  of which state", sz(r.BytesState)+" kept across invokes (recurrent state)")
	}
	row("  workspace", sz(r.BytesWorkspace))
	row("  copied weights", sz(r.BytesCopiedWeights))
	row("  padding", sz(r.BytesPadding))
	row("", "")
	row("activations planned", sz(r.PeakActivations))
	row("  lower bound", sz(r.ActivationLowerBound))
	row("  ping-pong design", sz(r.PingPongBytes))
	if regions {
		row("", "")
		row("regions", "(nk_model_load_buffer_regions)")
		row("  fast: activations", sz(r.RegionActivations)+" activation block and workspace, or the load's scratch")
		row("  slow: records", sz(r.RegionRecords)+" model, op and context records, data table, copied weights")
		if r.RegionBlock != r.RegionActivations {
			row("  or fast: block", sz(r.RegionBlock)+" the activation block and workspace alone")
			row("     slow: records", sz(r.RegionRecordsWithScratch)+" with the load's scratch above them")
		}
	}

	if full {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "#\top\tname\tinput\toutput\tMACs\tparams B\tact offset\tact B\tworkspace B\troom B\tin place\timpl\truns\t")
		for _, op := range r.Ops {
			inPlace := ""
			if op.InPlace {
				inPlace = "yes"
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%d\t\n", op.Index, op.Op, op.Name,
				dims(op.InShape), dims(op.OutShape), op.MACs, op.ParamBytes, op.ActOffset, op.ActBytes, op.WorkspaceBytes, op.Room,
				inPlace, op.Impl, op.Chunks)
		}
		tw.Flush()
		if first, last, chunks := batchTile(r.Ops); chunks > 1 {
			fmt.Fprintf(w, "\nbatch tile: ops %d-%d run %d times per invoke, each time on %d of the batch's samples;\n"+
				"the tensors they make and consume take one chunk's bytes (act B)\n", first, last, chunks, r.Inputs[0].Shape[0]/chunks)
		}
	}
	fmt.Fprintf(w, "\ndeclare: %s\n", declareLine(r, t))
}

// batchTile is the ops a batch tile runs chunk by chunk (docs/MEMORY.md),
// and its chunk count; 0 chunks: none.
func batchTile(ops []nk.OpInfo) (first, last, chunks int) {
	for _, op := range ops {
		if op.Chunks > 1 {
			if chunks == 0 {
				first = op.Index
			}
			last, chunks = op.Index, op.Chunks
		}
	}
	return first, last, chunks
}

func dims(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return strings.Join(parts, "x")
}

type jsonTensor struct {
	Name   string `json:"name"`
	Shape  []int  `json:"shape"`
	DType  string `json:"dtype"`
	Layout string `json:"layout"`
	// quantized tensors only: real = scale * (q - zero_point)
	Scale     *float32 `json:"scale,omitempty"`
	ZeroPoint *int32   `json:"zero_point,omitempty"`
}

type jsonOp struct {
	Index          int    `json:"index"`
	Op             string `json:"op"`
	Name           string `json:"name"`
	InShape        []int  `json:"in_shape"`
	OutShape       []int  `json:"out_shape"`
	MACs           int64  `json:"macs"`
	ParamBytes     int64  `json:"param_bytes"`
	ActOffset      int64  `json:"act_offset"`
	ActBytes       int64  `json:"act_bytes"`
	WorkspaceBytes int64  `json:"workspace_bytes"`
	Room           int64  `json:"room"` // activation-block bytes lent as workspace
	InPlace        bool   `json:"in_place"`
	Impl           string `json:"impl"`
	Runs           int    `json:"runs"` // per invoke: a batch tile's chunks, else 1
}

type jsonReport struct {
	Model                string        `json:"model"`
	FileBytes            int64         `json:"file_bytes"`
	NumOps               int           `json:"num_ops"`
	NumTensors           int           `json:"num_tensors"`
	Inputs               []jsonTensor  `json:"inputs"`
	Outputs              []jsonTensor  `json:"outputs"`
	Target               *targetFigure `json:"target,omitempty"`
	ArenaAfterLoad       int64         `json:"arena_after_load"`
	ArenaAfterForward    int64         `json:"arena_after_forward"`
	ModelBytes           int64         `json:"model_bytes"`
	ContextBytes         int64         `json:"context_bytes"`
	Workspace            int64         `json:"workspace"`
	FlashPayload         int64         `json:"flash_payload"`
	ParamBytes           int64         `json:"param_bytes"`
	MACs                 int64         `json:"macs"`
	PeakActivations      int64         `json:"peak_activations"`
	ActivationLowerBound int64         `json:"activation_lower_bound"`
	PingPongBytes        int64         `json:"pingpong_bytes"`
	BackendHeapBytes     int64         `json:"backend_heap_bytes"`
	StateBytes           int64         `json:"state_bytes,omitempty"`
	Breakdown            struct {
		Structs       int64 `json:"structs"`
		Activations   int64 `json:"activations"`
		IO            int64 `json:"io"`
		Workspace     int64 `json:"workspace"`
		CopiedWeights int64 `json:"copied_weights"`
		Padding       int64 `json:"padding"`
	} `json:"breakdown"`
	Regions *jsonRegions `json:"regions,omitempty"`
	Declare string       `json:"declare"`
	Ops     []jsonOp     `json:"ops,omitempty"`
}

// jsonRegions: nk_model_region_sizes' two exact pairs (the load's scratch
// in the fast region, or in the slow one with the block alone in the fast).
type jsonRegions struct {
	Activations        int64 `json:"activations"`
	Records            int64 `json:"records"`
	Block              int64 `json:"block"`
	RecordsWithScratch int64 `json:"records_with_scratch"`
}

func jsonTensors(ts []nk.TensorInfo) []jsonTensor {
	out := make([]jsonTensor, len(ts))
	for i, t := range ts {
		out[i] = jsonTensor{Name: t.Name, Shape: t.Shape, DType: t.DType.String(), Layout: t.Layout.String()}
		if t.Scale > 0 {
			out[i].Scale, out[i].ZeroPoint = &t.Scale, &t.ZeroPoint
		}
	}
	return out
}

func writeInspectJSON(w io.Writer, path string, r *nk.Report, full, regions bool, t *targetFigure) error {
	j := jsonReport{
		Model: path, FileBytes: r.FileBytes, NumOps: len(r.Ops), NumTensors: r.NumTensors,
		Inputs: jsonTensors(r.Inputs), Outputs: jsonTensors(r.Outputs),
		ArenaAfterLoad: r.ArenaAfterLoad, ArenaAfterForward: r.ArenaAfterForward,
		ModelBytes: r.ModelBytes, ContextBytes: r.ContextBytes, Workspace: r.Workspace,
		FlashPayload: r.FlashPayload, ParamBytes: r.ParamBytes, MACs: r.MACs,
		PeakActivations: r.PeakActivations, ActivationLowerBound: r.ActivationLowerBound,
		PingPongBytes: r.PingPongBytes, BackendHeapBytes: r.BackendHeapBytes, StateBytes: r.BytesState,
		Declare: declareLine(r, t), Target: t,
	}
	j.Breakdown.Structs, j.Breakdown.Activations, j.Breakdown.IO = r.BytesStructs, r.BytesActivations, r.BytesIO
	j.Breakdown.Workspace, j.Breakdown.CopiedWeights, j.Breakdown.Padding = r.BytesWorkspace, r.BytesCopiedWeights, r.BytesPadding
	if regions {
		j.Regions = &jsonRegions{r.RegionActivations, r.RegionRecords, r.RegionBlock, r.RegionRecordsWithScratch}
	}
	if full {
		for _, op := range r.Ops {
			j.Ops = append(j.Ops, jsonOp{op.Index, op.Op, op.Name, op.InShape, op.OutShape, op.MACs,
				op.ParamBytes, op.ActOffset, op.ActBytes, op.WorkspaceBytes, op.Room, op.InPlace, op.Impl, op.Chunks})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(j)
}
