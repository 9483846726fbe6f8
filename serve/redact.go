package serve

// Keeping private keys out of everything serve shows: /debug/xds, logs,
// errors. Secrets are the only resources that carry keys in what translate
// produces, but every resource is walked so an inline TLS context elsewhere
// would be caught too; log text is scrubbed of anything that looks like a
// PEM private key, in plain or base64 form, however it got there.

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/contourc/contourc/translate"
)

// redacted replaces secret material.
const redacted = "[REDACTED]"

// redactedResources returns a copy of r with every private key, key
// password, generic secret and session ticket key replaced by "[REDACTED]".
// r is left alone: it is the published snapshot.
func redactedResources(r *translate.Resources) (*translate.Resources, error) {
	var err error
	out := &translate.Resources{}
	out.Listeners, err = redactAll(r.Listeners)
	if err == nil {
		out.RouteConfigs, err = redactAll(r.RouteConfigs)
	}
	if err == nil {
		out.Clusters, err = redactAll(r.Clusters)
	}
	if err == nil {
		out.Endpoints, err = redactAll(r.Endpoints)
	}
	if err == nil {
		out.Secrets, err = redactAll(r.Secrets)
	}
	if err == nil {
		out.Runtimes, err = redactAll(r.Runtimes)
	}
	return out, err
}

func redactAll[T proto.Message](items []T) ([]T, error) {
	out := make([]T, len(items))
	for i, it := range items {
		c := proto.Clone(it).(T)
		if _, err := rewrite(c, redactSecretFields); err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// redactSecretFields blanks the secret parts of the TLS messages that hold
// them. File names and environment variable names are kept: they say where
// a secret lives, not what it is.
func redactSecretFields(m protoreflect.Message) bool {
	switch msg := m.Interface().(type) {
	case *tlsv3.TlsCertificate:
		a := redactSource(&msg.PrivateKey)
		b := redactSource(&msg.Password)
		return a || b
	case *tlsv3.GenericSecret:
		return redactSource(&msg.Secret)
	case *tlsv3.TlsSessionTicketKeys:
		changed := false
		for i := range msg.Keys {
			changed = redactSource(&msg.Keys[i]) || changed
		}
		return changed
	}
	return false
}

// redactSource replaces an inline data source; a file or environment
// variable reference is not secret.
func redactSource(ds **corev3.DataSource) bool {
	switch (*ds).GetSpecifier().(type) {
	case *corev3.DataSource_InlineBytes, *corev3.DataSource_InlineString:
		*ds = &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: redacted}}
		return true
	}
	return false
}

// pemPrivateKey matches a PEM private key block, or what is left of one when
// a message was cut short.
var pemPrivateKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`)
})

// base64PEM matches base64 text that starts like a PEM block
// ("-----BEGIN"), as in a Secret's data; whether it is a key is decided by
// decoding its start.
var base64PEM = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`LS0tLS1CRUdJTi[A-Za-z0-9+/=]*`) })

// redactText removes private keys from s.
func redactText(s string) string {
	if !strings.Contains(s, "PRIVATE KEY") && !strings.Contains(s, "LS0tLS1CRUdJTi") {
		return s
	}
	s = pemPrivateKey().ReplaceAllString(s, redacted)
	return base64PEM().ReplaceAllStringFunc(s, func(b64 string) string {
		head := b64[:min(len(b64), 64)]
		head = head[:len(head)/4*4]
		dec, err := base64.StdEncoding.DecodeString(head)
		if err != nil || strings.Contains(string(dec), "PRIVATE") || !strings.Contains(string(dec), "-----BEGIN") {
			// Undecodable or a key: better to hide a certificate by
			// mistake than to show a key.
			return redacted
		}
		return b64
	})
}

// redactingHandler scrubs every log record of private keys before the
// wrapped handler formats it, so no code path can log one by mistake.
type redactingHandler struct{ next slog.Handler }

// RedactingHandler wraps h so that private keys (PEM, or base64 PEM as in
// Secret data) never reach its output.
func RedactingHandler(h slog.Handler) slog.Handler { return redactingHandler{next: h} }

func (h redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h redactingHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, redactText(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = redactAttr(a)
	}
	return redactingHandler{next: h.next.WithAttrs(clean)}
}

func (h redactingHandler) WithGroup(name string) slog.Handler {
	return redactingHandler{next: h.next.WithGroup(name)}
}

func redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, redactText(v.String()))
	case slog.KindGroup:
		g := v.Group()
		clean := make([]any, len(g))
		for i, ga := range g {
			clean[i] = redactAttr(ga)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindAny:
		// Errors, Stringers and everything else are logged by their text,
		// which is what gets scrubbed.
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, redactText(err.Error()))
		}
		return slog.String(a.Key, redactText(fmt.Sprint(v.Any())))
	}
	return slog.Attr{Key: a.Key, Value: v}
}
