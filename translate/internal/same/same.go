package same

import (
	"bytes"
	"reflect"
	"sync"
	"unsafe"
)

// Deep equality of DAG values, as reflect.DeepEqual decides it, at a
// fraction of its cost: the Memo (translate/envoy/xds_memo.go) compares every
// virtual host with the one it built before, and DeepEqual, which goes
// through reflect.Value at every field and records every pointer pair it
// follows, took as long as building the Envoy virtual host again.
//
// A comparer is compiled once per type from its layout: a struct compares
// its fields at their offsets, a pointer its targets, a slice its
// elements, each with the comparer of its type. What is rare in the DAG
// (maps, interfaces, functions, channels) is left to reflect.DeepEqual.
// The DAG has no cycles; a descent deeper than maxCompareDepth answers
// "not the same", which only costs a rebuild.

// comparer reports whether the values of one type at a and b are deeply
// equal; depth counts the pointers followed to reach them.
type comparer func(a, b unsafe.Pointer, depth int) bool

// maxCompareDepth bounds how many pointers a comparison follows.
const maxCompareDepth = 64

// Value reports whether *a and *b are deeply equal.
func Value[T any](a, b *T) bool {
	return cellFor(reflect.TypeFor[T]()).cmp(unsafe.Pointer(a), unsafe.Pointer(b), 0)
}

// comparers holds the comparer of each type compiled so far, filled in:
// a cell is published only once every cell its comparer uses is filled
// too, so that a comparison on another goroutine never finds an empty one.
// It is package-level on purpose: a type's comparer is a pure function of
// the type, never changed once published, and there are as many as the
// DAG has types, so every Memo and translation shares them.
var comparers sync.Map // reflect.Type -> *comparerCell

// comparerCell holds a type's comparer; types that refer to themselves
// reach their own cell before it is filled, and read it when comparing.
type comparerCell struct{ cmp comparer }

// compileMu makes one cellFor compile at a time, so that a type is
// compiled once.
var compileMu sync.Mutex

// compilation are the cells of one cellFor call, not published yet.
type compilation map[reflect.Type]*comparerCell

func cellFor(t reflect.Type) *comparerCell {
	if c, ok := comparers.Load(t); ok {
		return c.(*comparerCell)
	}
	compileMu.Lock()
	defer compileMu.Unlock()
	cells := compilation{}
	cell := cells.cell(t)
	for t, c := range cells {
		comparers.Store(t, c)
	}
	return cell
}

// cell is cellFor with compileMu held, publishing nothing.
func (cells compilation) cell(t reflect.Type) *comparerCell {
	if c, ok := comparers.Load(t); ok {
		return c.(*comparerCell)
	}
	if c, ok := cells[t]; ok {
		return c
	}
	cell := &comparerCell{}
	cells[t] = cell
	cell.cmp = cells.compile(t)
	return cell
}

func (cells compilation) compile(t reflect.Type) comparer {
	if isInteger(t.Kind()) {
		size := t.Size()
		return func(a, b unsafe.Pointer, _ int) bool {
			return bytes.Equal(unsafe.Slice((*byte)(a), size), unsafe.Slice((*byte)(b), size))
		}
	}
	switch t.Kind() {
	case reflect.Float32:
		return func(a, b unsafe.Pointer, _ int) bool { return *(*float32)(a) == *(*float32)(b) }
	case reflect.Float64:
		return func(a, b unsafe.Pointer, _ int) bool { return *(*float64)(a) == *(*float64)(b) }
	case reflect.String:
		return func(a, b unsafe.Pointer, _ int) bool { return *(*string)(a) == *(*string)(b) }
	case reflect.Pointer:
		elem := cells.cell(t.Elem())
		return func(a, b unsafe.Pointer, depth int) bool {
			pa, pb := *(*unsafe.Pointer)(a), *(*unsafe.Pointer)(b)
			switch {
			case pa == pb:
				return true
			case pa == nil || pb == nil || depth >= maxCompareDepth:
				return false
			}
			return elem.cmp(pa, pb, depth+1)
		}
	case reflect.Struct:
		return cells.compileStruct(t)
	case reflect.Slice:
		return cells.compileSlice(t)
	case reflect.Array:
		elem, size, n := cells.cell(t.Elem()), t.Elem().Size(), uintptr(t.Len())
		return func(a, b unsafe.Pointer, depth int) bool {
			for i := range n {
				if !elem.cmp(unsafe.Add(a, i*size), unsafe.Add(b, i*size), depth) {
					return false
				}
			}
			return true
		}
	}
	if t == reflect.TypeFor[map[string]string]() {
		// Header policies and auth contexts: common enough to skip
		// reflect.DeepEqual's boxing.
		return func(a, b unsafe.Pointer, _ int) bool {
			ma, mb := *(*map[string]string)(a), *(*map[string]string)(b)
			if (ma == nil) != (mb == nil) || len(ma) != len(mb) {
				return false
			}
			for k, va := range ma {
				if vb, ok := mb[k]; !ok || va != vb {
					return false
				}
			}
			return true
		}
	}
	// Maps, interfaces, functions, channels, complex numbers.
	return func(a, b unsafe.Pointer, _ int) bool {
		return reflect.DeepEqual(reflect.NewAt(t, a).Elem().Interface(), reflect.NewAt(t, b).Elem().Interface())
	}
}

// How a struct compares one field: the common kinds inline, the rest
// through the field type's comparer.
const (
	fieldCall = iota
	fieldString
	fieldPointer // compared inline when nil or identical
	field8       // integers and booleans, by their bytes
	field4
	field2
	field1
)

func (cells compilation) compileStruct(t reflect.Type) comparer {
	type field struct {
		offset uintptr
		how    int
		cell   *comparerCell
	}
	fields := make([]field, t.NumField())
	for i := range fields {
		f := t.Field(i)
		fields[i] = field{f.Offset, fieldHow(f.Type), cells.cell(f.Type)}
	}
	return func(a, b unsafe.Pointer, depth int) bool {
		for _, f := range fields {
			fa, fb := unsafe.Add(a, f.offset), unsafe.Add(b, f.offset)
			switch f.how {
			case fieldString:
				if *(*string)(fa) != *(*string)(fb) {
					return false
				}
			case fieldPointer:
				pa, pb := *(*unsafe.Pointer)(fa), *(*unsafe.Pointer)(fb)
				if pa != pb && (pa == nil || pb == nil || !f.cell.cmp(fa, fb, depth)) {
					return false
				}
			case field8:
				if *(*uint64)(fa) != *(*uint64)(fb) {
					return false
				}
			case field4:
				if *(*uint32)(fa) != *(*uint32)(fb) {
					return false
				}
			case field2:
				if *(*uint16)(fa) != *(*uint16)(fb) {
					return false
				}
			case field1:
				if *(*uint8)(fa) != *(*uint8)(fb) {
					return false
				}
			default:
				if !f.cell.cmp(fa, fb, depth) {
					return false
				}
			}
		}
		return true
	}
}

// isInteger reports whether values of kind k are equal exactly when their
// bytes are: booleans and integers.
func isInteger(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// fieldHow is how compileStruct compares a field of type t.
func fieldHow(t reflect.Type) int {
	switch {
	case t.Kind() == reflect.String:
		return fieldString
	case t.Kind() == reflect.Pointer:
		return fieldPointer
	case isInteger(t.Kind()):
		switch t.Size() {
		case 8:
			return field8
		case 4:
			return field4
		case 2:
			return field2
		case 1:
			return field1
		}
	}
	return fieldCall
}

// sliceHeader is the layout of a slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

func (cells compilation) compileSlice(t reflect.Type) comparer {
	elem, size := cells.cell(t.Elem()), t.Elem().Size()
	bytesLike := t.Elem().Kind() == reflect.Uint8
	return func(a, b unsafe.Pointer, depth int) bool {
		sa, sb := (*sliceHeader)(a), (*sliceHeader)(b)
		switch {
		case (sa.data == nil) != (sb.data == nil) || sa.len != sb.len:
			return false // DeepEqual tells a nil slice from an empty one
		case sa.data == sb.data:
			return true
		case bytesLike:
			return bytes.Equal(unsafe.Slice((*byte)(sa.data), sa.len), unsafe.Slice((*byte)(sb.data), sb.len))
		}
		for i := range uintptr(sa.len) {
			if !elem.cmp(unsafe.Add(sa.data, i*size), unsafe.Add(sb.data, i*size), depth) {
				return false
			}
		}
		return true
	}
}
