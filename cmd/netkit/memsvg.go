package main

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"os"
	"strconv"

	"github.com/netkit/netkit/nk"
)

// The memory map `inspect --svg` draws: op index left to right (one column
// per op, plus one after the last op where graph outputs still live),
// offset in the activation block bottom to top. Each tensor is a box over
// the ops it is alive for and the bytes it holds (16-rounded, as the
// planner places it); the shared kernel workspace sits above the block,
// as in the context, and each op's room (the free bytes above its
// operands the invoke lends it) a dashed box in its column below the
// workspace. Lines mark the planned peak and the liveness lower bound. Every box carries its figures as data-* attributes and a <title>
// (shown on hover), so a test can check the picture against the report.

const (
	svgPlotHeight = 480 // pixels for the activation block plus workspace
	svgMargin     = 60
	svgMinCol     = 14
	svgMaxCol     = 48
	svgPlotWidth  = 840
)

// svgBox is one tensor of the plan.
type svgBox struct {
	label        string
	offset       int64
	bytes        int64
	first, last  int // op columns, inclusive
	graphInput   bool
	inPlaceAlias bool
}

func round16(v int64) int64 { return (v + 15) &^ 15 }

// memoryBoxes lists the tensors the report places: every op's first output
// and each graph input (from the first op that reads it as input 0).
func memoryBoxes(r *nk.Report) []svgBox {
	var boxes []svgBox
	seen := map[int]bool{}
	for _, op := range r.Ops {
		if op.InputNumber >= 0 && !seen[op.InputNumber] {
			seen[op.InputNumber] = true
			name := ""
			if op.InputNumber < len(r.Inputs) {
				name = r.Inputs[op.InputNumber].Name
			}
			var bytes int64
			if op.InputNumber < len(r.Inputs) {
				bytes = int64(r.Inputs[op.InputNumber].Bytes())
			}
			boxes = append(boxes, svgBox{
				label:  fmt.Sprintf("graph input %d %q", op.InputNumber, name),
				offset: op.InputOffset, bytes: bytes, first: 0, last: op.InputLastUse, graphInput: true,
			})
		}
		label := fmt.Sprintf("output of op %d (%s", op.Index, op.Op)
		if op.Name != "" {
			label += fmt.Sprintf(" %q", op.Name)
		}
		label += ")"
		boxes = append(boxes, svgBox{
			label: label, offset: op.ActOffset, bytes: op.ActBytes,
			first: op.Index, last: op.LastUse, inPlaceAlias: op.InPlace,
		})
	}
	return boxes
}

// writeMemorySVG writes the memory map of r (a model of path) as SVG.
func writeMemorySVG(w io.Writer, path string, r *nk.Report) error {
	bw := bufio.NewWriter(w)
	cols := len(r.Ops) + 1
	col := svgPlotWidth / cols
	col = max(svgMinCol, min(svgMaxCol, col))
	plotW := col * cols
	top := r.PeakActivations + r.Workspace // the block, then the workspace above it
	if r.ActivationLowerBound > top {
		top = r.ActivationLowerBound
	}
	top = max(top, 16)
	scale := float64(svgPlotHeight) / float64(top)
	width, height := plotW+2*svgMargin, svgPlotHeight+2*svgMargin
	// y in pixels of an offset in the block (0 at the bottom of the plot)
	y := func(off int64) float64 { return float64(svgMargin) + float64(svgPlotHeight) - float64(off)*scale }
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		width, height, width, height)
	fmt.Fprintf(bw, "<title>%s: activation block %d B (lower bound %d B), workspace %d B</title>\n",
		html.EscapeString(path), r.PeakActivations, r.ActivationLowerBound, r.Workspace)
	fmt.Fprintf(bw, `<rect class="plot" x="%d" y="%d" width="%d" height="%d" fill="#fafafa" stroke="#999"/>`+"\n",
		svgMargin, svgMargin, plotW, svgPlotHeight)
	for _, b := range memoryBoxes(r) {
		x0 := svgMargin + b.first*col
		wpx := (b.last - b.first + 1) * col
		size := round16(b.bytes)
		h := max(float64(size)*scale, 1)
		fill := "#4e79a7"
		if b.graphInput {
			fill = "#59a14f"
		} else if b.inPlaceAlias {
			fill = "#f28e2b"
		}
		fmt.Fprintf(bw, `<rect class="tensor" x="%d" y="%s" width="%d" height="%s" fill="%s" fill-opacity="0.6" stroke="#222" stroke-width="0.5" data-offset="%d" data-bytes="%d" data-first="%d" data-last="%d">`,
			x0, f(y(b.offset+size)), wpx, f(h), fill, b.offset, b.bytes, b.first, b.last)
		fmt.Fprintf(bw, "<title>%s: %d B at offset %d, ops %d..%d</title></rect>\n",
			html.EscapeString(b.label), b.bytes, b.offset, b.first, b.last)
	}
	// each op's room: the block's free bytes above its operands, lent to
	// its workspace while it runs (up to where the workspace starts)
	for _, op := range r.Ops {
		if op.Room <= 0 {
			continue
		}
		off := round16(r.PeakActivations) - op.Room
		fmt.Fprintf(bw, `<rect class="room" x="%d" y="%s" width="%d" height="%s" fill="#bab0ac" fill-opacity="0.25" stroke="#bab0ac" stroke-dasharray="2 2" data-op="%d" data-offset="%d" data-bytes="%d">`,
			svgMargin+op.Index*col, f(y(off+op.Room)), col, f(float64(op.Room)*scale), op.Index, off, op.Room)
		fmt.Fprintf(bw, "<title>op %d's room: %d B at offset %d, free while it runs, lent to its workspace</title></rect>\n",
			op.Index, op.Room, off)
	}
	if r.Workspace > 0 {
		fmt.Fprintf(bw, `<rect class="workspace" x="%d" y="%s" width="%d" height="%s" fill="#bab0ac" fill-opacity="0.6" stroke="#222" stroke-width="0.5" data-offset="%d" data-bytes="%d"><title>kernel workspace: %d B after the activation block</title></rect>`+"\n",
			svgMargin, f(y(r.PeakActivations+r.Workspace)), plotW, f(float64(r.Workspace)*scale),
			r.PeakActivations, r.Workspace, r.Workspace)
	}
	fmt.Fprintf(bw, `<line class="peak" x1="%d" x2="%d" y1="%s" y2="%s" stroke="#e15759" stroke-width="1.5" data-bytes="%d"><title>planned peak: %d B</title></line>`+"\n",
		svgMargin, svgMargin+plotW, f(y(r.PeakActivations)), f(y(r.PeakActivations)), r.PeakActivations, r.PeakActivations)
	fmt.Fprintf(bw, `<line class="bound" x1="%d" x2="%d" y1="%s" y2="%s" stroke="#76b7b2" stroke-width="1.5" stroke-dasharray="6 4" data-bytes="%d"><title>liveness lower bound: %d B</title></line>`+"\n",
		svgMargin, svgMargin+plotW, f(y(r.ActivationLowerBound)), f(y(r.ActivationLowerBound)), r.ActivationLowerBound, r.ActivationLowerBound)
	fmt.Fprintf(bw, `<text x="%d" y="%d">op index →</text>`+"\n", svgMargin, height-svgMargin/3)
	fmt.Fprintf(bw, `<text x="%d" y="%d">offset (B) ↑ peak %d, bound %d, workspace %d</text>`+"\n",
		svgMargin, svgMargin/2, r.PeakActivations, r.ActivationLowerBound, r.Workspace)
	fmt.Fprintln(bw, "</svg>")
	return bw.Flush()
}

// writeSVGFile writes the memory map to file svgPath.
func writeSVGFile(svgPath, model string, r *nk.Report) error {
	f, err := os.Create(svgPath)
	if err != nil {
		return err
	}
	if err := writeMemorySVG(f, model, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
