package jsontext

// Block YAML written straight from protojson's output.
//
// sigs.k8s.io/yaml's JSONToYAML parses the JSON with a YAML parser into
// generic maps and prints those: for a thousand clusters that was two thirds
// of the time of writing a bootstrap, and it sorts keys alphabetically, so a
// listener's name came after its whole filter chain. This keeps protojson's
// order (proto declaration order, name first, as in Envoy's docs) and does
// one pass over the bytes.
//
// The one delicate part is strings. Envoy reads its bootstrap with yaml-cpp
// and takes an unquoted scalar that looks like a bool or a number for one;
// YAML 1.1 readers (go-yaml v2, PyYAML) see more bools (yes, on, y). So a
// string is written plain only when it is made of characters no reader treats
// specially and looks like nothing else; otherwise it is double-quoted, with
// escapes that mean the same in JSON, YAML 1.1 and YAML 1.2.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// ToYAML converts one JSON object, as protojson prints it, to block
// YAML. JSON numbers, true, false and null are copied as they are: they mean
// the same in YAML.
func ToYAML(src []byte) ([]byte, error) {
	y := &yamlWriter{src: src, out: make([]byte, 0, len(src))}
	i := skipSpace(src, 0)
	if i >= len(src) || src[i] != '{' {
		return nil, errors.New("yaml: input is not a JSON object")
	}
	if y.isEmpty(i) {
		return append(y.out, "{}\n"...), nil
	}
	if _, err := y.mapping(i, 0, false); err != nil {
		return nil, err
	}
	return y.out, nil
}

// AppendYAMLSequenceItem appends one JSON object converted into a block
// sequence item whose "- " is at indent.
func AppendYAMLSequenceItem(dst, doc []byte, indent int) ([]byte, error) {
	if cap(dst) == 0 {
		dst = make([]byte, 0, len(doc)+len(doc)/2)
	}
	y := &yamlWriter{src: doc, out: dst}
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return nil, errors.New("yaml: resource is not a JSON object")
	}
	y.indent(indent)
	if y.isEmpty(i) {
		return append(y.out, "- {}\n"...), nil
	}
	y.out = append(y.out, '-', ' ')
	if _, err := y.mapping(i, indent+2, true); err != nil {
		return nil, err
	}
	return y.out, nil
}

type yamlWriter struct {
	src []byte
	out []byte
}

var errBadJSON = errors.New("yaml: malformed JSON")

// mapping writes the object at src[i] with its keys at indent; inline means
// the first key goes on the current line, after a sequence's "- ".
func (y *yamlWriter) mapping(i, indent int, inline bool) (int, error) {
	i++ // '{'
	for first := true; ; first = false {
		i = skipSpace(y.src, i)
		if i >= len(y.src) {
			return i, errBadJSON
		}
		if y.src[i] == '}' {
			return i + 1, nil
		}
		if !first {
			if y.src[i] != ',' {
				return i, errBadJSON
			}
			i = skipSpace(y.src, i+1)
		}
		if !(first && inline) {
			y.indent(indent)
		}
		key, next, err := y.str(i)
		if err != nil {
			return i, err
		}
		y.out = appendYAMLString(y.out, key)
		y.out = append(y.out, ':')
		i = skipSpace(y.src, next)
		if i >= len(y.src) || y.src[i] != ':' {
			return i, errBadJSON
		}
		if i, err = y.memberValue(skipSpace(y.src, i+1), indent); err != nil {
			return i, err
		}
	}
}

// memberValue writes the value of a key at indent. Nested sequences stay at
// the key's indent ("key:\n- item"), as go-yaml and Envoy's docs write them.
func (y *yamlWriter) memberValue(i, indent int) (int, error) {
	if i >= len(y.src) {
		return i, errBadJSON
	}
	switch {
	case y.isEmpty(i):
		y.out = append(y.out, ' ', y.src[i], closing(y.src[i]), '\n')
		return skipSpace(y.src, i+1) + 1, nil
	case y.src[i] == '{':
		y.out = append(y.out, '\n')
		return y.mapping(i, indent+2, false)
	case y.src[i] == '[':
		y.out = append(y.out, '\n')
		return y.sequence(i, indent)
	default:
		y.out = append(y.out, ' ')
		return y.scalar(i)
	}
}

// sequence writes the array at src[i] with its "- " at indent.
func (y *yamlWriter) sequence(i, indent int) (int, error) {
	i++ // '['
	for first := true; ; first = false {
		i = skipSpace(y.src, i)
		if i >= len(y.src) {
			return i, errBadJSON
		}
		if y.src[i] == ']' {
			return i + 1, nil
		}
		if !first {
			if y.src[i] != ',' {
				return i, errBadJSON
			}
			i = skipSpace(y.src, i+1)
		}
		if i >= len(y.src) {
			return i, errBadJSON
		}
		y.indent(indent)
		var err error
		switch {
		case y.isEmpty(i):
			y.out = append(y.out, '-', ' ', y.src[i], closing(y.src[i]), '\n')
			i = skipSpace(y.src, i+1) + 1
		case y.src[i] == '{':
			y.out = append(y.out, '-', ' ')
			i, err = y.mapping(i, indent+2, true)
		case y.src[i] == '[':
			y.out = append(y.out, '-', '\n')
			i, err = y.sequence(i, indent+2)
		default:
			y.out = append(y.out, '-', ' ')
			i, err = y.scalar(i)
		}
		if err != nil {
			return i, err
		}
	}
}

// scalar writes the string, number or literal at src[i] and ends the line.
func (y *yamlWriter) scalar(i int) (int, error) {
	if y.src[i] == '"' {
		end := stringEnd(y.src, i)
		raw := y.src[i:end]
		if quotedAlike(raw) {
			y.out = append(y.out, raw...)
			y.out = append(y.out, '\n')
			return end, nil
		}
		s, err := decodeJSONString(raw)
		if err != nil {
			return i, err
		}
		y.out = appendYAMLString(y.out, s)
		y.out = append(y.out, '\n')
		return end, nil
	}
	start := i
	for i < len(y.src) && !strings.ContainsRune(",]} \t\r\n", rune(y.src[i])) {
		i++
	}
	if i == start {
		return i, errBadJSON
	}
	y.out = append(y.out, y.src[start:i]...)
	y.out = append(y.out, '\n')
	return i, nil
}

// str decodes the JSON string at src[i], returning the index after it.
func (y *yamlWriter) str(i int) (string, int, error) {
	if i >= len(y.src) || y.src[i] != '"' {
		return "", i, errBadJSON
	}
	end := stringEnd(y.src, i)
	s, err := decodeJSONString(y.src[i:end])
	if err != nil {
		return "", i, err
	}
	return s, end, nil
}

// decodeJSONString decodes the quoted JSON string raw. A string without
// escapes is raw's own bytes, not a copy (a copy of every key and value was
// a thirteenth of -o yaml's CPU): callers only append it to the output,
// and the source does not change while it is converted.
func decodeJSONString(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", errBadJSON // not closed
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return unsafe.String(&raw[1], len(raw)-2), nil
	}
	if s, ok := unquoteJSON(raw); ok {
		return s, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("yaml: %w", err)
	}
	return s, nil
}

// unquoteJSON decodes a quoted JSON string with the escapes the encoder
// writes (\", \\, \/, \b, \f, \n, \r, \t and \u0000-\u007f); ok is
// false for any other, which encoding/json then decodes. Lua scripts, with a \n on every
// line, are in every filter chain.
func unquoteJSON(raw []byte) (string, bool) {
	body := raw[1 : len(raw)-1]
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i+1 >= len(body) {
			return "", false
		}
		i++
		switch body[i] {
		case '"', '\\', '/':
			out = append(out, body[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			// Only \u00XX: control characters. Anything higher
			// (surrogate pairs) goes to encoding/json.
			if i+4 >= len(body) || body[i+1] != '0' || body[i+2] != '0' {
				return "", false
			}
			hi, lo := unhex(body[i+3]), unhex(body[i+4])
			if hi < 0 || lo < 0 || hi > 7 {
				return "", false // not ASCII: its UTF-8 form is two bytes
			}
			out = append(out, byte(hi<<4|lo))
			i += 4
		default:
			return "", false
		}
	}
	return string(out), true
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// isEmpty reports whether src[i] opens an empty object or array.
func (y *yamlWriter) isEmpty(i int) bool {
	if c := y.src[i]; c != '{' && c != '[' {
		return false
	}
	j := skipSpace(y.src, i+1)
	return j < len(y.src) && y.src[j] == closing(y.src[i])
}

func (y *yamlWriter) indent(n int) { y.out = appendSpaces(y.out, n) }

// quotedAlike reports whether the quoted JSON string raw is, byte for
// byte, what appendYAMLString writes for its value: a string with an
// escape is never plain, and when every escape is \", \\, \n, \t or \r
// and every other byte printable ASCII, appendQuoted writes the same
// escapes. The Lua scripts in every filter chain are such strings;
// decoding and quoting them again was a twentieth of converting a
// bootstrap.
func quotedAlike(raw []byte) bool {
	if len(raw) < 2 || raw[len(raw)-1] != '"' {
		return false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return false // perhaps plain
	}
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '\\':
			if i+1 >= len(body) || !strings.ContainsRune(`"\ntr`, rune(body[i+1])) {
				return false
			}
			i++
		case c < 0x20 || c >= 0x7f || c == '"':
			return false
		}
	}
	return true
}

func closing(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// appendYAMLString appends s plain when that is unambiguous, else quoted.
func appendYAMLString(dst []byte, s string) []byte {
	if isPlainSafe(s) {
		return append(dst, s...)
	}
	return appendQuoted(dst, s)
}

// notPlain are the words some YAML reader takes for a bool, null or special
// float when unquoted, compared case-insensitively (yaml-cpp accepts
// "True" and "TRUE"; YAML 1.1 adds y/n/yes/no/on/off).
var notPlain = map[string]bool{
	"y": true, "yes": true, "n": true, "no": true, "true": true, "false": true,
	"on": true, "off": true, "null": true, "nan": true, "inf": true, "infinity": true,
}

// isPlainSafe admits names, paths and similar: an ASCII letter, '_' or '/'
// first, then only letters, digits, "_./+-=" and single inner spaces. Strings starting with a
// digit could be numbers, dates or sexagesimals in some reader; the two
// shapes contourc's bootstraps are full of, durations ("0.250s") and IPv4
// addresses, are none of those and stay plain for readability.
func isPlainSafe(s string) bool {
	// The words are short: a long string (a certificate, a Lua script)
	// need not be lowered to find it is none of them.
	if s == "" || isNotPlainWord(s) {
		return false
	}
	if c := s[0]; c >= '0' && c <= '9' {
		return isDuration(s) || isIPv4(s)
	}
	if c := s[0]; !isASCIILetter(c) && c != '_' && c != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' && isInnerSpace(s, i) {
			continue
		}
		if !plainByte[c] {
			return false
		}
	}
	return true
}

// plainByte are the bytes a plain scalar may hold: letters, digits and
// "_./+-=".
var plainByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isASCIILetter(byte(c)) || isDigit(byte(c)) || strings.IndexByte("_./+-=", byte(c)) >= 0
	}
	return t
}()

// isNotPlainWord says whether s is one of notPlain's words in any case,
// without building a lower-case copy: the words are short, so a long
// string (a certificate, a Lua script) is none of them.
func isNotPlainWord(s string) bool {
	const longest = len("infinity")
	if len(s) > longest {
		return false
	}
	var lower [longest]byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	return notPlain[string(lower[:len(s)])]
}

// isInnerSpace admits a space in a plain scalar, as in "Enable TCP
// keep-alive": not at the end, where YAML would drop it, nor doubled
// (folding could eat one), nor before '#', which starts a comment.
func isInnerSpace(s string, i int) bool {
	return i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '#'
}

// isDuration matches protojson's Duration form: digits, optional fraction,
// "s".
func isDuration(s string) bool {
	num, ok := strings.CutSuffix(s, "s")
	if !ok {
		return false
	}
	whole, frac, hasFrac := strings.Cut(num, ".")
	return allDigits(whole) && (!hasFrac || allDigits(frac))
}

// isIPv4 matches a dotted quad of 1-3 digit groups.
func isIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if len(p) > 3 || !allDigits(p) {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool       { return c >= '0' && c <= '9' }
func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// appendQuoted writes s double-quoted. Besides '"' and '\', it escapes
// everything a YAML reader may not take literally: control characters, and
// the characters YAML 1.1 counts as line breaks (U+0085, U+2028, U+2029) or
// strips (the BOM, U+FEFF). The escapes are YAML's (the JSON ones plus \\U).
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	// Runs of printable ASCII other than '"' and '\' go as they are, in
	// one copy: the bulk of a certificate or a Lua script.
	for len(s) > 0 {
		n := 0
		for n < len(s) && s[n] >= 0x20 && s[n] < 0x7f && s[n] != '"' && s[n] != '\\' {
			n++
		}
		dst = append(dst, s[:n]...)
		s = s[n:]
		if s == "" {
			break
		}
		r, size := utf8.DecodeRuneInString(s)
		dst = appendQuotedRune(dst, r)
		s = s[size:]
	}
	return append(dst, '"')
}

// appendQuotedRune writes r inside a double-quoted scalar.
func appendQuotedRune(dst []byte, r rune) []byte {
	switch {
	case r == '"':
		return append(dst, '\\', '"')
	case r == '\\':
		return append(dst, '\\', '\\')
	case r == '\n':
		return append(dst, '\\', 'n')
	case r == '\t':
		return append(dst, '\\', 't')
	case r == '\r':
		return append(dst, '\\', 'r')
	case r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xfeff ||
		(r >= 0x80 && !unicode.IsPrint(r)):
		return appendUnicodeEscape(dst, r)
	}
	return utf8.AppendRune(dst, r)
}

// appendUnicodeEscape writes \uXXXX, or YAML's \UXXXXXXXX beyond the BMP
// (YAML has no surrogate pairs).
func appendUnicodeEscape(dst []byte, r rune) []byte {
	if r <= 0xffff {
		return fmt.Appendf(dst, `\u%04X`, r)
	}
	return fmt.Appendf(dst, `\U%08X`, r)
}
