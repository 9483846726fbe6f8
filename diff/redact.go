package diff

import (
	"crypto/sha256"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contourc/contourc/translate"
)

// Redacted replaces secret material in the resources this package compares
// and prints.
const Redacted = "[redacted]"

// secretFields are the fields of Envoy's API that hold key material or
// credentials, wherever they appear: TLS private keys and their passwords,
// session ticket keys, generic secrets, HMAC secrets of OAuth2.
var secretFields = map[protoreflect.Name]bool{
	"private_key":         true,
	"password":            true,
	"session_ticket_keys": true,
	"generic_secret":      true,
	"hmac_secret":         true,
	"token_secret":        true,
}

// dataSourceName is envoy.config.core.v3.DataSource, the type of most
// secret fields: those are replaced by an inline Redacted string, so the
// field stays present and output still shows that a key is configured.
const dataSourceName protoreflect.FullName = "envoy.config.core.v3.DataSource"

// Redact returns a copy of r without key material: every secret field
// (see secretFields) at any depth, inside Any values too, is replaced by
// Redacted or cleared; a private key by Redacted and the fingerprint of its
// public key (see Redactor). The copy has every Any packed
// deterministically.
func Redact(r *translate.Resources) *translate.Resources {
	return (&Redactor{}).Redact(r)
}

// Redactor redacts resources as Redact does, and remembers the public key
// of each private key it read, so that redacting both sides of a diff
// parses each distinct key once.
type Redactor struct {
	publicKeys map[[sha256.Size]byte]string
}

// Redact is the package's Redact, with the Redactor's memory of keys.
func (x *Redactor) Redact(r *translate.Resources) *translate.Resources {
	return redact(r, x.placeholder)
}

// redact copies r and redacts the copy; keyText gives the placeholder of
// a private key.
func redact(r *translate.Resources, keyText func(*corev3.DataSource) string) *translate.Resources {
	out := &translate.Resources{
		Listeners:    cloneAll(r.Listeners),
		RouteConfigs: cloneAll(r.RouteConfigs),
		Clusters:     cloneAll(r.Clusters),
		Endpoints:    cloneAll(r.Endpoints),
		Secrets:      cloneAll(r.Secrets),
		Runtimes:     cloneAll(r.Runtimes),
	}
	forEachResource(out, func(m proto.Message) {
		walk(m.ProtoReflect(), func(m protoreflect.Message) { redactFields(m, keyText) })
	})
	return out
}

// plainKey is the placeholder of a private key where the key's identity
// is compared otherwise (Compare reads the keys of secrets itself).
func plainKey(*corev3.DataSource) string { return Redacted }

// placeholder is what replaces a private key: Redacted, followed by the
// fingerprint of the public key it belongs to when it can be read, so that
// a text diff of redacted output (diff -o unified) still shows a key that
// changed under the same certificate.
func (x *Redactor) placeholder(ds *corev3.DataSource) string {
	b, err := deterministic.Marshal(ds)
	if err != nil {
		return Redacted
	}
	sum := sha256.Sum256(b)
	if text, ok := x.publicKeys[sum]; ok {
		return text
	}
	text := Redacted
	if info := keyInfo(ds, nil); info.PublicKeySHA256 != "" {
		text = Redacted + " private key of public key sha256:" + info.PublicKeySHA256[:16]
	}
	if x.publicKeys == nil {
		x.publicKeys = map[[sha256.Size]byte]string{}
	}
	x.publicKeys[sum] = text
	return text
}

func redactFields(m protoreflect.Message, keyText func(*corev3.DataSource) string) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if !secretFields[fd.Name()] || !m.Has(fd) {
			continue
		}
		if !fd.IsList() && !fd.IsMap() && fd.Message() != nil && fd.Message().FullName() == dataSourceName {
			placeholder := Redacted
			if ds, ok := m.Get(fd).Message().Interface().(*corev3.DataSource); ok && fd.Name() == "private_key" {
				placeholder = keyText(ds)
			}
			ds := m.NewField(fd).Message()
			ds.Set(ds.Descriptor().Fields().ByName("inline_string"), protoreflect.ValueOfString(placeholder))
			m.Set(fd, protoreflect.ValueOfMessage(ds))
			continue
		}
		m.Clear(fd)
	}
}

// cloneAll deep-copies a list of messages.
func cloneAll[T proto.Message](list []T) []T {
	out := make([]T, len(list))
	for i, m := range list {
		out[i] = proto.Clone(m).(T)
	}
	return out
}

// forEachResource calls fn on every resource of r.
func forEachResource(r *translate.Resources, fn func(proto.Message)) {
	for _, m := range r.Listeners {
		fn(m)
	}
	for _, m := range r.RouteConfigs {
		fn(m)
	}
	for _, m := range r.Clusters {
		fn(m)
	}
	for _, m := range r.Endpoints {
		fn(m)
	}
	for _, m := range r.Secrets {
		fn(m)
	}
	for _, m := range r.Runtimes {
		fn(m)
	}
}
