// Package standin makes the Secrets a repository refers to but never holds:
// the ones cert-manager issues (from a Certificate, or from the shim
// annotations on an Ingress or a Gateway), those a SealedSecret, an
// ExternalSecret or a SOPS-encrypted Secret stand for, and those the user
// says exist only in the cluster (--assume-secret). Without them every
// HTTPProxy using such a Secret is SecretNotValid and every such Ingress
// loses TLS, which is true of no cluster. The Secrets Contour's
// configuration names (the fallback certificate, Envoy's client
// certificate) are stood for alike: the caller resolves the configuration
// and names them in Options.Configured, as this package sits below
// translate and never imports it.
//
// Apply runs between loader and translate: it adds stand-in Secrets (and
// the TLSCertificateDelegations --assume-secret asks for) to a
// loader.Result, each made only when the real Secret is absent, marked
// with loader.Object.StandIn, and reports which objects refer to them so
// that check and render can say which verdicts rest on one. A stand-in
// certificate is self-signed, its subject has O=contourc stand-in, and its
// key is derived from the identity of what it stands for (keys.go), so
// that output stays byte-identical from run to run.
//
// One file per step: sources.go (what each source and shim annotation
// stands for), refs.go (which objects refer to which Secrets),
// configured.go (which objects rest on the configured ones), standin.go
// (choosing and making the stand-ins, the report), cert.go and keys.go
// (certificates and deterministic keys), cache.go (serve's memory of them
// between reloads).
package standin
