package engine

import (
	"fmt"
	"time"
	"unsafe"
)

// profiler is a context's timed invoke (nk_model_profile or
// nk_context_profile) and the buffer it writes, made on first use.
type profiler struct {
	fn  func(h unsafe.Pointer, opNs *uint64, n int32, e *CError) Status
	ops int      // the model's op count
	ns  []uint64 // one per op, C writes it
}

// runProfiled is runRaw through the timed invoke; opTimes[k] gets op k's time.
func (x *exec) runProfiled(ins, outs [][]byte, opTimes []time.Duration) error {
	p := &x.profile
	if len(opTimes) < p.ops {
		return errorf(StatusArg, fmt.Sprintf("netkit: RunProfiled: room for %d op times, the model has %d ops", len(opTimes), p.ops))
	}
	if p.ns == nil {
		p.ns = make([]uint64, max(p.ops, 1)) // never empty: C refuses a NULL array
	}
	err := x.runRawWith(ins, outs, func() error {
		if s := p.fn(x.handle, unsafe.SliceData(p.ns), int32(p.ops), x.cerr); s != StatusOK {
			return cError(s, x.cerr)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for k := range p.ops {
		opTimes[k] = time.Duration(p.ns[k])
	}
	return nil
}

// NumOps is the model's op count: the length of Report().Ops and the
// room RunProfiled needs.
func (m *Model) NumOps() int { return m.s.def.profile.ops }

// RunProfiled is RunRaw that also stores in opTimes[k] the time op k took
// (the C core's nk_model_profile, read from the host's monotonic clock
// around each op; an op that is a view of its input, such as a reshape,
// shows the clock's own cost). opTimes needs NumOps entries; k indexes
// Report().Ops. Made for profiles (netkit bench --ops): Run does not pay
// for the clock.
func (m *Model) RunProfiled(ins, outs [][]byte, opTimes []time.Duration) error {
	st := m.s
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return ErrClosed
	}
	return st.def.runProfiled(ins, outs, opTimes)
}

// RunProfiled is Model.RunProfiled on this session's context.
func (s *Session) RunProfiled(ins, outs [][]byte, opTimes []time.Duration) error {
	ss := s.s
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return ErrClosed
	}
	return ss.x.runProfiled(ins, outs, opTimes)
}
