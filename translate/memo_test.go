package translate

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	contourv1 "github.com/projectcontour/contour/apis/projectcontour/v1"
	"google.golang.org/protobuf/proto"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate/dag"
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
		if objs := proxyInputs(in.objs); len(objs) < len(in.objs) {
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
	t.Logf("%d inputs; the HTTPProxy processor's work was taken from the memo whole %d times, a root's on its own %d times",
		len(all), memo.replayedProxies.Load(), memo.replayedRoots.Load())
	if memo.replayedProxies.Load() < int64(len(all)) || memo.replayedRoots.Load() == 0 {
		t.Errorf("the memo was used too little: %d whole replays and %d root replays for %d inputs",
			memo.replayedProxies.Load(), memo.replayedRoots.Load(), len(all))
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
	good := mkTLSSecret(t, "default", "good")
	broken := mkSecret("default", "broken", corev1.SecretTypeTLS, map[string][]byte{
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
	mended := mkSecret("default", "broken", corev1.SecretTypeTLS, good.Data)
	spoilt := mkSecret("default", "good", corev1.SecretTypeTLS, broken.Data)
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

// TestMemoVerdicts checks what a Memo remembers: a verdict by validator
// and content, kept for the next translation and dropped after one that
// did not use it.
func TestMemoVerdicts(t *testing.T) {
	calls := 0
	invalid := errors.New("invalid")
	validate := func(s *corev1.Secret) error {
		calls++
		if string(s.Data["k"]) == "bad" {
			return invalid
		}
		return nil
	}
	other := func(*corev1.Secret) error { calls++; return nil }
	secret := func(v string) *corev1.Secret {
		return &corev1.Secret{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"k": []byte(v)}}
	}
	ptr := func(f func(*corev1.Secret) error) uintptr { return reflect.ValueOf(f).Pointer() }
	m := NewMemo()
	check := func(what string, s *corev1.Secret, f func(*corev1.Secret) error, wantErr error, wantCalls int) {
		t.Helper()
		before := calls
		if err := m.verdicts.verdict(s, ptr(f), f); err != wantErr {
			t.Errorf("%s: verdict %v, want %v", what, err, wantErr)
		}
		if calls-before != wantCalls {
			t.Errorf("%s: validated %d time(s), want %d", what, calls-before, wantCalls)
		}
	}
	m.begin()
	check("first sight", secret("good"), validate, nil, 1)
	check("same content, another object", secret("good"), validate, nil, 0)
	check("invalid content", secret("bad"), validate, invalid, 1)
	check("same content, another validator", secret("good"), other, nil, 1)
	check("the content's type changes it", &corev1.Secret{Type: corev1.SecretTypeTLS, Data: map[string][]byte{"k": []byte("good")}}, validate, nil, 1)
	m.begin()
	check("kept for the next translation", secret("bad"), validate, invalid, 0)
	m.begin()
	check("used by the last one, kept", secret("bad"), validate, invalid, 0)
	check("unused by the last one, dropped", secret("good"), validate, nil, 1)

	// The same object again is answered without hashing its content:
	// objects are never changed once loaded, so a change made in place
	// here (which no caller makes) shows which way the answer came.
	same := secret("another")
	m.begin()
	check("an object, first seen", same, validate, nil, 1)
	same.Data["k"] = []byte("bad")
	check("the same object", same, validate, nil, 0)
	m.begin()
	check("the same object, next translation", same, validate, nil, 0)

	// A translation without a Memo keeps verdicts of its own.
	var own secretVerdicts
	before := calls
	own.begin(nil)
	_ = own.verdict(secret("good"), ptr(validate), validate)
	_ = own.verdict(secret("good"), ptr(validate), validate)
	if calls-before != 1 {
		t.Errorf("a translation's own verdicts: validated %d times, want 1", calls-before)
	}
}

// TestSecretContent checks that the content hash tells apart what the
// validators could tell apart, however the bytes fall between keys.
func TestSecretContent(t *testing.T) {
	contents := []*corev1.Secret{
		{Type: corev1.SecretTypeOpaque},
		{Type: corev1.SecretTypeTLS},
		{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"a": nil}},
		{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"a": []byte("bc")}},
		{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"ab": []byte("c")}},
		{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"a": []byte("b"), "c": nil}},
		{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"a": []byte("b"), "c": []byte("d")}},
		{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"a": []byte("d"), "c": []byte("b")}},
	}
	seen := map[[32]byte]int{}
	for i, s := range contents {
		sum := secretContent(s)
		if j, ok := seen[sum]; ok {
			t.Errorf("contents %d and %d hash alike", j, i)
		}
		seen[sum] = i
	}
	a := &corev1.Secret{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"x": []byte("1"), "y": []byte("2"), "z": []byte("3")}}
	for range 20 {
		b := &corev1.Secret{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"z": []byte("3"), "y": []byte("2"), "x": []byte("1")}}
		if secretContent(a) != secretContent(b) {
			t.Fatal("the same content hashes differently")
		}
	}
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

// TestVerdictsKeptAcrossPatches: while the objects are the last ones
// patched, the verdicts on Secret objects still there are kept, though no
// translation looks them up (its HTTPProxies replayed), and those on
// removed ones are dropped; objects indexed anew drop verdicts unused by
// the last translation, as before.
func TestVerdictsKeptAcrossPatches(t *testing.T) {
	calls := 0
	validate := func(*corev1.Secret) error { calls++; return nil }
	validator := reflect.ValueOf(validate).Pointer()
	kept := &corev1.Secret{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"k": []byte("kept")}}
	removed := &corev1.Secret{Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"k": []byte("removed")}}
	var v secretVerdicts
	v.begin(nil)
	_ = v.verdict(kept, validator, validate)
	_ = v.verdict(removed, validator, validate)
	patch := &indexedObjects{patched: true, removed: []loader.Object{{Kind: "Secret", Obj: removed}}}
	v.begin(patch)
	v.begin(patch)
	if !v.rememberSome() {
		t.Fatal("no verdicts remembered after two patched translations")
	}
	for _, byObject := range []map[objectVerdictKey]error{v.currentByObject, v.previousByObject} {
		if _, ok := byObject[objectVerdictKey{validator, removed}]; ok {
			t.Error("the verdict on a removed Secret is kept")
		}
	}
	calls = 0
	_ = v.verdict(kept, validator, validate)
	if calls != 0 {
		t.Errorf("a kept Secret was validated again %d time(s) after two patched translations", calls)
	}
	v.begin(nil)
	v.begin(nil)
	_ = v.verdict(kept, validator, validate)
	if calls != 1 {
		t.Errorf("objects indexed anew twice: validated %d time(s), want 1", calls)
	}
}

// TestVhostMemo: a virtual host built from the same as the last time is
// the very same message, one built from another is built again, and one
// a translation did not ask for is dropped at the next.
func TestVhostMemo(t *testing.T) {
	host := func(prefixes ...string) *dag.VirtualHost {
		vh := &dag.VirtualHost{Name: "www.example.com", Routes: map[string]*dag.Route{}}
		for _, p := range prefixes {
			vh.AddRoute(&dag.Route{PathMatch: dag.PathMatch{Kind: dag.PathPrefix, Value: p},
				Clusters: []*dag.Cluster{{Upstream: &dag.Service{Namespace: "ns", Name: "app"}}}})
		}
		vh.Ordered()
		return vh
	}
	var m vhostMemo
	m.begin()
	first := m.virtualHost("ingress_http", host("/"), false)
	m.begin()
	if again := m.virtualHost("ingress_http", host("/"), false); again != first {
		t.Error("a virtual host built from the same was built again")
	}
	if other := m.virtualHost("other", host("/"), false); other == first {
		t.Error("a virtual host of another table is the first table's")
	}
	m.begin()
	changed := m.virtualHost("ingress_http", host("/", "/api"), false)
	if changed == first || len(changed.Routes) != 2 {
		t.Error("a virtual host built from another was not built again")
	}
	m.begin() // the last translation did not ask for "other"
	m.begin() // nor this one for anything
	if len(m.records) != 0 {
		t.Errorf("%d records kept that no translation asked for", len(m.records))
	}
}
