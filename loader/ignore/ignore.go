// Package ignore matches paths against patterns in gitignore syntax, for
// contourc's --exclude: a path relative to the directory a pattern applies
// to is left out when the last pattern that matches it is not a negation.
//
// The rules are git's (gitignore(5)): "!" re-includes what an earlier
// pattern left out; a leading "/" or a "/" inside the pattern anchors it to
// the directory it applies to, otherwise it matches a name at any depth; a
// trailing "/" matches directories only; "*", "?" and "[...]" match within
// one path segment; "**/" matches any number of directories, a trailing
// "/**" everything inside, and "/**/" zero or more directories. As in git,
// nothing inside a directory that is left out can be re-included: the
// caller prunes the directory and never asks about what is inside.
package ignore

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Matcher is a compiled list of patterns, in the order given.
type Matcher struct {
	patterns []pattern
}

// pattern is one compiled pattern.
type pattern struct {
	text    string   // as given, for messages
	negate  bool     // "!": re-include
	dirOnly bool     // trailing "/": directories only
	segs    []string // path.Match patterns, one per segment; "**" for any depth
}

// Compile compiles patterns. An empty Matcher (no patterns) matches
// nothing.
func Compile(patterns []string) (*Matcher, error) {
	m := &Matcher{}
	var errs []error
	for _, p := range patterns {
		c, err := compile(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("--exclude %q: %w", p, err))
			continue
		}
		m.patterns = append(m.patterns, c)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return m, nil
}

func compile(text string) (pattern, error) {
	p := pattern{text: text}
	s := trimTrailingSpaces(text)
	switch {
	case s == "":
		return p, errors.New("empty pattern")
	case s[0] == '#':
		// A line starting with # is a comment in a .gitignore.
		return p, errors.New(`a pattern starting with "#" is a comment in gitignore syntax; write \# for a literal #`)
	case s[0] == '!':
		p.negate, s = true, s[1:]
	}
	if strings.HasSuffix(s, "/") {
		p.dirOnly, s = true, strings.TrimRight(s, "/")
	}
	// A slash at the start or in the middle anchors the pattern to the
	// directory it applies to; without one it matches at any depth.
	anchored := strings.Contains(s, "/")
	s = strings.TrimPrefix(s, "/")
	if s == "" {
		return p, errors.New("the pattern matches nothing but the directory it applies to")
	}
	if !anchored {
		p.segs = append(p.segs, "**")
	}
	for _, seg := range strings.Split(s, "/") {
		switch {
		case seg == "":
			continue // "a//b" is "a/b", as git reads it
		case seg == "**":
			if n := len(p.segs); n > 0 && p.segs[n-1] == "**" {
				continue
			}
			p.segs = append(p.segs, "**")
			continue
		}
		g := globSegment(seg)
		if _, err := path.Match(g, ""); err != nil {
			return p, fmt.Errorf("malformed pattern (an unclosed [ ?)")
		}
		p.segs = append(p.segs, g)
	}
	return p, nil
}

// trimTrailingSpaces drops the trailing spaces gitignore ignores, keeping
// one escaped with a backslash.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// globSegment turns one segment of a gitignore pattern into a path.Match
// pattern: "**" mixed with other characters is a plain "*" (git: "other
// consecutive asterisks are considered regular asterisks"), "[!...]" is
// "[^...]", and a leading "\!" or "\#" is the literal character.
func globSegment(seg string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch {
		case c == '\\' && i+1 < len(seg):
			b.WriteByte(c)
			b.WriteByte(seg[i+1])
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			if i+1 < len(seg) && seg[i+1] == '!' {
				b.WriteByte('^')
				i++
			}
		case c == '*':
			for i+1 < len(seg) && seg[i+1] == '*' {
				i++
			}
			b.WriteByte('*')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Match reports whether rel, a slash-separated path relative to the
// directory the patterns apply to, is left out, and the pattern that
// decided it (the last one that matches). isDir says whether rel is a
// directory, for patterns ending in "/".
func (m *Matcher) Match(rel string, isDir bool) (bool, string) {
	if m == nil || len(m.patterns) == 0 {
		return false, ""
	}
	segs := strings.Split(strings.Trim(rel, "/"), "/")
	for i := len(m.patterns) - 1; i >= 0; i-- {
		p := m.patterns[i]
		if p.dirOnly && !isDir {
			continue
		}
		if matchSegs(p.segs, segs) {
			return !p.negate, p.text
		}
	}
	return false, ""
}

// Empty reports whether m has no patterns.
func (m *Matcher) Empty() bool { return m == nil || len(m.patterns) == 0 }

// matchSegs matches pattern segments against path segments. "**" matches
// any number of segments, except at the end, where it matches at least one:
// "dir/**" is what is inside dir, not dir itself.
func matchSegs(pat, segs []string) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if pat[0] == "**" {
		if len(pat) == 1 {
			return len(segs) > 0
		}
		for i := 0; i <= len(segs); i++ {
			if matchSegs(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	if len(segs) == 0 {
		return false
	}
	ok, _ := path.Match(pat[0], segs[0])
	return ok && matchSegs(pat[1:], segs[1:])
}
