package builtin

// Quick acceptance of the API server's name rules.
//
// apimachinery checks names, namespaces and label keys and values with
// regular expressions, which were a fifth of the time spent decoding
// objects. Nearly every name is plainly valid: a scan accepts those, and
// anything the scan does not accept goes to apimachinery, which decides
// and words the errors. So a scan may only ever accept what apimachinery
// accepts; names_test.go checks that on generated strings.

import (
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
)

// isAlnum is [a-z0-9], or with upper case also [A-Z].
func isAlnum(c byte, upper bool) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || upper && c >= 'A' && c <= 'Z'
}

// dnsLabelPart is [a-z0-9]([-a-z0-9]*[a-z0-9])?, the shape of one label of
// a DNS-1123 name.
func dnsLabelPart(s string, upper bool) bool {
	if s == "" || !isAlnum(s[0], upper) || !isAlnum(s[len(s)-1], upper) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; c != '-' && !isAlnum(c, upper) {
			return false
		}
	}
	return true
}

// DNS1123Label accepts what validation.IsDNS1123Label does, with upper
// case letters too when upper is set (see anyCase).
func DNS1123Label(s string, upper bool) bool {
	return len(s) <= validation.DNS1123LabelMaxLength && dnsLabelPart(s, upper)
}

// dns1123Subdomain accepts what validation.IsDNS1123Subdomain does: labels
// joined by dots, 253 characters at most.
func dns1123Subdomain(s string, upper bool) bool {
	if len(s) > validation.DNS1123SubdomainMaxLength {
		return false
	}
	for part := range strings.SplitSeq(s, ".") {
		if !dnsLabelPart(part, upper) {
			return false
		}
	}
	return true
}

// dns1035Label accepts what validation.IsDNS1035Label does: a DNS-1123
// label that starts with a letter.
func dns1035Label(s string, upper bool) bool {
	return DNS1123Label(s, upper) && (s[0] >= 'a' && s[0] <= 'z' || upper && s[0] >= 'A' && s[0] <= 'Z')
}

// qualifiedNamePart is ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], 63
// characters at most: a label value, or the name of a label key.
func qualifiedNamePart(s string) bool {
	if s == "" || len(s) > validation.LabelValueMaxLength || !isAlnum(s[0], true) || !isAlnum(s[len(s)-1], true) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; c != '-' && c != '_' && c != '.' && !isAlnum(c, true) {
			return false
		}
	}
	return true
}

// qualifiedName accepts what validation.IsQualifiedName does: a qualified
// name part with an optional DNS-1123 subdomain prefix (a label key, an
// appProtocol). With upper, the prefix may have upper case letters.
func qualifiedName(s string) bool { return qualifiedNameCase(s, false) }

func qualifiedNameCase(s string, upper bool) bool {
	name := s
	if prefix, rest, ok := strings.Cut(s, "/"); ok {
		if !dns1123Subdomain(prefix, upper) {
			return false
		}
		name = rest
	}
	return qualifiedNamePart(name)
}

// PlainAnnotations reports whether apivalidation.ValidateAnnotations
// accepts annotations: keys are qualified names once lower-cased, and keys
// and values together are 256 KiB at most.
func PlainAnnotations(annotations map[string]string) bool {
	size := 0
	for k, v := range annotations {
		if !qualifiedNameCase(k, true) {
			return false
		}
		size += len(k) + len(v)
	}
	return size <= apivalidation.TotalAnnotationSizeLimitB
}

// PlainLabels reports whether every key and value of labels is plainly
// valid: a key is a qualified name, a value empty or a qualified name part.
func PlainLabels(labels map[string]string) bool {
	for k, v := range labels {
		if !qualifiedName(k) || v != "" && !qualifiedNamePart(v) {
			return false
		}
	}
	return true
}

// wildcardSubdomain accepts what validation.IsWildcardDNS1123Subdomain
// does: "*." and a DNS-1123 subdomain, 253 characters in all.
func wildcardSubdomain(s string) bool {
	return len(s) <= validation.DNS1123SubdomainMaxLength && strings.HasPrefix(s, "*.") && dns1123Subdomain(s[2:], false)
}

// portName accepts what validation.IsValidPortName does (an IANA service
// name): 15 characters at most of [-a-z0-9], a letter among them, no
// hyphen at either end or twice in a row.
func portName(s string) bool {
	if s == "" || len(s) > 15 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	letter := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z':
			letter = true
		case c >= '0' && c <= '9':
		case c == '-' && s[i-1] != '-':
		default:
			return false
		}
	}
	return letter
}

// anyCase relaxes a name rule to accept upper case letters. The API server
// wants lower case names, but manifests written for offline translators
// (Envoy Gateway's test inputs, say) use names like "providedBackend", and
// Contour handles them fine; everything else about a name (characters,
// length, shape) is still checked. Namespaces keep the strict rule: they
// appear in DNS names and Envoy resource names. accept is the rule's quick
// scan (names.go), told to allow upper case.
func anyCase(rule func(string) []string, accept func(s string, upper bool) bool) func(string) []string {
	return func(name string) []string {
		if accept(name, true) {
			return nil
		}
		return rule(strings.ToLower(name))
	}
}
