package admission

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"sort"
	"sync/atomic"
)

// What passed is remembered (see observe.go and schemaWalk),
// process-wide so that serve's reloads profit too, up to maxRemembered
// entries in all, so that memory stays bounded whatever the input.
const maxRemembered = 1 << 18

var (
	scalarsRemembered atomic.Int64
	shapesRemembered  atomic.Int64
	celRemembered     atomic.Int64
	unique            atomic.Uint64
)

// valueHash identifies an encoded value: 128 bits, so that two different
// values of one run are as good as never taken for the same.
type valueHash [2]uint64

var seeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

func hashBytes(b []byte) valueHash {
	return valueHash{maphash.Bytes(seeds[0], b), maphash.Bytes(seeds[1], b)}
}

// encoder writes JSON values (what the API server's decoder makes of JSON,
// with int64 integers) in a canonical, self-delimiting form: a map's
// encoding does not depend on the order of its keys.
type encoder struct{ buf []byte }

func (e *encoder) reset() { e.buf = e.buf[:0] }

func (e *encoder) uvarint(n int) { e.buf = binary.AppendUvarint(e.buf, uint64(n)) }

func (e *encoder) str(s string) {
	e.uvarint(len(s))
	e.buf = append(e.buf, s...)
}

func (e *encoder) value(v any) {
	switch v := v.(type) {
	case nil:
		e.buf = append(e.buf, 'n')
	case bool:
		if v {
			e.buf = append(e.buf, 't')
		} else {
			e.buf = append(e.buf, 'f')
		}
	case string:
		e.buf = append(e.buf, 's')
		e.str(v)
	case int64:
		e.buf = append(e.buf, 'i')
		e.buf = binary.LittleEndian.AppendUint64(e.buf, uint64(v))
	case float64:
		e.buf = append(e.buf, 'd')
		e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v))
	case []any:
		e.buf = append(e.buf, 'a')
		e.uvarint(len(v))
		for _, x := range v {
			e.value(x)
		}
	case map[string]any:
		e.buf = append(e.buf, 'm')
		e.uvarint(len(v))
		for _, k := range sortedKeys(v) {
			e.str(k)
			e.value(v[k])
		}
	default:
		// Not a JSON value: equal to no other.
		e.buf = append(e.buf, 'u')
		e.buf = binary.LittleEndian.AppendUint64(e.buf, unique.Add(1))
	}
}

// observed writes what o observes of v. o is the same for every value
// encoded at one place, so that the form stays self-delimiting.
func (e *encoder) observed(v any, o *observation) {
	if o.whole {
		e.value(v)
		return
	}
	switch v := v.(type) {
	case map[string]any:
		e.buf = append(e.buf, 'M')
		if o.size {
			e.uvarint(len(v))
		}
		for _, k := range o.names {
			x, ok := v[k]
			if !ok {
				e.buf = append(e.buf, '0')
				continue
			}
			e.buf = append(e.buf, '1')
			e.observed(x, o.fields[k])
		}
	case []any:
		e.buf = append(e.buf, 'A')
		if o.size || o.items != nil {
			e.uvarint(len(v))
		}
		if o.items != nil {
			for _, x := range v {
				e.observed(x, o.items)
			}
		}
	default:
		e.value(v)
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
