package translate

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	"google.golang.org/protobuf/proto"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/httpproxy"
	"github.com/contourc/contourc/translate/internal/testpki"
)

// TestMemoChangesNoResult translates every golden input, one after the
// other and then all again, with one Memo, as serve's reloads would across
// edits, and checks each result against a translation without one:
// resources, status and notices.
func TestMemoChangesNoResult(t *testing.T) {
	inputs, _ := filepath.Glob("../testdata/golden/*/input")
	if len(inputs) == 0 {
		t.Fatal("no golden inputs")
	}
	checkMemoAcross(t, inputs, false)
}

// checkMemoAcross translates each of inputs twice with one Memo, then
// without the objects the HTTPProxy processor does not read (so that its
// work is taken from the Memo when nothing else rules that out), then
// once more whole, and finally all of them again in reverse; it checks
// every result against a translation without a Memo. With skipRefused,
// inputs the loader or translate refuse are left out; otherwise they fail
// the test.
func checkMemoAcross(t *testing.T, inputs []string, skipRefused bool) {
	t.Helper()
	type input struct {
		name string
		objs []loader.Object
		want string
	}
	var all []input
	for _, in := range inputs {
		loaded, err := loader.Load([]string{in}, loader.Options{})
		if err == nil {
			_, err = Translate(loaded.Objects, Options{})
		}
		switch {
		case err != nil && skipRefused:
			continue
		case err != nil:
			t.Fatalf("%s: %v", in, err)
		}
		all = append(all, input{in, loaded.Objects, translatedForMemoTest(t, loaded.Objects, nil)})
	}
	memo := NewMemo()
	check := func(in input) {
		t.Helper()
		if got := translatedForMemoTest(t, in.objs, memo); got != in.want {
			t.Fatalf("%s: a translation with a memo differs from one without", in.name)
		}
	}
	// variant checks in, changed as change says, then in again.
	variant := func(in input, what string, objs []loader.Object) {
		t.Helper()
		if _, err := Translate(objs, Options{}); err == nil {
			check(input{in.name + " " + what, objs, translatedForMemoTest(t, objs, nil)})
			check(in)
		}
	}
	for _, in := range all {
		check(in)
		check(in)
		if objs := httpproxy.Inputs(in.objs); len(objs) < len(in.objs) {
			variant(in, "without the objects HTTPProxies do not read", objs)
		}
		// Each HTTPProxy gone, and changed: the other roots' work can be
		// taken from the memo on its own.
		for i, o := range in.objs {
			proxy, ok := o.Obj.(*contourv1.HTTPProxy)
			if !ok {
				continue
			}
			variant(in, "without HTTPProxy "+proxy.Name, slices.Delete(slices.Clone(in.objs), i, i+1))
			changed := proxy.DeepCopy()
			changed.Generation++
			objs := slices.Clone(in.objs)
			objs[i].Obj = changed
			variant(in, "with HTTPProxy "+proxy.Name+" changed", objs)
		}
	}
	for i := len(all) - 1; i >= 0; i-- {
		check(all[i])
	}
	whole, roots := memo.proxies.Replays()
	t.Logf("%d inputs; the HTTPProxy processor's work was taken from the memo whole %d times, a root's on its own %d times",
		len(all), whole, roots)
	if whole < int64(len(all)) || roots == 0 {
		t.Errorf("the memo was used too little: %d whole replays and %d root replays for %d inputs",
			whole, roots, len(all))
	}
}

// TestMemoReuses checks that translating the same input again with a
// Memo gives back the very same route tables and filter chains: serve
// relies on it to skip hashing and validating them.
func TestMemoReuses(t *testing.T) {
	loaded, err := loader.Load([]string{"../testdata/golden/tls-delegation/input"}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	memo := NewMemo()
	first, err := Translate(loaded.Objects, Options{Memo: memo})
	if err != nil {
		t.Fatal(err)
	}
	second, err := Translate(loaded.Objects, Options{Memo: memo})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Resources.RouteConfigs) == 0 || len(second.Resources.RouteConfigs) != len(first.Resources.RouteConfigs) {
		t.Fatalf("%d and %d route tables", len(first.Resources.RouteConfigs), len(second.Resources.RouteConfigs))
	}
	for i, rc := range second.Resources.RouteConfigs {
		if rc != first.Resources.RouteConfigs[i] {
			t.Errorf("route table %s was built again", rc.GetName())
		}
	}
	chains := 0
	for i, l := range second.Resources.Listeners {
		for j, fc := range l.GetFilterChains() {
			if len(fc.GetFilterChainMatch().GetServerNames()) == 0 {
				continue
			}
			chains++
			if fc != first.Resources.Listeners[i].GetFilterChains()[j] {
				t.Errorf("listener %s: filter chain %s was built again", l.GetName(), fc.GetName())
			}
		}
	}
	if chains == 0 {
		t.Fatal("no secure filter chain: the test checks nothing")
	}
	same := func(kind string, a, b []proto.Message) {
		t.Helper()
		if len(a) == 0 || len(a) != len(b) {
			t.Fatalf("%d and %d %s", len(a), len(b), kind)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Errorf("a %s was built again", kind)
			}
		}
	}
	same("cluster", asMessages(first.Resources.Clusters), asMessages(second.Resources.Clusters))
	same("load assignment", asMessages(first.Resources.Endpoints), asMessages(second.Resources.Endpoints))
	same("secret", asMessages(first.Resources.Secrets), asMessages(second.Resources.Secrets))
}

// TestMemoFollowsSecretContent translates serving certificates, one of
// them broken, with a Memo, then again after the broken one is mended and
// a good one broken, as a reload after an edit would: each translation
// must match one without a Memo.
func TestMemoFollowsSecretContent(t *testing.T) {
	good := testpki.TLSSecret(t, "default", "good")
	broken := testpki.Secret("default", "broken", corev1.SecretTypeTLS, map[string][]byte{
		corev1.TLSCertKey: []byte("not a certificate"), corev1.TLSPrivateKeyKey: []byte("not a key"),
	})
	objects := func(secrets ...*corev1.Secret) []loader.Object {
		objs := []metav1.Object{mkService("default", "app", mkPort("http", 80))}
		for _, s := range secrets {
			objs = append(objs, s, mkIngress("default", s.Name,
				ingTLS(s.Name, s.Name+".example.com"),
				ingRule(s.Name+".example.com", ingPath(networkingv1.PathTypePrefix, "/", "app", 80))))
		}
		return mkObjects(t, objs...)
	}
	memo := NewMemo()
	before := objects(good, broken)
	want := translatedForMemoTest(t, before, nil)
	for range 2 {
		if got := translatedForMemoTest(t, before, memo); got != want {
			t.Fatal("a translation with a memo differs from one without")
		}
	}
	mended := testpki.Secret("default", "broken", corev1.SecretTypeTLS, good.Data)
	spoilt := testpki.Secret("default", "good", corev1.SecretTypeTLS, broken.Data)
	after := objects(spoilt, mended)
	want = translatedForMemoTest(t, after, nil)
	if want == translatedForMemoTest(t, before, nil) {
		t.Fatal("the edit changes nothing: the test checks nothing")
	}
	if got := translatedForMemoTest(t, after, memo); got != want {
		t.Error("after the Secrets changed, a translation with a memo differs from one without")
	}
}

// TestMemoFollowsOptions translates one input with one Memo under
// options that change the settings filter chains and clusters read (the
// access log format, the connect timeout), and the clusters' DNS domain,
// back and forth: each
// translation must match one without a Memo.
func TestMemoFollowsOptions(t *testing.T) {
	loaded, err := loader.Load([]string{"../testdata/golden/tls-delegation/input"}, loader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	jsonLogs := Options{Flags: ServeFlags{AccessLogFormat: "json"}}
	dns := Options{UpstreamDNS: "cluster.local"}
	slowConnect := Options{Config: &loader.ContourConfig{Timeouts: loader.ConfigTimeouts{ConnectTimeout: "9s"}}}
	memo := NewMemo()
	for _, opts := range []Options{{}, jsonLogs, {}, dns, slowConnect, jsonLogs, {}} {
		want := translatedWithOptions(t, loaded.Objects, opts)
		opts.Memo = memo
		if got := translatedWithOptions(t, loaded.Objects, opts); got != want {
			t.Fatalf("with options %+v and a memo, the translation differs from one without", opts)
		}
	}
}

func translatedForMemoTest(t *testing.T, objs []loader.Object, memo *Memo) string {
	t.Helper()
	return translatedWithOptions(t, objs, Options{Memo: memo})
}

func translatedWithOptions(t *testing.T, objs []loader.Object, opts Options) string {
	t.Helper()
	res, err := Translate(objs, opts)
	if err != nil {
		t.Fatal(err)
	}
	status, err := json.Marshal(res.Status)
	if err != nil {
		t.Fatal(err)
	}
	notices, _ := json.Marshal(res.Notices)
	return resourcesJSON(t, res.Resources) + string(status) + string(notices)
}

// TestMemoOnCorpus is TestMemoChangesNoResult on the shared parity
// corpus, when it is there.
func TestMemoOnCorpus(t *testing.T) {
	inputs, _ := filepath.Glob("../../shared/conformance/*/*/input")
	if len(inputs) == 0 {
		t.Skip("../shared/conformance not present")
	}
	if testing.Short() {
		// Every tenth, from all over the corpus: the first tenth
		// has no HTTPProxy whose root can be replayed on its own.
		var some []string
		for i := 0; i < len(inputs); i += 10 {
			some = append(some, inputs[i])
		}
		inputs = some
	}
	checkMemoAcross(t, inputs, true)
}
