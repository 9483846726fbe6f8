package translate

import (
	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/config"
	"github.com/contourc/contourc/translate/dag/index"
	"github.com/contourc/contourc/translate/envoy"
	"github.com/contourc/contourc/translate/httpproxy"
)

// Memo is what a translation may reuse from the one before it, for a
// caller that translates the same inputs over and over with small changes
// (serve, at every reload). Give each translation the same Memo through
// Options.Memo; results never depend on it, only the time they take.
// Objects are told apart by identity, as the loader's cache hands them
// out: neither the objects nor the list given to a translation may be
// modified afterwards.
//
// It holds the object index's memo (index.Memo: the verdicts of Secret
// validations by content, and the last index, which the next translation
// patches). It also holds the Envoy messages the last translation built,
// with what they were built from, which the next one returns again when
// their inputs did not change (envoy.Memo), and the HTTPProxy processor's
// last run, done again where it reads the same (httpproxy.Memo). It keeps
// what the last one or two translations used, so it grows with the
// inputs, not with the number of reloads. A Memo serves one translation
// at a time.
type Memo struct {
	// index is the object index's part (translate/dag/index).
	index index.Memo
	// admitted are the Ingresses the DefaultIngressClass admission gave
	// a class, handed out again while unchanged (cluster.go).
	admitted loader.Admitted

	// xds is the Envoy builders' part (translate/envoy's xds_memo.go).
	xds envoy.Memo

	// proxies is the HTTPProxy processor's part, its last run
	// (translate/httpproxy's memo.go).
	proxies httpproxy.Memo
}

// NewMemo returns an empty Memo.
func NewMemo() *Memo { return &Memo{} }

// indexMemo is m's part for the object index, nil without a Memo.
func (m *Memo) indexMemo() *index.Memo {
	if m == nil {
		return nil
	}
	return &m.index
}

// proxyMemo is m's part for the HTTPProxy processor, nil without a Memo.
func (m *Memo) proxyMemo() *httpproxy.Memo {
	if m == nil {
		return nil
	}
	return &m.proxies
}

// begin starts a translation, after its index (indexMemo().Index): the
// messages of all but the last are dropped.
func (m *Memo) begin() {
	if m == nil {
		return
	}
	m.xds.Begin()
}

// reuse is the Envoy builders' reuse of a translation with settings s,
// nil without a Memo.
func (m *Memo) reuse(s *config.Settings) *envoy.Reuse {
	if m == nil {
		return nil
	}
	return m.xds.Reuse(s)
}
