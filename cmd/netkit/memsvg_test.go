package main

import (
	"encoding/json"
	"encoding/xml"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/nkfile"
)

// svgElem is any element of the memory map with the attributes we check.
type svgElem struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Title   string     `xml:"title"`
}

type svgDoc struct {
	Width  string    `xml:"width,attr"`
	Height string    `xml:"height,attr"`
	Elems  []svgElem `xml:",any"`
}

func (e svgElem) attr(name string) string {
	for _, a := range e.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (e svgElem) num(t *testing.T, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(e.attr(name), 64)
	require.NoError(t, err, "%s of %s", name, e.Title)
	return v
}

// The memory map against the file's own graph (lifetimes computed here
// from nkfile's decoding, not the C core's) and the report (peak, bound,
// workspace), rendered by a real SVG renderer (rsvg-convert, Debian's
// librsvg2-bin) to prove it is a valid picture of the stated size.
func TestInspectSVG(t *testing.T) {
	rsvg, err := exec.LookPath("rsvg-convert")
	require.NoError(t, err, "rsvg-convert (Debian librsvg2-bin; scripts/test.sh installs it)")
	roomOps := 0
	for _, path := range []string{model("branch.nk"), model("cnn.nk"),
		filepath.Join("..", "..", "testdata", "models_i8", "mlperf_ad01_int8.nk")} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			dir := t.TempDir()
			svgPath := filepath.Join(dir, "map.svg")
			code, stdout, stderr := cli(t, "inspect", "--json", path, "--svg", svgPath)
			require.Equal(t, 0, code, stderr)
			var rep struct {
				Peak      int64 `json:"peak_activations"`
				Bound     int64 `json:"activation_lower_bound"`
				Workspace int64 `json:"workspace"`
			}
			require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
			peak, bound, workspace := rep.Peak, rep.Bound, rep.Workspace

			img, err := os.ReadFile(path)
			require.NoError(t, err)
			m, err := nkfile.Decode(img)
			require.NoError(t, err)
			// last reader of each tensor; graph outputs live past the last op
			last := map[int]int{}
			for k, op := range m.Ops {
				for _, id := range op.Inputs {
					if id >= 0 {
						last[id] = k
					}
				}
			}
			for _, o := range m.Outputs {
				last[o.Tensor] = len(m.Ops)
			}

			raw, err := os.ReadFile(svgPath)
			require.NoError(t, err)
			var doc svgDoc
			require.NoError(t, xml.Unmarshal(raw, &doc))
			width, err := strconv.Atoi(doc.Width)
			require.NoError(t, err)
			height, err := strconv.Atoi(doc.Height)
			require.NoError(t, err)

			var boxes, rooms []svgElem
			var peakLines, boundLines, workspaces int
			for _, e := range doc.Elems {
				switch e.attr("class") {
				case "tensor":
					boxes = append(boxes, e)
				case "room":
					rooms = append(rooms, e)
				case "peak":
					peakLines++
					assert.EqualValues(t, peak, e.num(t, "data-bytes"))
				case "bound":
					boundLines++
					assert.EqualValues(t, bound, e.num(t, "data-bytes"))
				case "workspace":
					workspaces++
					assert.EqualValues(t, peak, e.num(t, "data-offset"))
					assert.EqualValues(t, workspace, e.num(t, "data-bytes"))
				}
			}
			assert.Equal(t, 1, peakLines)
			assert.Equal(t, 1, boundLines)
			assert.Equal(t, min(workspace, 1), int64(workspaces))

			// one box per op output and per graph input, each alive from
			// its producer (0 for a graph input) to its last reader
			require.Len(t, boxes, len(m.Ops)+len(m.Inputs))
			want := map[[2]int]int{} // (first, last) -> bytes, counted
			for _, in := range m.Inputs {
				want[[2]int{0, last[in.Tensor]}] += m.Tensors[in.Tensor].Bytes()
			}
			for k, op := range m.Ops {
				id := op.Outputs[0]
				l, ok := last[id]
				if !ok {
					l = k
				}
				want[[2]int{k, l}] += m.Tensors[id].Bytes()
			}
			got := map[[2]int]int{}
			var top int64
			for _, b := range boxes {
				off, size := int64(b.num(t, "data-offset")), int64(b.num(t, "data-bytes"))
				got[[2]int{int(b.num(t, "data-first")), int(b.num(t, "data-last"))}] += int(size)
				top = max(top, off+round16(size))
				assert.NotEmpty(t, b.Title, "hover title")
				x, y := b.num(t, "x"), b.num(t, "y")
				assert.True(t, x >= 0 && y >= 0 && x+b.num(t, "width") <= float64(width) &&
					y+b.num(t, "height") <= float64(height)+0.01, "box %q inside the picture", b.Title)
			}
			assert.Equal(t, want, got, "tensor lifetimes and sizes")
			assert.Equal(t, peak, top, "the highest box ends at the planned peak")

			// each op's room reaches the workspace, and no tensor alive at
			// the op (its operands included) reaches into it
			for _, rm := range rooms {
				k, off, size := int(rm.num(t, "data-op")), int64(rm.num(t, "data-offset")), int64(rm.num(t, "data-bytes"))
				assert.Equal(t, round16(peak), off+size, "op %d's room ends where the workspace starts", k)
				for _, b := range boxes {
					if int(b.num(t, "data-first")) <= k && k <= int(b.num(t, "data-last")) {
						assert.LessOrEqual(t, int64(b.num(t, "data-offset"))+round16(int64(b.num(t, "data-bytes"))), off,
							"op %d's room over %q", k, b.Title)
					}
				}
			}
			roomOps += len(rooms)

			pngPath := filepath.Join(dir, "map.png")
			out, err := exec.Command(rsvg, svgPath, "-o", pngPath).CombinedOutput()
			require.NoError(t, err, "%s", out)
			f, err := os.Open(pngPath)
			require.NoError(t, err)
			defer f.Close()
			cfg, err := png.DecodeConfig(f)
			require.NoError(t, err)
			assert.Equal(t, width, cfg.Width)
			assert.Equal(t, height, cfg.Height)
		})
	}
	assert.Positive(t, roomOps, "cnn and AD have ops with room")
}

// --regions: the fast region holds the activation block (16-rounded) and
// the workspace, or the load's scratch where that is larger (hello world:
// its block is 96 B; then a second pair puts the scratch in the slow
// region), the slow one the persistent records, and the two never need
// more than one arena; model_test (C) loads KWS, AD and hello
// world in exactly these figures and checks one byte less fails in each.
func TestInspectRegions(t *testing.T) {
	for _, tc := range []struct {
		name          string
		scratchLarger bool
	}{{"mlperf_kws_ref_model", false}, {"tflm_hello_world_int8", true}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join("..", "..", "testdata", "models_i8", tc.name+".nk")
			code, stdout, stderr := cli(t, "inspect", "--json", "--regions", path)
			require.Equal(t, 0, code, stderr)
			var rep struct {
				Peak      int64 `json:"peak_activations"`
				Workspace int64 `json:"workspace"`
				Arena     int64 `json:"arena_after_load"`
				Regions   *struct {
					Activations        int64 `json:"activations"`
					Records            int64 `json:"records"`
					Block              int64 `json:"block"`
					RecordsWithScratch int64 `json:"records_with_scratch"`
				} `json:"regions"`
			}
			require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
			require.NotNil(t, rep.Regions)
			block := round16(rep.Peak) + rep.Workspace
			assert.Equal(t, block, rep.Regions.Block)
			if tc.scratchLarger {
				assert.Greater(t, rep.Regions.Activations, block)
				assert.Greater(t, rep.Regions.RecordsWithScratch, rep.Regions.Records)
			} else {
				assert.Equal(t, block, rep.Regions.Activations)
				assert.Equal(t, rep.Regions.Records, rep.Regions.RecordsWithScratch)
			}
			assert.Positive(t, rep.Regions.Records)
			assert.LessOrEqual(t, rep.Regions.Records+rep.Regions.Activations, rep.Arena,
				"the two regions never need more than the whole load")
			code, stdout, _ = cli(t, "inspect", path, "--regions")
			require.Equal(t, 0, code)
			assert.Regexp(t, `fast: activations +`+strconv.FormatInt(rep.Regions.Activations, 10)+` B`, stdout)
		})
	}
}
