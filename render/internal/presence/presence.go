package presence

// Field presence and values read straight from generated message structs.
//
// The encoder and the protowalk.Walker ask every field of every message whether it is
// set, and most of Envoy's fields are not. protoreflect's Message.Has answers
// for a message-typed field through reflect.NewAt, whose pointer-type cache
// is a sync.Map: on 5,000 virtual hosts that lookup alone took a third of a
// second. A presence plan, worked out once per Go type from the struct's
// protobuf tags, answers the same question with one memory read per field,
// and reads the value of a set scalar or message field the same way
// (Message.Get converts each through reflect). For the encoder it also
// tells lists of messages and maps of strings, Structs and Anys by their Go
// types, which it reads itself, and keeps the plans of nested messages. It
// falls back to Has and Get for any field whose layout it does not know
// (other maps and lists, floats, proto3 optional fields, types that are not
// generated structs); a test compares both with protoreflect on every
// message of the fixtures and the corpus.

import (
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// presenceKind says how to tell whether one field is set.
type presenceKind uint8

const (
	presenceAsk     presenceKind = iota // call Message.Has
	presencePointer                     // set iff the pointer is not nil (messages, optional scalars)
	presenceLength                      // set iff the string or slice is not empty (proto3 strings, bytes, lists)
	presence1                           // set iff the 1-byte scalar is not zero (bool)
	presence4                           // set iff the 4-byte scalar is not zero (int32, enum, float)
	presence8                           // set iff the 8-byte scalar is not zero (int64, double)
	presenceOneof                       // set iff the oneof interface holds this field's wrapper
	presenceMap                         // set iff the map, of a type read directly, is not empty
)

type Field struct {
	FD     protoreflect.FieldDescriptor
	kind   presenceKind
	Offset uintptr
	// member is, for a oneof field, the interface's type word when it
	// holds this field's wrapper.
	member unsafe.Pointer
	// Read says how get reads the field's value from the struct.
	Read ValueRead
	// Message is, for a message field or list of messages read directly,
	// the type word of a ProtoMessage interface holding its (elements')
	// Go type, a pointer to the struct: see MessageAt.
	Message unsafe.Pointer
	// plan is, once known, the plan of the field's messages.
	plan atomic.Pointer[Plan]
}

// Family says how the encoder prints a message type.
type Family uint8

const (
	familyPlain     Family = iota // its fields, as an object
	FamilyAny                     // google.protobuf.Any: "@type" and the packed fields
	FamilyWellKnown               // another google.protobuf type, with its own JSON form
)

// ValueRead is how to read a set field's value without reflection.
type ValueRead uint8

const (
	readAsk         ValueRead = iota // call Message.Get
	readString                       // string
	readBool                         // bool
	readInt32                        // int32
	readEnum                         // int32 enum
	readUint32                       // uint32
	readInt64                        // int64
	readUint64                       // uint64
	ReadMessage                      // pointer to a generated message
	ReadMessageList                  // slice of pointers to generated messages (the encoder only)
	ReadStringList                   // []string (the encoder only)
	// The maps the encoder reads directly; get leaves them to Get.
	ReadStringMap // map[string]string
	ReadStructMap // map[string]*structpb.Struct
	ReadAnyMap    // map[string]*anypb.Any
)

// Plan is the fields of one message type in declaration order, with
// how to read each one's presence.
type Plan struct {
	Fields []Field
	Direct bool // the plan reads the struct: m.Interface() is a pointer to it
	Family Family
	// entered holds, for each set of walk targets asked about, the fields
	// a walk for them enters (see FieldsToEnter).
	entered sync.Map // *Targets -> []int
}

// FieldsToEnter returns the fields, in order, that a walk for targets enters:
// those whose messages can contain one of targets or, with no targets,
// every message and map field. Worked out on first use for each set: it
// explores every type below, a few milliseconds a process that `render -o
// json` of a small input would notice, and only walks ask. Listing them
// spares a walk the others: a route action has forty fields, and asking
// each whether it could hold a target and was set was half of checking a
// bootstrap's route tables.
func (p *Plan) FieldsToEnter(targets *Targets) []int {
	if r, ok := p.entered.Load(targets); ok {
		return r.([]int)
	}
	var r []int
	for i := range p.Fields {
		fd := p.Fields[i].FD
		if targets == nil && (fd.Message() != nil || fd.IsMap()) || targets != nil && targets.reachesField(fd) {
			r = append(r, i)
		}
	}
	actual, _ := p.entered.LoadOrStore(targets, r)
	return actual.([]int)
}

var presencePlans sync.Map // protoreflect.MessageType -> *Plan

// For returns the presence plan of m's type. Plans are found by
// message type, one per Go type, which unlike the Go type itself is had
// without unwrapping m.
func For(m protoreflect.Message) *Plan {
	mt := m.Type()
	if p, ok := presencePlans.Load(mt); ok {
		return p.(*Plan)
	}
	p, _ := presencePlans.LoadOrStore(mt, buildPresencePlan(reflect.TypeOf(m.Interface()), m))
	return p.(*Plan)
}

func buildPresencePlan(t reflect.Type, m protoreflect.Message) *Plan {
	fds := m.Descriptor().Fields()
	p := &Plan{Fields: make([]Field, fds.Len()), Family: familyOf(m.Descriptor())}
	var byNumber map[protoreflect.FieldNumber]reflect.StructField
	var byOneof map[string]reflect.StructField
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		p.Direct = true
		byNumber, byOneof = structFieldsByTag(t.Elem())
	}
	for i := range fds.Len() {
		fd := fds.Get(i)
		f := &p.Fields[i]
		f.FD, f.kind = fd, presenceAsk
		if p.Direct {
			if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
				if sf, ok := byOneof[string(od.Name())]; ok && sf.Type.Kind() == reflect.Interface {
					var wrapped reflect.Type
					f.kind, f.Offset = presenceOneof, sf.Offset
					f.member, wrapped = oneofMember(m, fd, sf.Offset)
					if wrapped != nil {
						f.Read, f.Message = valueReadOf(fd, wrapped, true)
					}
				}
			} else if sf, ok := byNumber[fd.Number()]; ok {
				f.kind, f.Offset = presenceKindOf(fd, sf.Type), sf.Offset
				f.Read, f.Message = valueReadOf(fd, sf.Type, false)
				if f.Read >= ReadStringMap {
					f.kind = presenceMap
				}
			}
		}
	}
	return p
}

func familyOf(d protoreflect.MessageDescriptor) Family {
	switch {
	case d.FullName() == "google.protobuf.Any":
		return FamilyAny
	case d.ParentFile().Package() == "google.protobuf":
		return FamilyWellKnown
	}
	return familyPlain
}

// Sub is the plan of the messages of field i, one of which is m.
func (p *Plan) Sub(i int, m protoreflect.Message) *Plan {
	f := &p.Fields[i]
	if s := f.plan.Load(); s != nil {
		return s
	}
	s := For(m)
	f.plan.Store(s)
	return s
}

// oneofMember is the type word the oneof interface at offset holds when fd
// is the member set: Go has one itab per interface and concrete type, so
// comparing that word says which wrapper is there without reflection. It
// also returns the Go type of the wrapper's value when the wrapper is a
// pointer to a struct holding just that value (as generated wrappers are),
// and nil otherwise.
func oneofMember(m protoreflect.Message, fd protoreflect.FieldDescriptor, offset uintptr) (unsafe.Pointer, reflect.Type) {
	probe := m.New()
	probe.Set(fd, probe.NewField(fd))
	pv := reflect.ValueOf(probe.Interface())
	member := *(*unsafe.Pointer)(unsafe.Add(pv.UnsafePointer(), offset))
	var wrapped reflect.Type
	for i := range pv.Elem().NumField() {
		f := pv.Elem().Field(i)
		if pv.Elem().Type().Field(i).Offset != offset || f.Kind() != reflect.Interface || f.IsNil() {
			continue
		}
		if w := f.Elem().Type(); w.Kind() == reflect.Pointer && w.Elem().Kind() == reflect.Struct &&
			w.Elem().NumField() == 1 && w.Elem().Field(0).Offset == 0 {
			wrapped = w.Elem().Field(0).Type
		}
	}
	return member, wrapped
}

// structFieldsByTag indexes a generated struct's fields by the field number
// in their protobuf tag, and its oneof interfaces by oneof name.
func structFieldsByTag(t reflect.Type) (map[protoreflect.FieldNumber]reflect.StructField, map[string]reflect.StructField) {
	byNumber := map[protoreflect.FieldNumber]reflect.StructField{}
	byOneof := map[string]reflect.StructField{}
	for i := range t.NumField() {
		sf := t.Field(i)
		if name := sf.Tag.Get("protobuf_oneof"); name != "" {
			byOneof[name] = sf
			continue
		}
		// protobuf:"varint,3,opt,name=foo,proto3": the number is second.
		parts := strings.Split(sf.Tag.Get("protobuf"), ",")
		if len(parts) < 2 {
			continue
		}
		if n, err := strconv.Atoi(parts[1]); err == nil {
			byNumber[protoreflect.FieldNumber(n)] = sf
		}
	}
	return byNumber, byOneof
}

// valueReadOf is how a field of Go type t is read (get reads the singular
// ones, the encoder lists and maps), and for a message field or list of
// messages the type word of its ProtoMessage interface (MessageAt); readAsk
// where it is left to Get. A field in a oneof is read from its wrapper,
// where even a scalar is held as itself (a proto3 optional scalar outside
// one is a pointer).
func valueReadOf(fd protoreflect.FieldDescriptor, t reflect.Type, inOneof bool) (ValueRead, unsafe.Pointer) {
	switch {
	case fd.IsList():
		if fd.Message() != nil && t.Kind() == reflect.Slice && isGeneratedMessage(t.Elem()) {
			return ReadMessageList, protoMessageTab(t.Elem())
		}
		if fd.Kind() == protoreflect.StringKind && t == reflect.TypeFor[[]string]() {
			return ReadStringList, nil
		}
		return readAsk, nil
	case fd.IsMap():
		return directMaps[t], nil
	case !inOneof && fd.HasPresence() && fd.Message() == nil:
		return readAsk, nil
	}
	switch fd.Kind() {
	case protoreflect.StringKind:
		if t.Kind() == reflect.String {
			return readString, nil
		}
	case protoreflect.BoolKind:
		if t.Kind() == reflect.Bool {
			return readBool, nil
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if t.Kind() == reflect.Int32 {
			return readInt32, nil
		}
	case protoreflect.EnumKind:
		if t.Kind() == reflect.Int32 {
			return readEnum, nil
		}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if t.Kind() == reflect.Uint32 {
			return readUint32, nil
		}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if t.Kind() == reflect.Int64 {
			return readInt64, nil
		}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if t.Kind() == reflect.Uint64 {
			return readUint64, nil
		}
	case protoreflect.MessageKind:
		if isGeneratedMessage(t) {
			return ReadMessage, protoMessageTab(t)
		}
	}
	return readAsk, nil
}

// directMaps are the Go map types the encoder reads directly, with how.
var directMaps = map[reflect.Type]ValueRead{
	reflect.TypeFor[map[string]string]():           ReadStringMap,
	reflect.TypeFor[map[string]*structpb.Struct](): ReadStructMap,
	reflect.TypeFor[map[string]*anypb.Any]():       ReadAnyMap,
}

// isGeneratedMessage says whether t is a pointer to a generated message
// struct.
func isGeneratedMessage(t reflect.Type) bool {
	return t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct && t.Implements(protoMessageType)
}

// protoMessageTab is the type word of a ProtoMessage interface holding a
// t, a pointer to a generated message struct.
func protoMessageTab(t reflect.Type) unsafe.Pointer {
	sample := reflect.New(t.Elem()).Interface().(protoreflect.ProtoMessage)
	return (*ifaceWords)(unsafe.Pointer(&sample)).tab
}

var protoMessageType = reflect.TypeFor[protoreflect.ProtoMessage]()

// ifaceWords is how Go lays out a non-empty interface value: the type word
// (its itab) and the data word, here a pointer to the struct.
type ifaceWords struct{ tab, data unsafe.Pointer }

// MessageAt is the message of the generated struct at ptr, whose
// ProtoMessage type word is tab. Building the interface value from its two
// words replaces reflect.NewAt and an interface conversion, whose type
// lookups were a tenth of printing a route table.
func MessageAt(tab, ptr unsafe.Pointer) protoreflect.Message {
	var pm protoreflect.ProtoMessage
	*(*ifaceWords)(unsafe.Pointer(&pm)) = ifaceWords{tab, ptr}
	return pm.ProtoReflect()
}

// Get returns the value of field i, which has reported set, as m.Get
// would, reading the struct where the plan knows how.
func (p *Plan) Get(m protoreflect.Message, base unsafe.Pointer, i int) protoreflect.Value {
	f := &p.Fields[i]
	at := p.valueAt(base, i)
	if at == nil {
		return m.Get(f.FD)
	}
	switch f.Read {
	case readString:
		return protoreflect.ValueOfString(*(*string)(at))
	case readBool:
		return protoreflect.ValueOfBool(*(*bool)(at))
	case readInt32:
		return protoreflect.ValueOfInt32(*(*int32)(at))
	case readEnum:
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(*(*int32)(at)))
	case readUint32:
		return protoreflect.ValueOfUint32(*(*uint32)(at))
	case readInt64:
		return protoreflect.ValueOfInt64(*(*int64)(at))
	case readUint64:
		return protoreflect.ValueOfUint64(*(*uint64)(at))
	case ReadMessage:
		ptr := *(*unsafe.Pointer)(at)
		if ptr == nil {
			break
		}
		return protoreflect.ValueOfMessage(MessageAt(f.Message, ptr))
	}
	return m.Get(f.FD)
}

// valueAt is where the value of field i, which has reported set, is in
// the struct at base, or nil where the plan does not read it.
func (p *Plan) valueAt(base unsafe.Pointer, i int) unsafe.Pointer {
	f := &p.Fields[i]
	if base == nil {
		return nil
	}
	at := unsafe.Add(base, f.Offset)
	if f.kind == presenceOneof {
		if f.Read == readAsk || *(*unsafe.Pointer)(at) != f.member {
			return nil
		}
		// The interface's data word points to the wrapper, whose one
		// field, at its start, is the value.
		at = *(*unsafe.Pointer)(unsafe.Add(at, unsafe.Sizeof(uintptr(0))))
	}
	return at
}

// MessagePointer is the message of field i, a message field read directly
// that has reported set, as a pointer to its struct; nil where the plan
// does not read it.
func (p *Plan) MessagePointer(base unsafe.Pointer, i int) unsafe.Pointer {
	if at := p.valueAt(base, i); at != nil && p.Fields[i].Read == ReadMessage {
		return *(*unsafe.Pointer)(at)
	}
	return nil
}

// presenceKindOf is how Has decides for a field of Go type t, or
// presenceAsk where reading the struct would not match it.
func presenceKindOf(fd protoreflect.FieldDescriptor, t reflect.Type) presenceKind {
	switch t.Kind() {
	case reflect.Pointer:
		return presencePointer
	case reflect.Slice:
		// proto3 optional bytes: an empty non-nil slice is set.
		if !fd.IsList() && fd.HasPresence() {
			return presenceAsk
		}
		return presenceLength
	case reflect.String:
		if fd.HasPresence() {
			return presenceAsk
		}
		return presenceLength
	case reflect.Bool, reflect.Int32, reflect.Uint32, reflect.Float32, reflect.Int64, reflect.Uint64, reflect.Float64:
		if fd.HasPresence() {
			return presenceAsk
		}
		switch t.Size() {
		case 1:
			return presence1
		case 4:
			return presence4
		case 8:
			return presence8
		}
	}
	return presenceAsk
}

// Has reports whether field i of the plan is set in m, whose struct starts
// at base (nil when the plan is not direct).
func (p *Plan) Has(m protoreflect.Message, base unsafe.Pointer, i int) bool {
	f := &p.Fields[i]
	if base == nil {
		return m.Has(f.FD)
	}
	at := unsafe.Add(base, f.Offset)
	switch f.kind {
	case presencePointer:
		return *(*unsafe.Pointer)(at) != nil
	case presenceLength:
		// A string's and a slice's length are both the word after the
		// data pointer.
		return *(*int)(unsafe.Add(at, unsafe.Sizeof(uintptr(0)))) != 0
	case presence1:
		return *(*uint8)(at) != 0
	case presence4:
		return *(*uint32)(at) != 0
	case presence8:
		return *(*uint64)(at) != 0
	case presenceOneof:
		return *(*unsafe.Pointer)(at) == f.member
	case presenceMap:
		switch f.Read {
		case ReadStringMap:
			return len(*(*map[string]string)(at)) != 0
		case ReadStructMap:
			return len(*(*map[string]*structpb.Struct)(at)) != 0
		case ReadAnyMap:
			return len(*(*map[string]*anypb.Any)(at)) != 0
		}
	}
	return m.Has(f.FD)
}

// Base is the address of m's struct, or nil when the plan cannot read it
// (a nil message pointer, or not a generated struct).
func (p *Plan) Base(m protoreflect.Message) unsafe.Pointer {
	if !p.Direct {
		return nil
	}
	// A generated message's reflection is its state, the struct's first
	// field: the same address. Unwrapping the message through Interface
	// instead goes through reflect, a tenth of printing a listener.
	if w := (*ifaceWords)(unsafe.Pointer(&m)); w.tab == messageStateTab {
		return w.data
	}
	pm := m.Interface()
	return (*ifaceWords)(unsafe.Pointer(&pm)).data
}

// messageStateTab is the type word of a protoreflect.Message holding a
// generated message's state, which every non-nil generated message's
// ProtoReflect returns.
var messageStateTab = func() unsafe.Pointer {
	m := (&structpb.Struct{}).ProtoReflect()
	return (*ifaceWords)(unsafe.Pointer(&m)).tab
}()
