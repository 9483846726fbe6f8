package protojson

// The fast JSON encoder's maps: keys in protojson's order, and the maps
// of the common value types read directly from the message's memory.

import (
	"slices"
	"strings"
	"unsafe"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/contourc/contourc/render/internal/presence"
)

// mapValue prints a map with its keys in protojson's order: numeric for
// numbers, false before true, bytewise for strings.
func (e *Encoder) mapValue(dst []byte, mp protoreflect.Map, fd protoreflect.FieldDescriptor, depth int) ([]byte, error) {
	keys := make([]protoreflect.MapKey, 0, mp.Len())
	mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	slices.SortFunc(keys, compareMapKeys)
	dst = append(dst, '{')
	for i, k := range keys {
		dst = e.member(dst, depth, i == 0)
		var err error
		if dst, err = appendJSONString(dst, k.String()); err != nil {
			return dst, err
		}
		dst = append(dst, ':')
		if e.indent {
			dst = append(dst, ' ')
		}
		if dst, err = e.singular(dst, mp.Get(k), fd.MapValue(), depth+1); err != nil {
			return dst, err
		}
	}
	return e.end(dst, depth, '}', len(keys) == 0), nil
}

func compareMapKeys(a, b protoreflect.MapKey) int {
	switch x := a.Interface().(type) {
	case bool:
		y := b.Bool()
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case int32, int64:
		return cmpOrdered(a.Int(), b.Int())
	case uint32, uint64:
		return cmpOrdered(a.Uint(), b.Uint())
	}
	return strings.Compare(a.String(), b.String())
}

func cmpOrdered[T int64 | uint64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// stringKeyed prints a map keyed by strings as a JSON object at depth, keys
// in byte order (protojson's), each value printed by value.
func stringKeyed[V any](e *Encoder, dst []byte, mp map[string]V, depth int, value func([]byte, V) ([]byte, error)) ([]byte, error) {
	// Maps here are small (a route's metadata has one or two keys): their
	// keys are sorted on the stack.
	var onStack [8]string
	keys := onStack[:0]
	for k := range mp {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		dst = e.member(dst, depth, i == 0)
		var err error
		if dst, err = appendJSONString(dst, k); err != nil {
			return dst, err
		}
		dst = append(dst, ':')
		if e.indent {
			dst = append(dst, ' ')
		}
		if dst, err = value(dst, mp[k]); err != nil {
			return dst, err
		}
	}
	return e.end(dst, depth, '}', len(keys) == 0), nil
}

// directMap prints a map field of one of the Go types the presence plan
// reads directly (see presence.ReadStringMap), at depth: every route's metadata is
// a map of Structs, which protoreflect's Map ranges over through reflect.
func (e *Encoder) directMap(dst []byte, f *presence.Field, at unsafe.Pointer, depth int) ([]byte, error) {
	switch f.Read {
	case presence.ReadStringMap:
		return stringKeyed(e, dst, *(*map[string]string)(at), depth, appendJSONString)
	case presence.ReadStructMap:
		return stringKeyed(e, dst, *(*map[string]*structpb.Struct)(at), depth, func(dst []byte, v *structpb.Struct) ([]byte, error) {
			if v == nil {
				return dst, errFallback
			}
			return e.structFields(dst, v.Fields, depth+1)
		})
	case presence.ReadAnyMap:
		return stringKeyed(e, dst, *(*map[string]*anypb.Any)(at), depth, func(dst []byte, v *anypb.Any) ([]byte, error) {
			if v == nil {
				return dst, errFallback
			}
			return e.anyValue(dst, v.TypeUrl, v.Value, v, depth+1)
		})
	}
	return dst, errFallback
}
