package engine

import (
	"fmt"
	"unsafe"
)

// sharedArena counts the models of one LoadShared still holding its arena.
type sharedArena struct{ users int }

// LoadShared loads the images into one arena over one shared activation
// block (nk_model_load_buffer_shared, nk_model_bind_activations): the arena
// holds each model's records and the largest block, not one block per
// model. The models run one at a time (they share a lock); a run of one
// overwrites the others' activations, which Run and RunRaw never expose.
// The arena is sized exactly by a measuring load unless WithArenaSize
// sets it, and is freed when the last of the models is closed.
func LoadShared(open Opener, images [][]byte, opts ...Option) ([]*Model, error) {
	o := collect(opts)
	b, err := open(o.library)
	if err != nil {
		return nil, err
	}
	if len(images) == 0 {
		return nil, errorf(StatusArg, "netkit: LoadShared: no model images")
	}
	imgs := make([][]byte, len(images))
	for i, img := range images {
		if len(img) == 0 {
			return nil, errorf(StatusArg, fmt.Sprintf("netkit: LoadShared: model image %d is empty", i))
		}
		imgs[i] = aligned(img)
	}
	size := o.arenaSize
	if size == 0 {
		// measure in the models' standalone arenas together, then load exactly
		var total int64
		for _, img := range imgs {
			n, err := arenaSize(b, img, LoadBuffer)
			if err != nil {
				return nil, err
			}
			total += n
		}
		ms, used, err := loadShared(b, imgs, total)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			_ = m.Close()
		}
		size = used
	}
	ms, _, err := loadShared(b, imgs, size)
	return ms, err
}

// loadShared loads imgs into one arena of size bytes; it returns the models
// and the arena bytes they used.
func loadShared(b *Backend, imgs [][]byte, size int64) ([]*Model, int64, error) {
	first, err := newModelState(b, size)
	if err != nil {
		return nil, 0, err
	}
	group := &sharedArena{}
	states := make([]*modelState, 0, len(imgs))
	fail := func(err error) ([]*Model, int64, error) {
		for _, st := range states {
			st.release()
		}
		return nil, 0, err
	}
	var block uint64
	for i, img := range imgs {
		st := first
		if i > 0 {
			st = &modelState{mu: first.mu, b: b, arena: first.arena, capacity: size}
			st.pin.Pin(st.arena)
		}
		st.group = group
		group.users++
		st.image = img
		st.pin.Pin(unsafe.SliceData(img))
		states = append(states, st)
		ce := new(CError)
		h, s := b.LoadBufferShared(unsafe.Pointer(unsafe.SliceData(img)), uint64(len(img)), st.arena, ce)
		if s != StatusOK {
			return fail(fmt.Errorf("netkit: LoadShared: model image %d: %w", i, cError(s, ce)))
		}
		st.handle = h
		block = max(block, b.ActivationSize(h))
	}
	mem := b.ArenaAlloc(first.arena, block, 16)
	if mem == nil {
		return fail(fmt.Errorf("%w: LoadShared: no room for the %d B shared activation block in a %d B arena",
			ErrArenaOverflow, block, size))
	}
	used := int64(first.arena.Used)
	for _, st := range states {
		ce := new(CError)
		if s := b.BindActivations(st.handle, mem, block, ce); s != StatusOK {
			return fail(cError(s, ce))
		}
	}
	models := make([]*Model, len(states))
	for i, st := range states {
		m, err := st.finish(st.handle) // releases st when it fails
		if err != nil {
			for _, done := range models[:i] {
				_ = done.Close()
			}
			for _, rest := range states[i+1:] {
				rest.release()
			}
			return nil, 0, err
		}
		models[i] = m
	}
	return models, used, nil
}
