package loader

import (
	"fmt"
	"os"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/contourc/contourc/loader/walk"
)

// DefaultMaxInputSize bounds one Load's input, files and standard input
// together, when Options.MaxInputSize is zero. `kubectl get ... -A -o
// yaml` of a large cluster is hundreds of MiB; the bound is there so that
// /dev/zero piped in, or a runaway generator, ends in an error rather than
// in the machine's memory. Memory grows with the input actually read, not
// with the bound.
const DefaultMaxInputSize = 1 << 30

// checkInputSize refuses, before anything is read, files whose sizes
// together exceed limit, naming the first file (in the order they are
// read) that takes the total over it: the same one whatever the order the
// files are read in. Otherwise it returns the budget of the Load, with
// those sizes set aside: standard input and pipes are counted against
// what is left as they are read, so that when one takes the total over
// the limit, it is the one named, whatever order the reads end in.
func checkInputSize(files []string, limit int64) (*inputBudget, error) {
	var total int64
	reserved := map[string]int64{}
	for _, f := range files {
		if f == walk.StdinPath {
			continue
		}
		info, err := os.Stat(f)
		if err != nil || !info.Mode().IsRegular() {
			continue // reported when it is opened
		}
		if total += info.Size(); total > limit {
			msg := fmt.Sprintf("with the files before it, larger than the %s input limit (--max-input-size)", FormatSize(limit))
			if info.Size() > limit {
				msg = fmt.Sprintf("larger than the %s input limit (--max-input-size)", FormatSize(limit))
			}
			return nil, &Error{Source: Source{File: f}, Msg: msg}
		}
		reserved[f] = info.Size()
	}
	b := &inputBudget{reserved: reserved}
	b.left.Store(limit - total)
	return b, nil
}

// inputBudget is what is left of a Load's input limit once the regular
// files' sizes are set aside, taken from as the other input is read, on
// every CPU at once.
type inputBudget struct {
	left atomic.Int64
	// reserved are the sizes of the regular files, set aside before
	// reading; read-only once the reads start.
	reserved map[string]int64
}

// take takes from the budget what path's n bytes exceed the size set
// aside for it (all of them for stdin and pipes), reporting whether there
// was that much left. A nil budget has no limit (a Load of one file, for
// the configuration file).
func (b *inputBudget) take(path string, n int64) bool {
	if b == nil {
		return true
	}
	if extra := n - b.reserved[path]; extra > 0 {
		return b.left.Add(-extra) >= 0
	}
	return true
}

// ParseSize parses a size such as 1Gi, 512Mi, 100M or 1000000 (bytes), as
// Kubernetes quantities are written: the --max-input-size flag.
func ParseSize(s string) (int64, error) {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size such as 512Mi or 2Gi", s)
	}
	// Value rounds a fraction of a byte up: only whole bytes are sizes.
	n := q.Value()
	if n <= 0 || q.Cmp(*resource.NewQuantity(n, resource.DecimalSI)) != 0 {
		return 0, fmt.Errorf("%q is not a size such as 512Mi or 2Gi: want a whole number of bytes above 0", s)
	}
	return n, nil
}

// FormatSize is n bytes as ParseSize reads it, in the largest binary unit
// that divides it: 1Gi rather than 1073741824.
func FormatSize(n int64) string { return resource.NewQuantity(n, resource.BinarySI).String() }
