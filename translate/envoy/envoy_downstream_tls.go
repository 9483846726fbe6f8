package envoy

import (
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// Downstream TLS: the SNI filter chains of an HTTPS listener and the TLS
// contexts and certificates they serve, as Contour builds them.

// sniFilterChain returns a filter chain matching serverName (or, for "*",
// transport_protocol "tls") with the given filters and optional downstream
// TLS context (nil for TLS passthrough).
func sniFilterChain(serverName string, tls *tlsv3.DownstreamTlsContext, filters ...*listenerv3.Filter) *listenerv3.FilterChain {
	fc := &listenerv3.FilterChain{Filters: filters}
	// Envoy cannot match SNI "*", so Contour matches any TLS connection.
	if serverName == "*" {
		fc.FilterChainMatch = &listenerv3.FilterChainMatch{TransportProtocol: "tls"}
	} else {
		fc.FilterChainMatch = &listenerv3.FilterChainMatch{ServerNames: []string{serverName}}
	}
	if tls != nil {
		fc.TransportSocket = &corev3.TransportSocket{
			Name:       listenerTLSTransportSocketName,
			ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(tls)},
		}
	}
	return fc
}

// downstreamCipherSuites are Contour's default TLS cipher suites (equal-
// preference groups in BoringSSL's bracket syntax).
var downstreamCipherSuites = []string{
	"[ECDHE-ECDSA-AES128-GCM-SHA256|ECDHE-ECDSA-CHACHA20-POLY1305]",
	"[ECDHE-RSA-AES128-GCM-SHA256|ECDHE-RSA-CHACHA20-POLY1305]",
	"ECDHE-ECDSA-AES256-GCM-SHA384",
	"ECDHE-RSA-AES256-GCM-SHA384",
}

// downstreamTLSContext returns the DownstreamTlsContext Contour puts on a
// secure virtual host's filter chain: TLS params (min/max, default ciphers),
// the SDS secret reference, and ALPN protocols.
func downstreamTLSContext(secretName string, minVersion, maxVersion tlsv3.TlsParameters_TlsProtocol, alpn ...string) *tlsv3.DownstreamTlsContext {
	return &tlsv3.DownstreamTlsContext{
		CommonTlsContext: &tlsv3.CommonTlsContext{
			TlsParams: &tlsv3.TlsParameters{
				TlsMinimumProtocolVersion: minVersion,
				TlsMaximumProtocolVersion: maxVersion,
				CipherSuites:              append([]string(nil), downstreamCipherSuites...),
			},
			TlsCertificateSdsSecretConfigs: []*tlsv3.SdsSecretConfig{{
				Name:      secretName,
				SdsConfig: xdsConfigSource(),
			}},
			AlpnProtocols: alpn,
		},
	}
}

// downstreamClientValidation is the client-certificate validation of an
// HTTPProxy's spec.virtualhost.tls.clientValidation (Contour's
// dag.PeerValidationContext as used on a downstream context).
type downstreamClientValidation struct {
	CACertificate             []byte // trusted_ca, inline bytes (may be empty)
	CRL                       []byte // crl, inline bytes (may be empty)
	SkipClientCertValidation  bool   // trust_chain_verification ACCEPT_UNTRUSTED
	OnlyVerifyLeafCertCRL     bool   // only_verify_leaf_cert_crl (with a CRL only)
	OptionalClientCertificate bool   // require_client_certificate false
}

// withDownstreamClientValidation adds client-certificate validation to ctx
// as Contour's downstreamTLSContext does with a peer validation context:
// an inline validation_context and require_client_certificate (always set,
// false when the certificate is optional). It returns ctx.
func withDownstreamClientValidation(ctx *tlsv3.DownstreamTlsContext, v downstreamClientValidation) *tlsv3.DownstreamTlsContext {
	vc := &tlsv3.CertificateValidationContext{
		TrustChainVerification: tlsv3.CertificateValidationContext_VERIFY_TRUST_CHAIN,
	}
	if v.SkipClientCertValidation {
		vc.TrustChainVerification = tlsv3.CertificateValidationContext_ACCEPT_UNTRUSTED
	}
	if len(v.CACertificate) > 0 {
		vc.TrustedCa = &corev3.DataSource{Specifier: &corev3.DataSource_InlineBytes{InlineBytes: v.CACertificate}}
	}
	if len(v.CRL) > 0 {
		vc.Crl = &corev3.DataSource{Specifier: &corev3.DataSource_InlineBytes{InlineBytes: v.CRL}}
		vc.OnlyVerifyLeafCertCrl = v.OnlyVerifyLeafCertCRL
	}
	ctx.CommonTlsContext.ValidationContextType = &tlsv3.CommonTlsContext_ValidationContext{ValidationContext: vc}
	ctx.RequireClientCertificate = wrapperspb.Bool(!v.OptionalClientCertificate)
	return ctx
}

// tlsCertificateSecret returns the SDS secret holding a serving certificate.
func tlsCertificateSecret(name string, cert, key []byte) *tlsv3.Secret {
	return &tlsv3.Secret{
		Name: name,
		Type: &tlsv3.Secret_TlsCertificate{
			TlsCertificate: &tlsv3.TlsCertificate{
				CertificateChain: &corev3.DataSource{Specifier: &corev3.DataSource_InlineBytes{InlineBytes: cert}},
				PrivateKey:       &corev3.DataSource{Specifier: &corev3.DataSource_InlineBytes{InlineBytes: key}},
			},
		},
	}
}
