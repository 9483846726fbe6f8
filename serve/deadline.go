package serve

// A reload's deadline.
//
// A reload can block where no error will ever come: open(2) of a FIFO
// waits for a writer, a read from a hung network file system waits for the
// server. Run on the loop's goroutine, such a reload froze serve for good:
// no later change was read, SIGHUP did nothing, SIGTERM was ignored, and
// /readyz kept saying 200. So a reload builds on a goroutine of its own,
// and the loop waits for it only until the reload's deadline or shutdown.
// A reload past its deadline is abandoned: counted as failed, /readyz
// answers 503 with the reason, and the next reload starts with caches of
// its own, since the abandoned one may still be using (and changing) the
// old ones when it wakes. Its result, if it ever comes, is dropped.
// Goroutines stuck that way cannot be killed, so only a few may be left
// behind: past maxAbandoned, reloads fail at once, until one returns.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

// DefaultReloadTimeout is how long a reload may take before it is
// abandoned, when Config.ReloadTimeout is zero: far beyond any reload's
// time (seconds at 20,000 HTTPProxies), short enough for a supervisor to
// notice on /readyz.
const DefaultReloadTimeout = 30 * time.Second

// maxAbandoned bounds the abandoned reloads still running.
const maxAbandoned = 3

// caches are what a reload reuses from the one before it; one reload at a
// time may use them.
type caches struct {
	// decoded keeps each document's objects between reloads, so that a
	// reload decodes only the documents that changed.
	decoded *loader.Cache
	// memo keeps what a translation can reuse from the one before, the
	// verdicts on Secrets above all.
	memo *translate.Memo
}

func newCaches() *caches {
	return &caches{decoded: loader.NewCache(), memo: translate.NewMemo()}
}

// errAbandoned marks the error of a reload past its deadline.
var errAbandoned = errors.New("reload abandoned")

// errShutdown is the error of a reload cut short by the server stopping.
var errShutdown = errors.New("the server is stopping")

// buildResult is what a reload's goroutine hands back.
type buildResult struct {
	b   *build
	err error
}

// buildWithin is build, given up on at the reload's deadline or when ctx
// ends (shutdown).
func (s *Server) buildWithin(ctx context.Context, reason string) (*build, error) {
	// Reloads run one at a time, so any still running was abandoned.
	if n := s.building.Load(); n >= maxAbandoned {
		return nil, fmt.Errorf("%w: %d earlier reloads, abandoned, are still blocked (reading a FIFO or a hung file system?); not starting another until one returns", errAbandoned, n)
	}
	c := s.caches
	done := make(chan buildResult, 1)
	s.building.Add(1)
	go func() {
		// Watch new directories before reading them, so nothing
		// written into them from now on is missed. Here, since a
		// directory on a hung file system blocks listing it too.
		s.watch.sync()
		b, err := s.buildWith(reason, c)
		s.building.Add(-1) // before done: the next reload counts it out
		done <- buildResult{b, err}
	}()
	timer := time.NewTimer(s.cfg.ReloadTimeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.b, r.err
	case <-timer.C:
		s.caches = newCaches()
		return nil, fmt.Errorf("%w: not finished after %s (a file that blocks reading, such as a FIFO, or a hung network file system?); see --reload-timeout", errAbandoned, s.cfg.ReloadTimeout)
	case <-ctx.Done():
		return nil, errShutdown
	}
}
