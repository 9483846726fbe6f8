package admission

import (
	"hash/maphash"
	"math"
	"sort"
	"sync/atomic"
)

// The rules of a create are pure functions of the value they sit on (no
// oldSelf without an old object), and a scalar's schema constraints too:
// a value seen at a place before passes again. What passed is remembered,
// process-wide so that serve's reloads profit too, up to maxRemembered
// entries in all, so that memory stays bounded whatever the input.
const maxRemembered = 1 << 18

var (
	scalarsRemembered atomic.Int64
	celRemembered     atomic.Int64
	unique            atomic.Uint64
)

// valueHash identifies a JSON value: 128 bits, so that two different
// values of one run are as good as never taken for the same.
type valueHash [2]uint64

var seeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// hashValue hashes a JSON value (what encoding/json decodes into any, with
// int64 integers) canonically: a map's hash does not depend on the order
// of its keys.
func hashValue(v any) valueHash {
	var out valueHash
	for i := range out {
		out[i] = hashWith(seeds[i], v)
	}
	return out
}

func hashWith(seed maphash.Seed, v any) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	switch v := v.(type) {
	case nil:
		h.WriteByte('n')
	case bool:
		if v {
			h.WriteByte('t')
		} else {
			h.WriteByte('f')
		}
	case string:
		h.WriteByte('s')
		h.WriteString(v)
	case int64:
		h.WriteByte('i')
		writeUint64(&h, uint64(v))
	case float64:
		h.WriteByte('d')
		writeUint64(&h, math.Float64bits(v))
	case []any:
		h.WriteByte('a')
		for _, x := range v {
			writeUint64(&h, hashWith(seed, x))
		}
	case map[string]any:
		// Keys sorted: the value, not the decoder's order, decides.
		h.WriteByte('m')
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			writeUint64(&h, maphash.String(seed, k))
			writeUint64(&h, hashWith(seed, v[k]))
		}
	default:
		// Not a JSON value: never equal to another.
		return unique.Add(1)
	}
	return h.Sum64()
}

func writeUint64(h *maphash.Hash, x uint64) {
	var b [8]byte
	for i := range b {
		b[i] = byte(x >> (8 * i))
	}
	h.Write(b[:])
}
