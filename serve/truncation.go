package serve

// Files caught half written.
//
// `kubectl get ... > file`, `curl > file` and `cat new > file` truncate the
// file, then write it: a reload between the two reads a file with nothing
// in it, or with its end missing, and serves a configuration without that
// file's objects (clusters gone, routes answering 502) until the next
// reload. So a file that held objects in the last reload and is now empty,
// or a YAML file that now ends in the middle of a line, holds reloads back
// for a grace period (Config.TruncationGrace): written meanwhile, the file
// is read whole; still so after it, it is believed. A file cut at the end
// of a line cannot be told from a shorter file, and JSON cut short does not
// parse (the reload fails and the last good configuration stays), so
// neither is held; the safe way to write is to rename a complete file over
// the old one, which no reader can see half done (docs/serve.md).

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultTruncationGrace is how long a file caught half written holds
// reloads back when Config.TruncationGrace is zero: a shell redirection or
// download writes within it, a person editing does not get a stale file
// for long.
const DefaultTruncationGrace = time.Second

// suspect is a file caught half written, and when it was first seen so.
type suspect struct {
	since time.Time
	why   string
}

// truncationHold checks the files changed since the last reload, and those
// already held, and returns how long to wait before reloading: zero when
// none looks half written or their grace is over.
func (s *Server) truncationHold(now time.Time) time.Duration {
	touched := s.watch.takeTouched()
	if s.cfg.TruncationGrace < 0 {
		return 0
	}
	for p := range touched {
		if _, held := s.suspects[p]; held {
			continue
		}
		if why := s.looksCut(p); why != "" {
			s.suspects[p] = suspect{since: now, why: why}
			s.log.Info("holding the reload: a file looks half written; waiting for the rest of it",
				"path", p, "why", why, "grace", s.cfg.TruncationGrace.String())
		}
	}
	var wait time.Duration
	for p, sus := range s.suspects {
		if s.looksCut(p) == "" {
			delete(s.suspects, p) // written whole, or gone
			continue
		}
		left := sus.since.Add(s.cfg.TruncationGrace).Sub(now)
		if left <= 0 {
			delete(s.suspects, p)
			s.log.Warn("a file still looks half written after the grace period; reading it as it is",
				"path", p, "why", sus.why, "grace", s.cfg.TruncationGrace.String())
			continue
		}
		wait = max(wait, left)
	}
	return wait
}

// looksCut says why the file at path looks half written, "" when it does
// not: it gave objects at the last reload and is now empty, or, for YAML,
// ends within a line.
func (s *Server) looksCut(path string) string {
	n, ok := s.caches.decoded.Objects(s.loaderName(path))
	if !ok || n == 0 {
		return ""
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	if fi.Size() == 0 {
		return "emptied"
	}
	if strings.EqualFold(filepath.Ext(path), ".json") {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, fi.Size()-1); err != nil || last[0] == '\n' {
		return ""
	}
	return "ends within a line"
}

// loaderName is the name the loader gives the file at path, a cleaned path
// as file events give it: the path as given when it is one of the paths to
// serve ("./a.yaml"), cleaned for the files found in a directory.
func (s *Server) loaderName(path string) string {
	for _, p := range s.cfg.Paths {
		if filepath.Clean(p) == path {
			return p
		}
	}
	return path
}
