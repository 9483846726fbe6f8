package serve

// Responses Envoys reject (NACKs).
//
// Envoy rejects a state-of-the-world response by asking again with the
// version it last accepted, the nonce of the response it rejects and an
// error_detail. go-control-plane's caches answer a request whose version is
// not theirs at once, with the same resources: the client rejects them
// again, and the two go round as fast as the network allows (17,000
// responses and log lines in 3 s for one client). Contour's behaviour, and
// the protocol's intent, is that a rejected version is not sent again: the
// client keeps what it had until there is something newer. So before the
// request reaches the cache, its version is set to the version the client
// rejected: the cache then sees a client up to date and holds the watch
// until a new version exists, as it does for an ACK. The resources a
// response carried are recorded as returned by go-control-plane itself
// when it sends them, so the linear caches hold the watch too.
//
// Delta clients need none of this: a delta NACK names no version, and the
// caches answer it only with resources that changed since.

import (
	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
)

// sentResponse is the last response of one type on one stream.
type sentResponse struct {
	nonce, version string
}

// nackKey is one client's rejections of one type.
type nackKey struct {
	node, typeURL string
}

// maxLoggedNACKers bounds the clients whose last logged rejection is
// remembered: node ids come from the clients, so without a bound a fleet of
// ever-new ids would grow the map for good. Forgetting them all at once
// costs at most one more line per client.
const maxLoggedNACKers = 10000

// sending records the response about to be sent on a stream.
func (t *streamTracker) sending(stream streamKey, typeURL, nonce, version string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	byType := t.sent[stream]
	if byType == nil {
		byType = map[string]sentResponse{}
		t.sent[stream] = byType
	}
	byType[typeURL] = sentResponse{nonce: nonce, version: version}
}

// rejectedVersion is the version of the response a NACK's nonce names, and
// whether it names the last response of its type on that stream.
func (t *streamTracker) rejectedVersion(stream streamKey, typeURL, nonce string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	last, ok := t.sent[stream][typeURL]
	if !ok || last.nonce != nonce {
		return "", false
	}
	return last.version, true
}

// sotwNACK holds a state-of-the-world client's watch until a version newer
// than the one it rejected exists (see above), and counts and logs the
// rejection. A NACK of an older response (a stale nonce) is left alone:
// go-control-plane ignores it.
func (t *streamTracker) sotwNACK(id int64, r *discoveryv3.DiscoveryRequest) {
	version, ok := t.rejectedVersion(streamKey{"sotw", id}, r.GetTypeUrl(), r.GetResponseNonce())
	if ok {
		r.VersionInfo = version
	}
	t.rejected(r.GetTypeUrl(), r.GetNode().GetId(), version, r.GetResponseNonce(), r.GetErrorDetail().GetMessage())
}

// deltaNACK counts and logs a delta client's rejection.
func (t *streamTracker) deltaNACK(id int64, r *discoveryv3.DeltaDiscoveryRequest) {
	version, _ := t.rejectedVersion(streamKey{"delta", id}, r.GetTypeUrl(), r.GetResponseNonce())
	t.rejected(r.GetTypeUrl(), r.GetNode().GetId(), version, r.GetResponseNonce(), r.GetErrorDetail().GetMessage())
}

// rejected counts a NACK, and logs it unless the client's rejection of that
// version of that type was logged already: Envoy rejects a version again
// each time it reconnects, and a fleet of them, each with an error message
// that may be 100 KB, must not flood the log. Validation makes a NACK rare;
// when one happens it is something render.Validate does not know about,
// worth a warning.
func (t *streamTracker) rejected(typeURL, node, version, nonce, msg string) {
	t.metrics.nacks.WithLabelValues(typeURL).Inc()
	key := nackKey{node: node, typeURL: typeURL}
	t.mu.Lock()
	last, seen := t.logged[key]
	if !seen && len(t.logged) >= maxLoggedNACKers {
		clear(t.logged)
	}
	t.logged[key] = version
	t.mu.Unlock()
	if seen && last == version {
		t.log.Debug("an xDS client rejected a response again", "type", typeLabel(typeURL), "node", node, "version", version, "nonce", nonce)
		return
	}
	t.log.Warn("an xDS client rejected a response; it keeps its previous configuration of this type until there is a newer one",
		"type", typeLabel(typeURL), "node", node, "version", version, "nonce", nonce, "error", msg)
}
