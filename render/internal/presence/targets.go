package presence

// The message types a walk looks for, and the types and fields that can
// lead to them.

import (
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Targets is a set of message types a walk looks for. A message whose
// type cannot contain one, at any depth, need not be walked; an Any can
// contain anything, so it is always a target.
type Targets struct {
	Names map[protoreflect.FullName]bool
	reach sync.Map // protoreflect.FullName -> bool, see reaches
}

func NewTargets(types ...proto.Message) *Targets {
	t := &Targets{Names: map[protoreflect.FullName]bool{"google.protobuf.Any": true}}
	for _, m := range types {
		t.Names[m.ProtoReflect().Descriptor().FullName()] = true
	}
	return t
}

// AnyTargets is the set of validation walks: Anys alone.
var AnyTargets = NewTargets()

// reachesAny says whether a message of type md can contain a
// google.protobuf.Any, itself or in any field below it.
func reachesAny(md protoreflect.MessageDescriptor) bool { return AnyTargets.reaches(md) }

// reachesField says whether fd's values can hold a target.
func (t *Targets) reachesField(fd protoreflect.FieldDescriptor) bool {
	if fd.IsMap() {
		fd = fd.MapValue()
	}
	md := fd.Message()
	return md != nil && t.reaches(md)
}

// reaches says whether a message of type md is a target or can contain
// one in a field below it.
func (t *Targets) reaches(md protoreflect.MessageDescriptor) bool {
	if v, ok := t.reach.Load(md.FullName()); ok {
		return v.(bool)
	}
	// Work out every type reachable from md that is not known yet, then
	// mark, from the targets backwards, each one that leads to a target.
	// Types may be recursive, so the answer for one type needs the whole
	// graph below it.
	graph := map[protoreflect.FullName][]protoreflect.FullName{} // type -> field types
	reaches := map[protoreflect.FullName]bool{}
	var collect func(md protoreflect.MessageDescriptor)
	collect = func(md protoreflect.MessageDescriptor) {
		name := md.FullName()
		if _, done := graph[name]; done {
			return
		}
		graph[name] = nil
		if v, ok := t.reach.Load(name); ok {
			reaches[name] = v.(bool)
			return
		}
		reaches[name] = t.Names[name]
		fds := md.Fields()
		for i := range fds.Len() {
			fd := fds.Get(i)
			if fd.IsMap() {
				fd = fd.MapValue()
			}
			if sub := fd.Message(); sub != nil {
				graph[name] = append(graph[name], sub.FullName())
				collect(sub)
			}
		}
	}
	collect(md)
	for changed := true; changed; {
		changed = false
		for name, subs := range graph {
			if reaches[name] {
				continue
			}
			for _, sub := range subs {
				if reaches[sub] {
					reaches[name], changed = true, true
					break
				}
			}
		}
	}
	for name, v := range reaches {
		t.reach.LoadOrStore(name, v)
	}
	return reaches[md.FullName()]
}
