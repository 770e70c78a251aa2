package runtime

import (
	"fmt"
	"os"
	"unsafe"
)

// Inspect reads a model file and returns InspectBytes' report.
func Inspect(open Opener, path string, opts ...Option) (*Report, error) {
	img, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrIO, err)
	}
	return InspectBytes(open, img, opts...)
}

// InspectBytes measures the model with nk_inspect_model (exact arena
// figures and the per-op table) and loads it once into an arena of exactly
// ArenaAfterLoad bytes to describe its inputs and outputs.
func InspectBytes(open Opener, b []byte, opts ...Option) (*Report, error) {
	o := collect(opts)
	be, err := open(o.library)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, errorf(StatusArg, "netkit: empty model image")
	}
	img := aligned(b)
	cr, rows, err := inspect(be, img, true)
	if err != nil {
		return nil, err
	}
	m, err := loadImage(be, img, int64(cr.ArenaAfterLoad))
	if err != nil {
		return nil, err
	}
	defer m.Close()
	r := &Report{
		ArenaAfterLoad:       int64(cr.ArenaAfterLoad),
		ArenaAfterForward:    int64(cr.ArenaAfterForward),
		ModelBytes:           int64(cr.ModelBytes),
		ContextBytes:         int64(cr.ContextBytes),
		PeakActivations:      int64(cr.PeakActivations),
		ActivationLowerBound: int64(cr.ActivationLowerBound),
		PingPongBytes:        int64(cr.PingPongBytes),
		Workspace:            int64(cr.Workspace),
		FlashPayload:         int64(cr.FlashPayload),
		FileBytes:            int64(cr.FileBytes),
		BytesStructs:         int64(cr.BytesStructs),
		BytesActivations:     int64(cr.BytesActivations),
		BytesIO:              int64(cr.BytesIO),
		BytesWorkspace:       int64(cr.BytesWorkspace),
		BytesCopiedWeights:   int64(cr.BytesCopiedWeights),
		BytesPadding:         int64(cr.BytesPadding),
		MACs:                 int64(cr.MACs),
		ParamBytes:           int64(cr.ParamBytes),
		NumTensors:           int(cr.NumTensors),
		Inputs:               m.Inputs(),
		Outputs:              m.Outputs(),
		Ops:                  make([]OpInfo, len(rows)),
	}
	for i := range rows {
		c := &rows[i]
		r.Ops[i] = OpInfo{
			Index:          int(c.Index),
			Op:             cstring(c.Op[:]),
			Name:           cstring(c.Name[:]),
			InShape:        shape(c.InRank, &c.InDims),
			OutShape:       shape(c.OutRank, &c.OutDims),
			MACs:           int64(c.MACs),
			ParamBytes:     int64(c.ParamBytes),
			ActOffset:      int64(c.ActOffset),
			ActBytes:       int64(c.ActBytes),
			WorkspaceBytes: int64(c.WorkspaceBytes),
			InPlace:        c.InPlace != 0,
		}
	}
	return r, nil
}

// inspect calls nk_inspect_model on an aligned image, with the op rows
// when withOps.
func inspect(b *Backend, img []byte, withOps bool) (CReport, []COpInfo, error) {
	var r CReport
	ce := new(CError)
	p := unsafe.Pointer(unsafe.SliceData(img))
	if s := b.Inspect(p, uint64(len(img)), &r, nil, 0, ce); s != StatusOK {
		return r, nil, cError(s, ce)
	}
	if !withOps || r.NumOps <= 0 {
		return r, nil, nil
	}
	rows := make([]COpInfo, r.NumOps)
	if s := b.Inspect(p, uint64(len(img)), &r, &rows[0], int32(len(rows)), ce); s != StatusOK {
		return r, nil, cError(s, ce)
	}
	return r, rows[:min(len(rows), int(r.NumOps))], nil
}

func shape(rank int32, dims *[MaxDims]int32) []int {
	rank = max(0, min(rank, MaxDims))
	s := make([]int, rank)
	for i := range s {
		s[i] = int(dims[i])
	}
	return s
}
