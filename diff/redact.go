package diff

import (
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
// Redacted or cleared. The copy has every Any packed deterministically.
func Redact(r *translate.Resources) *translate.Resources {
	out := &translate.Resources{
		Listeners:    cloneAll(r.Listeners),
		RouteConfigs: cloneAll(r.RouteConfigs),
		Clusters:     cloneAll(r.Clusters),
		Endpoints:    cloneAll(r.Endpoints),
		Secrets:      cloneAll(r.Secrets),
		Runtimes:     cloneAll(r.Runtimes),
	}
	forEachResource(out, func(m proto.Message) { walk(m.ProtoReflect(), redactFields) })
	return out
}

// redactedKey is what replaces a private key: Redacted, followed by the
// fingerprint of the public key it belongs to when it can be read, so that
// a text diff of redacted output (diff -o unified) still shows a key that
// changed under the same certificate.
func redactedKey(m proto.Message) string {
	ds, ok := m.(*corev3.DataSource)
	if !ok {
		return Redacted
	}
	info := keyInfo(ds, nil)
	if info.PublicKeySHA256 == "" {
		return Redacted
	}
	return Redacted + " private key of public key sha256:" + info.PublicKeySHA256[:16]
}

func redactFields(m protoreflect.Message) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if !secretFields[fd.Name()] || !m.Has(fd) {
			continue
		}
		if !fd.IsList() && !fd.IsMap() && fd.Message() != nil && fd.Message().FullName() == dataSourceName {
			placeholder := Redacted
			if fd.Name() == "private_key" {
				placeholder = redactedKey(m.Get(fd).Message().Interface())
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
