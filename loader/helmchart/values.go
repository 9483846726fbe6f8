package helmchart

import "helm.sh/helm/v3/pkg/strvals"

// MergeValues merges src over dst, as helm merges a -f file over the ones
// before it: maps merge key by key, anything else in src replaces what dst
// has. dst is changed and returned (a new map when dst is nil).
func MergeValues(dst, src map[string]any) map[string]any {
	if dst == nil {
		dst = make(map[string]any, len(src))
	}
	for k, v := range src {
		if sub, ok := v.(map[string]any); ok {
			if have, ok := dst[k].(map[string]any); ok {
				dst[k] = MergeValues(have, sub)
				continue
			}
		}
		dst[k] = v
	}
	return dst
}

// SetValues applies one --set expression ("a.b=1,c[0]=x") to values with
// Helm's own parser, or a --set-string one when asString (values stay
// strings: "true", "1"). A HelmRelease's valuesFrom targetPath and Argo CD
// parameters use it to place values where helm would.
func SetValues(values map[string]any, expr string, asString bool) error {
	if asString {
		return strvals.ParseIntoString(expr, values)
	}
	return strvals.ParseInto(expr, values)
}
