package engine

// Option configures Load, LoadBytes and Inspect.
type Option func(*options)

type options struct {
	arenaSize int64  // 0: the exact size from nk_model_arena_size
	copy      bool   // read the image into memory the model owns
	library   string // nkc: path of libnetkit
}

// WithArenaSize imposes an arena budget of n bytes for the model instead of
// the exact size nk_model_arena_size reports. A budget that is too small
// makes Load fail with an *Error wrapping ErrArenaOverflow that carries the
// figures.
func WithArenaSize(n int64) Option { return func(o *options) { o.arenaSize = n } }

// WithCopy makes the model keep its own copy of the image. Load reads the
// file into the model's arena (NK_LOAD_COPY) instead of mapping it, so
// the file may then be truncated, rewritten or deleted without effect on
// the model; the arena grows by the file's size. LoadBytes copies b, which
// the caller may then change.
func WithCopy() Option { return func(o *options) { o.copy = true } }

// WithLibrary loads the C core from this shared library (package nkc only;
// package nk compiles the core in and ignores it).
func WithLibrary(path string) Option { return func(o *options) { o.library = path } }

func collect(opts []Option) options {
	var o options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}
