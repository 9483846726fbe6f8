package diff

import (
	runtimev3 "github.com/envoyproxy/go-control-plane/envoy/service/runtime/v3"

	"github.com/contourc/contourc/translate"
)

// diffRuntimes compares runtime layers by name, field by field.
func diffRuntimes(old, new *translate.Resources) []RuntimeChange {
	olds, news := byName(old.Runtimes, (*runtimev3.Runtime).GetName), byName(new.Runtimes, (*runtimev3.Runtime).GetName)
	var out []RuntimeChange
	for _, name := range unionKeys(olds, news) {
		o, n := olds[name], news[name]
		switch {
		case o == nil:
			out = append(out, RuntimeChange{Op: Added, Name: name})
		case n == nil:
			out = append(out, RuntimeChange{Op: Removed, Name: name})
		default:
			if f := fieldDiff(o, n); len(f) > 0 {
				out = append(out, RuntimeChange{Op: Changed, Name: name, Fields: f})
			}
		}
	}
	return out
}
