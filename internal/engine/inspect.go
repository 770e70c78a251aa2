package engine

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

// InspectBytes loads b once as a buffer into an arena of exactly the size
// nk_model_arena_size gives, reports on the loaded model (Model.Report: the
// exact arena figures a firmware declares, and the per-op table), and runs
// one forward pass on zero inputs to measure ArenaAfterForward.
func InspectBytes(open Opener, b []byte, opts ...Option) (*Report, error) {
	o := collect(opts)
	be, err := open(o.library)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, errorf(StatusArg, "netkit: empty model image")
	}
	m, err := loadImage(be, aligned(b), 0)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	r, err := m.Report()
	if err != nil {
		return nil, err
	}
	st := m.s
	st.mu.Lock()
	defer st.mu.Unlock()
	ce := new(CError)
	if s := be.ModelInvoke(st.handle, ce); s != StatusOK {
		return nil, cError(s, ce)
	}
	r.ArenaAfterForward = int64(st.arena.HighWater)
	rec, act, recScratch, block, s := be.RegionSizes(unsafe.Pointer(unsafe.SliceData(st.image)), uint64(len(st.image)), ce)
	if s != StatusOK {
		return nil, cError(s, ce)
	}
	r.RegionRecords, r.RegionActivations = int64(rec), int64(act)
	r.RegionRecordsWithScratch, r.RegionBlock = int64(recScratch), int64(block)
	return r, nil
}

// Report is the C core's report on the loaded model (nk_model_report), for
// the way it was loaded: a mapped file's arena holds no batch-norm copies, a
// copied image counts in BytesCopiedWeights and not in FlashPayload, and
// ArenaAfterLoad equals ArenaBytes when the arena was sized exactly.
func (m *Model) Report() (*Report, error) {
	st := m.s
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return nil, ErrClosed
	}
	var cr CReport
	b := st.b
	if s := b.Report(st.handle, &cr, nil, 0); s != StatusOK {
		return nil, errorf(s, "netkit: report: "+s.Error())
	}
	var rows []COpInfo
	if cr.NumOps > 0 {
		rows = make([]COpInfo, cr.NumOps)
		if s := b.Report(st.handle, &cr, &rows[0], int32(len(rows))); s != StatusOK {
			return nil, errorf(s, "netkit: report: "+s.Error())
		}
	}
	offs := make([]uint64, cr.NumTensors)
	if len(offs) > 0 {
		if s := b.TensorOffsets(st.handle, &offs[0], int32(len(offs))); s != StatusOK {
			return nil, errorf(s, "netkit: tensor offsets: "+s.Error())
		}
	}
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
		BackendHeapBytes:     int64(cr.BackendHeapBytes),
		RegionRecords:        int64(cr.RegionRecords),
		RegionActivations:    int64(cr.RegionActivations),
		BytesState:           int64(cr.BytesState),
		NumTensors:           int(cr.NumTensors),
		Inputs:               cloneInfos(st.inputs),
		Outputs:              cloneInfos(st.outputs),
		Ops:                  make([]OpInfo, len(rows)),
		TensorOffsets:        make([]int64, len(offs)),
	}
	for i, o := range offs {
		r.TensorOffsets[i] = int64(o) // a constant's UINT64_MAX is -1
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
			Staged:         c.InPlace == 3,
			StageBand:      int(c.Stage & 0xff),
			StageSlots:     int(c.Stage >> 8 & 0xff),
			LastUse:        int(c.LastUse),
			InputOffset:    int64(c.InputOffset),
			Chunks:         int(c.Chunks),
			Room:           int64(c.Room),
			InputNumber:    int(c.InputNumber),
			InputLastUse:   int(c.InputLastUse),
			Impl:           cstring(c.Impl[:]),
		}
	}
	return r, nil
}

func shape(rank int32, dims *[MaxDims]int32) []int {
	rank = max(0, min(rank, MaxDims))
	s := make([]int, rank)
	for i := range s {
		s[i] = int(dims[i])
	}
	return s
}
