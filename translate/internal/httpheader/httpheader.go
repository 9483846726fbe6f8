package httpheader

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation"
)

// NameProblems is validation.IsHTTPHeaderName without its regular
// expression for the names it accepts: a name of letters, digits and
// dashes, which every header policy checks for each header (a tenth of
// converting an HTTPRoute's rules).
func NameProblems(name string) []string {
	if name != "" && strings.IndexFunc(name, notHeaderNameChar) < 0 {
		return nil
	}
	return validation.IsHTTPHeaderName(name)
}

func notHeaderNameChar(c rune) bool {
	return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-')
}

// ValidValue refuses what Envoy refuses in a header value: NUL, CR
// and LF. Contour passes them on, and Envoy then rejects the whole route
// configuration; contourc reports the header instead.
func ValidValue(name, value string) error {
	if strings.ContainsAny(value, "\x00\r\n") {
		return fmt.Errorf("invalid header value for %q: must not contain NUL, CR or LF", name)
	}
	return nil
}

// envoyVariables are the Envoy header variables a value may use unescaped.
var envoyVariables = []string{
	"DOWNSTREAM_REMOTE_ADDRESS", "DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT",
	"DOWNSTREAM_LOCAL_ADDRESS", "DOWNSTREAM_LOCAL_ADDRESS_WITHOUT_PORT", "DOWNSTREAM_LOCAL_PORT",
	"DOWNSTREAM_LOCAL_URI_SAN", "DOWNSTREAM_PEER_URI_SAN", "DOWNSTREAM_LOCAL_SUBJECT",
	"DOWNSTREAM_PEER_SUBJECT", "DOWNSTREAM_PEER_ISSUER", "DOWNSTREAM_TLS_SESSION_ID",
	"DOWNSTREAM_TLS_CIPHER", "DOWNSTREAM_TLS_VERSION", "DOWNSTREAM_PEER_FINGERPRINT_256",
	"DOWNSTREAM_PEER_FINGERPRINT_1", "DOWNSTREAM_PEER_SERIAL", "DOWNSTREAM_PEER_CERT",
	"DOWNSTREAM_PEER_CERT_V_START", "DOWNSTREAM_PEER_CERT_V_END", "HOSTNAME", "PROTOCOL",
	"UPSTREAM_REMOTE_ADDRESS", "RESPONSE_FLAGS", "RESPONSE_CODE_DETAILS",
	"TLS_JA3_FINGERPRINT", "TLS_JA4_FINGERPRINT",
}

// requestHeaderVariable matches an escaped %REQ(name)% (optionally with a
// fallback header and a length), which Envoy should see unescaped.
var requestHeaderVariable = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`%(%REQ\(:?[\w-]+(\?:?[\w-]+)?\)(:\d+)?%)%`) })

// EscapeValue doubles every "%" so Envoy reads it literally, then
// substitutes Contour's variables and un-escapes the Envoy variables that
// are allowed.
func EscapeValue(value string, dynamic map[string]string) string {
	if !strings.Contains(value, "%") {
		return value
	}
	escaped := strings.ReplaceAll(value, "%", "%%")
	names := make([]string, 0, len(dynamic))
	for name := range dynamic {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		escaped = strings.ReplaceAll(escaped, "%%"+name+"%%", dynamic[name])
	}
	for _, v := range envoyVariables {
		escaped = strings.ReplaceAll(escaped, "%%"+v+"%%", "%"+v+"%")
	}
	return requestHeaderVariable().ReplaceAllString(escaped, "$1")
}

// HostRewriteValue matches a Host value taken from another request
// header: "%REQ(x-host)%", the header's name its first group.
var HostRewriteValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`%REQ\(([A-Za-z0-9-]+)\)%`) })
