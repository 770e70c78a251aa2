package engine

import (
	"fmt"
	goruntime "runtime"
	"sync"
)

// Session is a second execution context over a Model's read-only weights,
// with its own activations and workspace (a C heap arena of
// nk_context_size bytes). Use one Session per goroutine; Session.Run makes
// no Go allocations.
type Session struct {
	s *sessionState
	m *Model // keeps the Model (and its cleanup) alive while the Session is used
}

type sessionState struct {
	mu     sync.Mutex
	closed bool
	model  *modelState
	arena  *CArena // pinned
	pin    goruntime.Pinner
	x      exec
}

// NewSession creates a context with its own activations over the model.
func (m *Model) NewSession() (*Session, error) {
	st := m.s
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return nil, ErrClosed
	}
	b := st.b
	ss := &sessionState{model: st, arena: new(CArena)}
	ss.pin.Pin(ss.arena)
	size := b.ContextSize(st.handle)
	if s := b.ArenaInitHeap(ss.arena, size); s != StatusOK {
		ss.pin.Unpin()
		return nil, fmt.Errorf("%w: cannot allocate a %d B session arena", ErrOutOfMemory, size)
	}
	ce := new(CError)
	h, s := b.ContextCreate(st.handle, ss.arena, ce)
	if s != StatusOK {
		ss.release()
		return nil, cError(s, ce)
	}
	var err error
	ss.x, err = newExec(b, h, b.ContextInput, b.ContextOutput, b.ContextInvoke, int32(len(st.inputs)), int32(len(st.outputs)))
	if err != nil {
		ss.release()
		return nil, err
	}
	ss.x.profile = profiler{fn: b.ContextProfile, ops: int(b.NumOps(st.handle))}
	ss.x.reset = b.ContextResetState
	ss.x.batch = st.def.batch
	if st.sessions == nil {
		st.sessions = make(map[*sessionState]struct{})
	}
	st.sessions[ss] = struct{}{}
	sess := &Session{s: ss, m: m}
	goruntime.AddCleanup(sess, func(ss *sessionState) { _ = ss.closeDetach() }, ss)
	return sess, nil
}

func (ss *sessionState) release() {
	ss.model.b.ArenaFreeHeap(ss.arena)
	ss.pin.Unpin()
}

// close releases the session; the model's mu is held by the caller.
func (ss *sessionState) close() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return false
	}
	ss.closed = true
	ss.release()
	return true
}

// closeDetach closes the session and removes it from its model.
func (ss *sessionState) closeDetach() error {
	st := ss.model
	st.mu.Lock()
	defer st.mu.Unlock()
	if !ss.close() {
		return ErrClosed
	}
	delete(st.sessions, ss)
	return nil
}

// Close releases the session's arena. Closing the Model closes it too.
func (s *Session) Close() error { return s.s.closeDetach() }

// ResetState is Model.ResetState on this session's context.
func (s *Session) ResetState() error {
	ss := s.s
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return ErrClosed
	}
	return ss.x.resetState()
}

// Run is Model.Run on this session's context.
func (s *Session) Run(in, out []float32) error {
	ss := s.s
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return ErrClosed
	}
	return ss.x.run(in, out)
}

// Predict is Model.Predict on this session's context.
func (s *Session) Predict(in []float32) ([]float32, error) {
	return predict(s.s.x.infoOut, in, s.Run)
}

// RunMulti is Model.RunMulti on this session's context.
func (s *Session) RunMulti(ins, outs [][]float32) error {
	ss := s.s
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return ErrClosed
	}
	return ss.x.runMulti(ins, outs)
}

// RunRaw is Model.RunRaw on this session's context.
func (s *Session) RunRaw(ins, outs [][]byte) error {
	ss := s.s
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return ErrClosed
	}
	return ss.x.runRaw(ins, outs)
}
