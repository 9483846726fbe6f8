package routetest

import (
	"strings"
)

// normalizePath applies the HTTP connection manager's path options to a
// request target before routing: normalize_path (RFC 3986 section 6:
// percent-encoded unreserved characters decoded, other escapes upper-cased,
// dot segments removed) and merge_slashes. The query string is kept as is.
// Envoy applies these before any filter, so the router and the upstream
// both see the result.
func normalizePath(target string, normalize, mergeSlashes bool) string {
	path, query, hasQuery := strings.Cut(target, "?")
	if i := strings.IndexByte(path, '#'); i >= 0 {
		path = path[:i]
	}
	if normalize {
		path = removeDotSegments(normalizeEscapes(path))
	}
	if mergeSlashes {
		for strings.Contains(path, "//") {
			path = strings.ReplaceAll(path, "//", "/")
		}
	}
	if hasQuery {
		return path + "?" + query
	}
	return path
}

// normalizeEscapes decodes %XX escapes of unreserved characters and
// upper-cases the hex digits of the others (RFC 3986 sections 6.2.2.1 and
// 6.2.2.2). Escaped slashes stay escaped: Contour keeps Envoy's default
// path_with_escaped_slashes_action, which leaves them alone.
func normalizeEscapes(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) && isHex(p[i+1]) && isHex(p[i+2]) {
			c := unhex(p[i+1])<<4 | unhex(p[i+2])
			if isUnreserved(c) {
				b.WriteByte(c)
			} else {
				b.WriteString("%" + strings.ToUpper(p[i+1:i+3]))
			}
			i += 2
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// removeDotSegments is RFC 3986 section 5.2.4 for an absolute path.
func removeDotSegments(p string) string {
	if !strings.Contains(p, ".") {
		return p
	}
	segs := strings.Split(p, "/")
	var out []string
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			// Never above the root: out[0] is the empty segment before it.
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	r := strings.Join(out, "/")
	if !strings.HasPrefix(r, "/") {
		r = "/" + r
	}
	return r
}
