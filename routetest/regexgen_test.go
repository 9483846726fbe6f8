package routetest

import (
	"regexp/syntax"
	"strings"
	"testing"
	"unicode"
)

// sampleRegex makes up a string the pattern matches in full, for the
// smoke test's requests: the shortest choice everywhere (no repeats for *
// and ?, one for +, the first alternative), a plain letter where any
// character will do. ok is false for constructs it does not handle; the
// caller checks the result against the pattern anyway.
func sampleRegex(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !sampleNode(re.Simplify(), &b) {
		return "", false
	}
	return b.String(), true
}

func sampleNode(re *syntax.Regexp, b *strings.Builder) bool {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		r, ok := classRune(re.Rune)
		if !ok {
			return false
		}
		b.WriteRune(r)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpStar, syntax.OpQuest:
		// Anchors are implied (the match is full); zero repeats.
	case syntax.OpPlus:
		return sampleNode(re.Sub[0], b)
	case syntax.OpRepeat:
		for i := 0; i < re.Min; i++ {
			if !sampleNode(re.Sub[0], b) {
				return false
			}
		}
	case syntax.OpCapture:
		return sampleNode(re.Sub[0], b)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !sampleNode(s, b) {
				return false
			}
		}
	case syntax.OpAlternate:
		return sampleNode(re.Sub[0], b)
	default:
		return false
	}
	return true
}

// classRune picks a printable, URL-safe rune of a character class,
// preferring a letter.
func classRune(ranges []rune) (rune, bool) {
	var fallback rune = -1
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < 0x7f; r++ {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return r, true
			}
			if fallback < 0 && r > ' ' && !strings.ContainsRune("?#%&", r) {
				fallback = r
			}
		}
	}
	return fallback, fallback >= 0
}

func TestSampleRegex(t *testing.T) {
	for _, pattern := range []string{
		`/foo`, `/foo/.*`, `/api/v[0-9]+/users`, `^/(a|b)/x$`, `/id/\d{3}`, `/[^/]+/edit`, `/x?y*z+`, `(?i)/CaSe`,
	} {
		s, ok := sampleRegex(pattern)
		if !ok {
			t.Errorf("sampleRegex(%q) gave up", pattern)
			continue
		}
		if m, err := fullMatch(pattern, s); err != nil || !m {
			t.Errorf("sampleRegex(%q) = %q, which does not match it in full", pattern, s)
		}
	}
}
