package serve

// A snapshot is one complete, validated set of xDS resources with versions
// derived from its content. Content-derived versions give three properties
// Contour's random (UUID) versions do not: a reload that changes nothing
// changes no version, so no Envoy is notified; the same files give the same
// versions after a restart, so reconnecting Envoys see nothing new; and a
// change to one resource leaves the versions of the others alone, so only
// the streams watching it are notified (cache.go).

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"slices"
	"sync"

	"github.com/envoyproxy/go-control-plane/pkg/cache/types"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	"github.com/envoyproxy/protoc-gen-validate/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contourc/contourc/internal/par"
	"github.com/contourc/contourc/translate"
)

// versionLength is how many hex digits of a SHA-256 a version keeps: 64
// bits, plenty to tell configurations apart and short enough to read in
// logs and Envoy's config_dump.
const versionLength = 16

// typeSet is the resources of one xDS type, in name order.
type typeSet struct {
	typeURL string
	names   []string
	items   []types.Resource
	// hashes holds each resource's content hash by name: how updates of
	// named types find the resources that really changed (cache.go).
	hashes map[string]string
	// version is the hash of the whole set, names included.
	version string
	// index maps each name to the string in names, for names.go; built
	// on first use, off the reload's path.
	index *nameIndex
	// served are the items as the xDS cache is given them: the same, but
	// for route tables in their wire form (wire.go).
	served []types.Resource
	// sums are the content hashes of the messages hashed whole: the
	// items, and the elements of their long lists. The next snapshot
	// takes the hash of a message it shares with this one from here.
	sums map[proto.Message][sha256.Size]byte
	// wire are the stand-ins of route tables' virtual hosts, for the
	// route tables handed to the xDS cache (wire.go).
	wire map[proto.Message]proto.Message
	// longs are the items hashed element by element, with their long
	// list (longList): the next snapshot carries their elements' hashes
	// without looking for long lists in every resource it shares.
	longs map[proto.Message]protoreflect.FieldDescriptor
}

// snapshot is what one successful reload publishes.
type snapshot struct {
	// version identifies the whole configuration: a hash of every type's
	// version. It is what logs, metrics and /debug endpoints show.
	version string
	// sets holds one typeSet per served type, in servedTypes order.
	sets []typeSet
	// resources are the served resources as translate's struct, for
	// /debug/xds; they must not be modified once published.
	resources *translate.Resources
}

// servedTypes are the xDS types contourc serves, in the order Contour
// registers them and the order a snapshot lists them.
var servedTypes = []string{
	resourcev3.ListenerType,
	resourcev3.RouteType,
	resourcev3.ClusterType,
	resourcev3.EndpointType,
	resourcev3.SecretType,
	resourcev3.RuntimeType,
}

// newSnapshot hashes r into a snapshot. r must already be in its served
// form, and be validated before it is published. prev, when not nil, is a
// snapshot whose messages r may share: translate, given a Memo, returns
// again every message whose inputs did not change, and a message is never
// modified once built, so a shared message keeps its hash and is not
// marshalled again.
func newSnapshot(r *translate.Resources, prev *snapshot) (*snapshot, error) {
	s := &snapshot{resources: r}
	all := sha256.New()
	for _, typeURL := range servedTypes {
		items := resourcesOf(r, typeURL)
		var before *typeSet
		if prev != nil {
			before = prev.set(typeURL)
		}
		var set typeSet
		if before != nil && slices.Equal(before.items, items) {
			// The very messages of the last snapshot: most types at
			// most reloads, whose hashes are all known.
			set = *before
		} else {
			h := newHasher(before)
			var err error
			if set, err = newTypeSet(typeURL, items, h); err != nil {
				return nil, err
			}
			set.served = servedItems(set.items, h.wire, before)
			set.sums, set.wire, set.longs = h.sums, h.wire, h.longs
			if before != nil && slices.Equal(before.names, set.names) {
				// Clients subscribed to every name still are
				// (nameIndex).
				set.index = before.index
			}
		}
		s.sets = append(s.sets, set)
		writeField(all, typeURL)
		writeField(all, set.version)
	}
	s.version = shortHash(all)
	return s, nil
}

// sums are the content hashes the snapshot keeps for typeURL's messages.
func (s *snapshot) sums(typeURL string) map[proto.Message][sha256.Size]byte {
	if set := s.set(typeURL); set != nil {
		return set.sums
	}
	return nil
}

// changedSince returns what of s is left to validate when prev was
// validated: the resources whose content differs from that of the resource
// of the same type and name in prev (all of them when prev is nil), each
// thinned of the elements of its long list that prev holds too.
func (s *snapshot) changedSince(prev *snapshot) *translate.Resources {
	if prev == nil {
		return s.resources
	}
	r := s.resources
	changed := func(typeURL, name string) bool {
		old, set := prev.set(typeURL), s.set(typeURL)
		// A type of prev's version has the same resources, all
		// validated: most types at most reloads, whose resources were
		// otherwise looked up by name in two maps each (20,000 at
		// 5,000 HTTPProxies).
		if old != nil && old.version == set.version {
			return false
		}
		return old == nil || old.hashes[name] != set.hashes[name]
	}
	return &translate.Resources{
		Listeners:    changedOnly(r.Listeners, resourcev3.ListenerType, changed, prev),
		RouteConfigs: changedOnly(r.RouteConfigs, resourcev3.RouteType, changed, prev),
		Clusters:     changedOnly(r.Clusters, resourcev3.ClusterType, changed, prev),
		Endpoints:    changedOnly(r.Endpoints, resourcev3.EndpointType, changed, prev),
		Secrets:      changedOnly(r.Secrets, resourcev3.SecretType, changed, prev),
		Runtimes:     changedOnly(r.Runtimes, resourcev3.RuntimeType, changed, prev),
	}
}

// changedOnly is the items of typeURL that changed, thinned of what prev,
// validated, holds.
func changedOnly[T types.Resource](items []T, typeURL string, changed func(typeURL, name string) bool, prev *snapshot) []T {
	validated := prev.sums(typeURL)
	var out []T
	for _, it := range items {
		if changed(typeURL, cachev3.GetResourceName(it)) {
			out = append(out, thinned(it, validated))
		}
	}
	return out
}

// thinned returns m, or, when m has a long list some of whose elements are
// in validated, a shallow copy of m whose list holds only the others.
// Validating it validates all of m that was not validated before: the
// generated validation of such a list (a listener's filter chains, a route
// table's virtual hosts) checks each element on its own, and perItemRules
// makes sure it checks nothing of the list as a whole. One new Ingress at
// 5,000 HTTPProxies changes ingress_http, whose other 5,000 virtual hosts
// took 100 ms to validate again.
func thinned[T proto.Message](m T, validated map[proto.Message][sha256.Size]byte) T {
	rm := m.ProtoReflect()
	long := longList(rm)
	if long == nil || !perItemRules(long) {
		return m
	}
	list := rm.Get(long).List()
	rest := withoutField(rm, long)
	kept := rest.Mutable(long).List()
	for i := range list.Len() {
		if _, ok := validated[list.Get(i).Message().Interface()]; !ok {
			kept.Append(list.Get(i))
		}
	}
	if kept.Len() == list.Len() {
		return m
	}
	return rest.Interface().(T)
}

// withoutField is a new message sharing all of m's fields but fd: a
// shallow copy, not a deep one.
func withoutField(m protoreflect.Message, fd protoreflect.FieldDescriptor) protoreflect.Message {
	out := m.New()
	m.Range(func(f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if f != fd {
			out.Set(f, v)
		}
		return true
	})
	return out
}

// longList is m's list of messages long enough to be hashed element by
// element, nil when it has none. Only the list fields of m's type are
// looked at: ranging over every field of every resource was two thirds of
// hashing a reload that changed almost nothing.
func longList(m protoreflect.Message) protoreflect.FieldDescriptor {
	for _, fd := range messageLists(m.Descriptor()) {
		if m.Get(fd).List().Len() >= minSplitHash {
			return fd
		}
	}
	return nil
}

var listFields sync.Map // protoreflect.MessageDescriptor -> []protoreflect.FieldDescriptor

// messageLists are the fields of d that are lists of messages, in
// declaration order.
func messageLists(d protoreflect.MessageDescriptor) []protoreflect.FieldDescriptor {
	if fds, ok := listFields.Load(d); ok {
		return fds.([]protoreflect.FieldDescriptor)
	}
	var out []protoreflect.FieldDescriptor
	fields := d.Fields()
	for i := range fields.Len() {
		if fd := fields.Get(i); fd.IsList() && fd.Message() != nil {
			out = append(out, fd)
		}
	}
	listFields.Store(d, out)
	return out
}

// perItemRules reports whether the validation rules of the repeated field
// fd (protoc-gen-validate's, which go-control-plane's generated code runs)
// constrain only its elements one by one: no count and no uniqueness.
func perItemRules(fd protoreflect.FieldDescriptor) bool {
	rules, _ := proto.GetExtension(fd.Options(), validate.E_Rules).(*validate.FieldRules)
	rep := rules.GetRepeated()
	return rep == nil || (rep.MinItems == nil && rep.MaxItems == nil && rep.Unique == nil)
}

// set returns the resources of typeURL.
func (s *snapshot) set(typeURL string) *typeSet {
	for i := range s.sets {
		if s.sets[i].typeURL == typeURL {
			return &s.sets[i]
		}
	}
	return nil
}

// typeVersion is the content hash of the resources of typeURL: the version
// state-of-the-world clients see for listeners and clusters (cache.go).
func (s *snapshot) typeVersion(typeURL string) string {
	if set := s.set(typeURL); set != nil {
		return set.version
	}
	return ""
}

// deterministic marshals map entries in key order, so equal messages give
// equal bytes and equal hashes.
var deterministic = proto.MarshalOptions{Deterministic: true}

func newTypeSet(typeURL string, items []types.Resource, h *hasher) (typeSet, error) {
	// Marshalling is most of the cost, and each resource is marshalled on
	// its own, so it is spread over the CPUs.
	sums := make([][sha256.Size]byte, len(items))
	errs := make([]error, len(items))
	par.ForEach(len(items), func(i int) {
		sums[i], errs[i] = h.contentHash(items[i])
	})
	set := typeSet{typeURL: typeURL, items: items, hashes: make(map[string]string, len(items)), index: &nameIndex{}}
	version := sha256.New()
	for i, it := range items {
		if errs[i] != nil {
			return typeSet{}, errs[i]
		}
		// Kept here, on one goroutine: under the hasher's lock, from
		// every CPU, it was a third of hashing a reload.
		h.sums[it] = sums[i]
		name := cachev3.GetResourceName(it)
		set.names = append(set.names, name)
		set.hashes[name] = hex.EncodeToString(sums[i][:versionLength/2])
		writeField(version, name)
		version.Write(sums[i][:])
	}
	set.version = shortHash(version)
	return set, nil
}

// minSplitHash is the length from which a resource's long list is hashed
// element by element, on every CPU: one listener holds a filter chain per
// secure virtual host, and marshalling it whole took a third of a second
// of a reload at 5,000 of them, on one CPU.
const minSplitHash = 256

// hasher hashes the messages of one snapshot, taking the hashes of the
// messages it shares with the previous one from there.
type hasher struct {
	known map[proto.Message][sha256.Size]byte // the previous snapshot's; read only
	// knownWire and knownLongs are the previous snapshot's wire elements
	// (wire.go) and long lists; read only.
	knownWire  map[proto.Message]proto.Message
	knownLongs map[proto.Message]protoreflect.FieldDescriptor
	mu         sync.Mutex
	sums       map[proto.Message][sha256.Size]byte // this snapshot's
	wire       map[proto.Message]proto.Message     // this snapshot's
	longs      map[proto.Message]protoreflect.FieldDescriptor
}

// newHasher returns a hasher taking what it can from prev, the previous
// snapshot's set of the same type, which may be nil.
func newHasher(prev *typeSet) *hasher {
	h := &hasher{longs: map[proto.Message]protoreflect.FieldDescriptor{}}
	if prev != nil {
		h.known, h.knownWire, h.knownLongs = prev.sums, prev.wire, prev.longs
	}
	// About as many as the last time: growing the maps, 40,000 entries at
	// 5,000 HTTPProxies, was a third of hashing a reload.
	h.sums = make(map[proto.Message][sha256.Size]byte, len(h.known))
	h.wire = make(map[proto.Message]proto.Message, len(h.knownWire))
	return h
}

// contentHash is a hash of m's content: of its deterministic encoding, or,
// for a message with a long list of messages, of the encoding of the rest
// followed by each element's hash. The caller keeps m's hash; contentHash
// keeps those of a long list's elements.
func (h *hasher) contentHash(m proto.Message) ([sha256.Size]byte, error) {
	if sum, ok := h.known[m]; ok {
		// Its elements too, for a later snapshot that shares only them.
		if long := h.knownLongs[m]; long != nil {
			h.keepLong(m, long)
			list := m.ProtoReflect().Get(long).List()
			for i := range list.Len() {
				elem := list.Get(i).Message().Interface()
				if sum, ok := h.known[elem]; ok {
					h.keep(elem, sum)
				}
				if standIn, ok := h.knownWire[elem]; ok {
					h.keepWire(elem, standIn)
				}
			}
		}
		return sum, nil
	}
	rm := m.ProtoReflect()
	long := longList(rm)
	if long == nil {
		return hashMarshalled(m)
	}
	h.keepLong(m, long)
	list := rm.Get(long).List()
	sums := make([][sha256.Size]byte, list.Len())
	errs := make([]error, list.Len())
	// A route table's virtual hosts get stand-ins too (wire.go).
	encode := isRouteTable(m)
	encs := make([]proto.Message, list.Len())
	elems := make([]proto.Message, list.Len())
	par.ForEach(list.Len(), func(i int) {
		elem := list.Get(i).Message().Interface()
		elems[i] = elem
		sum, known := h.known[elem]
		if encode {
			encs[i] = h.knownWire[elem]
		}
		switch {
		case known && (!encode || encs[i] != nil):
			sums[i] = sum
		case encode:
			encs[i], sums[i], errs[i] = encodeAndHash(elem)
		default:
			sums[i], errs[i] = hashMarshalled(elem)
		}
	})
	b, err := deterministic.Marshal(withoutField(rm, long).Interface())
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	all := sha256.New()
	writeField(all, string(long.FullName()))
	writeField(all, string(b))
	for i := range sums {
		if errs[i] != nil {
			return [sha256.Size]byte{}, errs[i]
		}
		all.Write(sums[i][:])
		h.keep(elems[i], sums[i])
		if encs[i] != nil {
			h.keepWire(elems[i], encs[i])
		}
	}
	var out [sha256.Size]byte
	all.Sum(out[:0])
	return out, nil
}

// keepLong records that m was hashed element by element of its list long.
func (h *hasher) keepLong(m proto.Message, long protoreflect.FieldDescriptor) {
	h.mu.Lock()
	h.longs[m] = long
	h.mu.Unlock()
}

// keepWire records the stand-in of a route table's virtual host.
func (h *hasher) keepWire(m, standIn proto.Message) {
	h.mu.Lock()
	h.wire[m] = standIn
	h.mu.Unlock()
}

// keep records m's hash for the next snapshot.
func (h *hasher) keep(m proto.Message, sum [sha256.Size]byte) {
	h.mu.Lock()
	h.sums[m] = sum
	h.mu.Unlock()
}

// marshalBuffers are reused by hashMarshalled: the encodings are only
// hashed, and a reload encodes every resource.
var marshalBuffers = sync.Pool{New: func() any { return new([]byte) }}

// hashMarshalled is the SHA-256 of m's deterministic encoding.
func hashMarshalled(m proto.Message) ([sha256.Size]byte, error) {
	buf := marshalBuffers.Get().(*[]byte)
	defer marshalBuffers.Put(buf)
	b, err := deterministic.MarshalAppend((*buf)[:0], m)
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	*buf = b
	return sha256.Sum256(b), nil
}

// writeField writes s with its length, so that ("ab","c") and ("a","bc")
// hash differently.
func writeField(h hash.Hash, s string) {
	var n [binary.MaxVarintLen64]byte
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
	h.Write([]byte(s))
}

func shortHash(h hash.Hash) string {
	return hex.EncodeToString(h.Sum(nil))[:versionLength]
}

// resourcesOf lists the resources of one type, in translate's (name) order.
func resourcesOf(r *translate.Resources, typeURL string) []types.Resource {
	switch typeURL {
	case resourcev3.ListenerType:
		return asResources(r.Listeners)
	case resourcev3.RouteType:
		return asResources(r.RouteConfigs)
	case resourcev3.ClusterType:
		return asResources(r.Clusters)
	case resourcev3.EndpointType:
		return asResources(r.Endpoints)
	case resourcev3.SecretType:
		return asResources(r.Secrets)
	case resourcev3.RuntimeType:
		return asResources(r.Runtimes)
	}
	return nil
}

func asResources[T types.Resource](items []T) []types.Resource {
	out := make([]types.Resource, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out
}
