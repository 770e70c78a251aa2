package conformance

import (
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/netkit/netkit/internal/engine"
)

// arenaCount wraps a binding's backend to watch the C heap arenas the
// shared engine allocates and frees (one per Model, one per Session).
type arenaCount struct {
	mu      sync.Mutex
	arenas  map[*engine.CArena]bool // live: allocated and not yet freed
	allocs  int
	strange []string // frees of arenas that were not live: double frees
}

func newArenaCount() *arenaCount { return &arenaCount{arenas: map[*engine.CArena]bool{}} }

// opener returns open with the arena calls of its backend counted.
func (c *arenaCount) opener(open engine.Opener) engine.Opener {
	return func(lib string) (*engine.Backend, error) {
		b, err := open(lib)
		if err != nil {
			return nil, err
		}
		w := *b
		w.ArenaInitHeap = func(a *engine.CArena, n uint64) engine.Status {
			s := b.ArenaInitHeap(a, n)
			if s == engine.StatusOK {
				c.mu.Lock()
				c.arenas[a] = true
				c.allocs++
				c.mu.Unlock()
			}
			return s
		}
		w.ArenaFreeHeap = func(a *engine.CArena) {
			c.mu.Lock()
			if !c.arenas[a] {
				c.strange = append(c.strange, "nk_arena_free_heap of an arena that is not live")
			}
			delete(c.arenas, a)
			c.mu.Unlock()
			b.ArenaFreeHeap(a)
		}
		return &w, nil
	}
}

// live is the number of arenas allocated and not yet freed.
func (c *arenaCount) live() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.arenas)
}

// report returns the arenas allocated so far and the double frees seen.
func (c *arenaCount) report() (allocs int, strange []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.allocs, slices.Clone(c.strange)
}

// collectUntil runs the collector, and gives the cleanup goroutine time to
// run what it queued, until done holds or 200 rounds have passed; it
// reports whether done held. Cleanups run after a collection that found
// their object unreachable, on a goroutine of their own: nothing to wait on.
func collectUntil(done func() bool) bool {
	for range 200 {
		if done() {
			return true
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	return done()
}
