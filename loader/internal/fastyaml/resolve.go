package fastyaml

// The tags yaml.v3 resolves plain scalars to (!!str, !!int, !!float,
// !!bool, !!null, !!timestamp, !!merge), decided without its regular
// expressions.

import (
	"strconv"
	"strings"
	"time"
)

// Tags yaml.v3 gives the nodes the fast parser builds.
const (
	tagStr       = "!!str"
	tagNull      = "!!null"
	tagBool      = "!!bool"
	tagInt       = "!!int"
	tagFloat     = "!!float"
	tagTimestamp = "!!timestamp"
	tagMerge     = "!!merge"
	tagSeq       = "!!seq"
	tagMap       = "!!map"
)

// resolvePlainTag is the tag yaml.v3 gives a plain scalar: its resolve()
// with no explicit tag (resolve.go), plus the !!merge tag its parser gives
// "<<". The checks run in the order yaml.v3 runs them (exact words, then
// timestamps, integers, floats, binary and octal), so that the decision is
// the same for every string; the differential tests compare the two.
func resolvePlainTag(s string) string {
	if s == "" {
		return tagNull
	}
	hint := resolveHint(s[0])
	if hint == 0 {
		if s == "<<" {
			return tagMerge
		}
		return tagStr
	}
	if tag, ok := resolveMapTag(s); ok {
		return tag
	}
	switch hint {
	case '.':
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return tagFloat
		}
	case 'D', 'S':
		return resolveNumberTag(s)
	}
	return tagStr
}

// resolveHint is what a scalar's first byte says it might be: a signed or
// unsigned number, a word (bool, null), or a special float.
func resolveHint(c byte) byte {
	switch c {
	case '+', '-':
		return 'S'
	case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return 'D'
	case 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O', '~':
		return 'M'
	case '.':
		return '.'
	}
	return 0
}

// resolveMapTag gives the tags of the words yaml.v3 resolves by spelling.
func resolveMapTag(s string) (string, bool) {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return tagBool, true
	case "~", "null", "Null", "NULL":
		return tagNull, true
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return tagFloat, true
	case "<<":
		return tagMerge, true
	}
	return "", false
}

// isYAMLStyleFloat matches what yaml.v3's yamlStyleFloat regular
// expression matches,
//
//	^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
//
// without the cost of running it on every "5s" and "150ms" of a manifest.
// Each part of the expression is decided by its first character, so
// matching greedily is exact.
func isYAMLStyleFloat(s string) bool {
	i := 0
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// resolveNumberTag resolves a plain scalar starting with a sign or a digit,
// like the 'D' and 'S' cases of yaml.v3's resolve.
func resolveNumberTag(s string) string {
	if tag, ok := commonNumberTag(s); ok {
		return tag
	}
	if looksLikeTimestamp(s) {
		return tagTimestamp
	}
	plain := strings.ReplaceAll(s, "_", "")
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return tagInt
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return tagInt
	}
	if isYAMLStyleFloat(plain) {
		if _, err := strconv.ParseFloat(plain, 64); err == nil {
			return tagFloat
		}
	}
	if strings.HasPrefix(plain, "0b") {
		if _, err := strconv.ParseInt(plain[2:], 2, 64); err == nil {
			return tagInt
		}
		if _, err := strconv.ParseUint(plain[2:], 2, 64); err == nil {
			return tagInt
		}
	} else if strings.HasPrefix(plain, "-0b") {
		if _, err := strconv.ParseInt("-"+plain[3:], 2, 64); err == nil {
			return tagInt
		}
	}
	if strings.HasPrefix(plain, "0o") {
		if _, err := strconv.ParseInt(plain[2:], 8, 64); err == nil {
			return tagInt
		}
		if _, err := strconv.ParseUint(plain[2:], 8, 64); err == nil {
			return tagInt
		}
	} else if strings.HasPrefix(plain, "-0o") {
		if _, err := strconv.ParseInt("-"+plain[3:], 8, 64); err == nil {
			return tagInt
		}
	}
	return tagStr
}

// commonNumberTag tags, without strconv, the three shapes most scalars
// that start like a number have: a decimal integer that fits in an int64
// (a port, a count); digits with two or more dots (an address, a version);
// and digits followed by letters that cannot make a number (a duration,
// "30s", or a quantity, "64Mi"). The last two are neither numbers nor
// timestamps, and strconv reports each with two error values, 40,000 of
// them loading 5,000 HTTPProxies. Anything else is left to
// resolveNumberTag.
func commonNumberTag(s string) (string, bool) {
	digits := s
	if digits != "" && (digits[0] == '-' || digits[0] == '+') {
		digits = digits[1:]
	}
	dots := 0
	for i := 0; i < len(digits); i++ {
		switch c := digits[i]; {
		case c == '.':
			dots++
		case c < '0' || c > '9':
			if dots == 0 && i > 0 && unitSuffix(digits[i:]) {
				return tagStr, true
			}
			return "", false
		}
	}
	switch {
	case dots >= 2:
		return tagStr, true
	case dots == 0 && len(digits) > 0 && len(digits) <= 18 && (digits[0] != '0' || len(digits) == 1):
		// No leading zero: base 0 would read "012" as octal.
		return tagInt, true
	}
	return "", false
}

// unitSuffix says whether s, which follows a number's digits, is letters
// only, none of which a number can hold there: an exponent (e), a base (x,
// o, b, which follow a 0) or a special float (inf and nan need a dot).
func unitSuffix(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20 // lower case, for letters
		if c < 'a' || c > 'z' || c == 'e' || c == 'x' || c == 'o' || c == 'b' {
			return false
		}
	}
	return true
}

// timestampFormats are the layouts yaml.v3 accepts as timestamps.
var timestampFormats = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

// looksLikeTimestamp says whether yaml.v3 would read s as a timestamp:
// four digits and a dash, then one of timestampFormats.
func looksLikeTimestamp(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			break
		}
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, format := range timestampFormats {
		if _, err := time.Parse(format, s); err == nil {
			return true
		}
	}
	return false
}
