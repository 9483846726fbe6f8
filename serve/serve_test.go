package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/render"
	"github.com/contourc/contourc/translate"
)

// kuardCluster is the load assignment of the examples' Service.
const kuardCluster = "default/kuard/http"

// TestServeFileChanges follows one ADS client through every kind of file
// change serve must notice, each producing a new version that carries it.
func TestServeFileChanges(t *testing.T) {
	dir := copyExamples(t)
	ts := startServer(t, []string{dir})
	c := newADSClient(t, ts.XDSAddr().String())
	c.waitFor(t, "every type", (*xdsView).hasAll)
	c.inspect(func(v *xdsView) {
		if !v.hasDomain("kuard.internal.example.com") {
			t.Errorf("domains = %v", v.domains())
		}
		if _, ok := v.state(resourcev3.ListenerType).resources[adminListenerName]; ok {
			t.Error("the envoy-admin listener is served to ADS clients")
		}
	})

	domain := func(d string, present bool) {
		t.Helper()
		c.waitFor(t, fmt.Sprintf("domain %s present=%v", d, present), func(v *xdsView) bool { return v.hasDomain(d) == present })
	}

	t.Run("new file", func(t *testing.T) {
		writeFile(t, filepath.Join(dir, "new.yaml"), ingress("new", "new.example.com"))
		domain("new.example.com", true)
		// The examples' documents did not change: they are not decoded again.
		if !regexp.MustCompile(`"documents_reused":[1-9]`).MatchString(ts.logs.String()) {
			t.Errorf("no reload reused a decoded document:\n%s", ts.logs.String())
		}
		// And the reload says where its time went.
		if !regexp.MustCompile(`"load":"[0-9.]+[mµn]?s","translate":"[0-9.]+[mµn]?s","hash":"[0-9.]+[mµn]?s","validate":"[0-9.]+[mµn]?s"`).MatchString(ts.logs.String()) {
			t.Errorf("no reload logged its phases:\n%s", ts.logs.String())
		}
	})
	t.Run("save by rename", func(t *testing.T) {
		tmp := filepath.Join(dir, ".new.yaml.swp")
		writeFile(t, tmp, ingress("new", "renamed.example.com"))
		if err := os.Rename(tmp, filepath.Join(dir, "new.yaml")); err != nil {
			t.Fatal(err)
		}
		domain("renamed.example.com", true)
		domain("new.example.com", false)
	})
	t.Run("delete", func(t *testing.T) {
		if err := os.Remove(filepath.Join(dir, "new.yaml")); err != nil {
			t.Fatal(err)
		}
		domain("renamed.example.com", false)
	})
	t.Run("directories created later", func(t *testing.T) {
		writeFile(t, filepath.Join(dir, "a", "b", "c", "deep.yaml"), ingress("deep", "deep.example.com"))
		domain("deep.example.com", true)
		// The new directories are watched now: a later write in them counts.
		writeFile(t, filepath.Join(dir, "a", "b", "c", "deep.yaml"), ingress("deep", "deeper.example.com"))
		domain("deeper.example.com", true)
		if err := os.RemoveAll(filepath.Join(dir, "a")); err != nil {
			t.Fatal(err)
		}
		domain("deeper.example.com", false)
	})
	t.Run("ConfigMap volume update", func(t *testing.T) {
		cm := filepath.Join(dir, "cm")
		configMapVolume(t, cm, "1", ingress("cm", "cm-1.example.com"))
		domain("cm-1.example.com", true)
		configMapVolume(t, cm, "2", ingress("cm", "cm-2.example.com"))
		domain("cm-2.example.com", true)
		domain("cm-1.example.com", false)
	})
	t.Run("burst of files", func(t *testing.T) {
		const n = 40
		for i := range n {
			writeFile(t, filepath.Join(dir, "burst", fmt.Sprintf("%02d.yaml", i)), ingress(fmt.Sprintf("burst-%d", i), fmt.Sprintf("burst-%d.example.com", i)))
		}
		c.waitFor(t, "every file of the burst", func(v *xdsView) bool {
			for i := range n {
				if !v.hasDomain(fmt.Sprintf("burst-%d.example.com", i)) {
					return false
				}
			}
			return true
		})
	})
	t.Run("endpoints only", func(t *testing.T) {
		var before map[string]string
		c.inspect(func(v *xdsView) { before = versions(v) })
		kuard, err := os.ReadFile(filepath.Join(dir, "kuard.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "kuard.yaml"), strings.Replace(string(kuard), "10.244.2.23", "10.244.2.99", 1))
		c.waitFor(t, "the new endpoint", func(v *xdsView) bool { return slices.Contains(v.endpoints(kuardCluster), "10.244.2.99") })
		// Only endpoints changed, so no other type was sent again.
		c.inspect(func(v *xdsView) {
			after := versions(v)
			for typ, ver := range before {
				if typ != resourcev3.EndpointType && after[typ] != ver {
					t.Errorf("%s went from version %s to %s", typeLabel(typ), ver, after[typ])
				}
			}
		})
	})
}

// configMapVolume lays out dir as the kubelet's atomic writer does for a
// ConfigMap with one key, app.yaml, and updates it the same way: a new
// timestamped directory, a new ..data symlink renamed over the old one.
func configMapVolume(t *testing.T, dir, generation, content string) {
	t.Helper()
	ts := "..2026_01_01_00_00_0" + generation
	writeFile(t, filepath.Join(dir, ts, "app.yaml"), content)
	tmp := filepath.Join(dir, "..data_tmp")
	if err := os.Symlink(ts, tmp); err != nil {
		t.Fatal(err)
	}
	old, _ := os.Readlink(filepath.Join(dir, "..data"))
	if err := os.Rename(tmp, filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "app.yaml")); os.IsNotExist(err) {
		if err := os.Symlink(filepath.Join("..data", "app.yaml"), filepath.Join(dir, "app.yaml")); err != nil {
			t.Fatal(err)
		}
	}
	if old != "" {
		if err := os.RemoveAll(filepath.Join(dir, old)); err != nil {
			t.Fatal(err)
		}
	}
}

func versions(v *xdsView) map[string]string {
	out := map[string]string{}
	for _, t := range servedTypes {
		out[t] = v.version(t)
	}
	return out
}

// TestServeKeepsLastGood breaks the input in each way render refuses and
// checks that nothing is pushed, that the log, metrics and /debug/reload
// say why, that a client connecting meanwhile gets the last good
// configuration, and that fixing the input recovers by itself.
func TestServeKeepsLastGood(t *testing.T) {
	dir := copyExamples(t)
	var failValidation atomic.Bool
	ts := startServerHook(t, []string{dir}, func(s *Server) {
		s.validate = func(r *translate.Resources) error {
			if failValidation.Load() {
				return errors.New(`listener "ingress_http": invalid`)
			}
			return render.Validate(r)
		}
	})
	good := ts.waitReady(t)
	c := newADSClient(t, ts.XDSAddr().String())
	c.waitFor(t, "every type", (*xdsView).hasAll)

	broken := filepath.Join(dir, "broken.yaml")
	breakages := []struct {
		name  string
		apply func()
		want  string // in the error
	}{
		{"unparsable", func() { writeFile(t, broken, "kind: Ingress\nmetadata: [\n") }, "broken.yaml:"},
		{"refused by the API server", func() { writeFile(t, broken, ingress("Bad_Name", "bad.example.com")) }, "broken.yaml:4: Ingress default/Bad_Name"},
		{"unreadable", func() {
			os.Remove(broken)
			if err := os.Symlink(filepath.Join(dir, "missing"), broken); err != nil {
				t.Fatal(err)
			}
		}, "broken.yaml: no such file or directory"},
	}
	for i, b := range breakages {
		t.Run(b.name, func(t *testing.T) {
			var mark int
			c.inspect(func(v *xdsView) { mark = len(v.log) })
			b.apply()
			// Reloads for earlier events may come first; the one that
			// read the broken file fails and says why.
			waitFor(t, "a reload failing with "+b.want, func() bool {
				rep := ts.reports.last()
				return !rep.OK && strings.Contains(strings.Join(rep.Errors, "\n"), b.want)
			})
			if ts.Version() != good {
				t.Errorf("serving %s, want the last good %s", ts.Version(), good)
			}
			if v := ts.metric(t, "contourc_last_reload_successful"); v != 0 {
				t.Errorf("contourc_last_reload_successful = %v", v)
			}
			if !strings.Contains(ts.logs.String(), b.want) {
				t.Errorf("the log does not say %q:\n%s", b.want, ts.logs)
			}
			code, body := ts.get(t, "/readyz")
			if code != http.StatusOK || !strings.Contains(body, "the last reload failed") {
				t.Errorf("/readyz = %d %q", code, body)
			}
			_, body = ts.get(t, "/debug/reload")
			if !strings.Contains(body, b.want) {
				t.Errorf("/debug/reload = %s", body)
			}

			// A client arriving now gets the last good configuration.
			late := newADSClient(t, ts.XDSAddr().String())
			late.waitFor(t, "every type", (*xdsView).hasAll)
			var lateVersions map[string]string
			late.inspect(func(v *xdsView) { lateVersions = versions(v) })
			c.inspect(func(v *xdsView) {
				if got := versions(v); fmt.Sprint(got) != fmt.Sprint(lateVersions) {
					t.Errorf("late client has %v, the first %v", lateVersions, got)
				}
			})
			late.close()

			// Fixing the file (with a change) pushes the fix, and nothing
			// was pushed in between.
			fixed := fmt.Sprintf("fixed-%d.example.com", i)
			os.Remove(broken)
			writeFile(t, broken, ingress("fixed", fixed))
			c.waitFor(t, "the fix", func(v *xdsView) bool { return v.hasDomain(fixed) })
			c.inspect(func(v *xdsView) {
				final := versions(v)
				for _, r := range v.log[mark:] {
					if r.version != final[r.typeURL] {
						t.Errorf("a %s response with version %s was pushed while the input was broken", typeLabel(r.typeURL), r.version)
					}
				}
			})
			waitFor(t, "a successful reload", func() bool { return ts.metric(t, "contourc_last_reload_successful") == 1 })
			good = ts.Version()
		})
	}

	t.Run("invalid resource", func(t *testing.T) {
		failValidation.Store(true)
		ts.Reload()
		waitFor(t, "a reload failing validation", func() bool {
			rep := ts.reports.last()
			return !rep.OK && strings.Contains(strings.Join(rep.Errors, "\n"), `listener "ingress_http": invalid`)
		})
		if ts.Version() != good {
			t.Errorf("serving %s, want %s", ts.Version(), good)
		}
		failValidation.Store(false)
		ts.Reload()
		waitFor(t, "a successful reload", func() bool { return ts.reports.last().OK })
		if ts.Version() != good {
			t.Errorf("after the fix: serving %s, want %s", ts.Version(), good)
		}
	})
}

// TestServeInvalidObjectsAreServed checks that an object Contour would only
// mark invalid in its status does not stop the rest from being served.
func TestServeInvalidObjectsAreServed(t *testing.T) {
	dir := copyExamples(t)
	writeFile(t, filepath.Join(dir, "proxy.yaml"), `apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: broken, namespace: default}
spec:
  virtualhost: {fqdn: broken.example.com}
  routes:
  - services: [{name: missing, port: 80}]
`)
	ts := startServer(t, []string{dir})
	ts.waitReady(t)
	if v := ts.metric(t, `contourc_objects{kind="HTTPProxy",valid="false"}`); v != 1 {
		t.Errorf("invalid HTTPProxies = %v", v)
	}
	if v := ts.metric(t, `contourc_objects{kind="Ingress",valid="true"}`); v != 2 {
		t.Errorf("valid Ingresses = %v", v)
	}
	_, body := ts.get(t, "/debug/status")
	var list []map[string]any
	err := json.Unmarshal([]byte(body), &list)
	if err == nil {
		// The examples' Ingresses are listed too, with their findings.
		list = slices.DeleteFunc(list, func(o map[string]any) bool { return o["kind"] == "Ingress" })
	}
	if err != nil || len(list) != 1 || list[0]["name"] != "broken" {
		t.Errorf("/debug/status = %s (%v)", body, err)
	}
	if !strings.Contains(ts.logs.String(), "proxy.yaml:1: HTTPProxy default/broken: invalid") {
		t.Errorf("no warning about the invalid HTTPProxy:\n%s", ts.logs)
	}
}

// TestServeStartsBroken starts on input that does not load: nothing is
// served and the server is not ready until the input is fixed.
func TestServeStartsBroken(t *testing.T) {
	dir := copyExamples(t)
	writeFile(t, filepath.Join(dir, "broken.yaml"), "kind: [")
	ts := startServer(t, []string{dir})
	ts.waitReloadsAfter(t, 0)
	if code, body := ts.get(t, "/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz = %d %q", code, body)
	}
	if code, _ := ts.get(t, "/debug/xds"); code != http.StatusServiceUnavailable {
		t.Errorf("/debug/xds = %d", code)
	}
	c := newADSClient(t, ts.XDSAddr().String())
	writeFile(t, filepath.Join(dir, "broken.yaml"), ingress("fixed", "fixed.example.com"))
	c.waitFor(t, "the fixed configuration", func(v *xdsView) bool { return v.hasAll() && v.hasDomain("fixed.example.com") })
	if code, _ := ts.get(t, "/readyz"); code != http.StatusOK {
		t.Errorf("/readyz = %d", code)
	}
}

// TestServeReload checks that Reload (SIGHUP) reads files no event told
// about: here the target of a symlink outside the watched directories.
func TestServeReload(t *testing.T) {
	dir := copyExamples(t)
	elsewhere := t.TempDir()
	target := filepath.Join(elsewhere, "target.yaml")
	writeFile(t, target, ingress("linked", "linked-1.example.com"))
	if err := os.Symlink(target, filepath.Join(dir, "linked.yaml")); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, []string{dir})
	c := newADSClient(t, ts.XDSAddr().String())
	c.waitFor(t, "the linked file", func(v *xdsView) bool { return v.hasDomain("linked-1.example.com") })
	writeFile(t, target, ingress("linked", "linked-2.example.com"))
	ts.Reload()
	c.waitFor(t, "the reloaded file", func(v *xdsView) bool { return v.hasDomain("linked-2.example.com") })
}

// TestServeShutdown stops a server with clients connected: their streams
// end, Run returns, and (TestMain) nothing is left running.
func TestServeShutdown(t *testing.T) {
	ts := startServer(t, []string{copyExamples(t)})
	ads := newADSClient(t, ts.XDSAddr().String())
	delta := newDeltaClient(t, ts.XDSAddr().String())
	ads.waitFor(t, "every type", (*xdsView).hasAll)
	delta.waitFor(t, "every type", (*xdsView).hasAll)
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the streams to end", func() bool { return ads.streamErr() != nil })
	if err := ads.streamErr(); !endedCleanly(err) {
		t.Errorf("ADS stream ended with %v", err)
	}
}

// TestServeConfigSourceADS checks the served form for ADS clients: every
// config source is ADS, inside typed configs too.
func TestServeConfigSourceADS(t *testing.T) {
	ts := startServer(t, []string{copyExamples(t)})
	c := newADSClient(t, ts.XDSAddr().String())
	c.waitFor(t, "every type", (*xdsView).hasAll)
	c.inspect(func(v *xdsView) {
		rds := 0
		for _, m := range v.state(resourcev3.ListenerType).resources {
			_, _ = rewrite(m, func(msg protoreflect.Message) bool {
				if h, ok := msg.Interface().(*hcmv3.HttpConnectionManager); ok && h.GetRds() != nil {
					rds++
					if h.GetRds().GetConfigSource().GetAds() == nil {
						t.Errorf("%s: RDS config source %v", m.(*listenerv3.Listener).GetName(), h.GetRds().GetConfigSource())
					}
				}
				return false
			})
			if pointsAtContourAnywhere(m) {
				t.Errorf("%s still points at the contour cluster", m.(*listenerv3.Listener).GetName())
			}
		}
		if rds == 0 {
			t.Error("no listener uses RDS")
		}
		for _, m := range v.state(resourcev3.ClusterType).resources {
			if pointsAtContourAnywhere(m) {
				t.Errorf("cluster %s still points at the contour cluster", resourceNameOf(m))
			}
		}
	})
}

func pointsAtContour(api *corev3.ApiConfigSource) bool {
	for _, g := range api.GetGrpcServices() {
		if g.GetEnvoyGrpc().GetClusterName() == xdsClusterName {
			return true
		}
	}
	return false
}

func pointsAtContourAnywhere(m proto.Message) bool {
	found := false
	_, _ = rewrite(m, func(msg protoreflect.Message) bool {
		if cs, ok := msg.Interface().(interface {
			GetApiConfigSource() *corev3.ApiConfigSource
		}); ok && pointsAtContour(cs.GetApiConfigSource()) {
			found = true
		}
		return false
	})
	return found
}

// TestServeRereadsOptions checks that Options is called at every reload and
// that a file in Config.Watch (Contour's configuration file, for the CLI)
// triggers one, without being read as a manifest.
func TestServeRereadsOptions(t *testing.T) {
	dir := copyExamples(t)
	writeFile(t, filepath.Join(dir, "classy.yaml"), strings.Replace(ingress("classy", "classy.example.com"),
		"spec:\n", "spec:\n  ingressClassName: edge\n", 1))
	settings := filepath.Join(t.TempDir(), "class.txt")
	writeFile(t, settings, "internal")
	ts := startServer(t, []string{dir}, func(c *Config) {
		c.Watch = []string{settings}
		c.Options = func() (translate.Options, error) {
			b, err := os.ReadFile(settings)
			return translate.Options{IngressClassNames: []string{strings.TrimSpace(string(b))}}, err
		}
	})
	c := newADSClient(t, ts.XDSAddr().String())
	// No Ingress has class "internal": only listeners are served.
	c.waitFor(t, "listeners", func(v *xdsView) bool { return v.version(resourcev3.ListenerType) != "" })
	c.inspect(func(v *xdsView) {
		if v.hasDomain("classy.example.com") {
			t.Error("an Ingress of another class is served")
		}
	})
	writeFile(t, settings, "edge")
	c.waitFor(t, "the Ingress of the new class", func(v *xdsView) bool { return v.hasDomain("classy.example.com") })
}

// TestServeValidatesOnlyChangedResources checks that a reload validates
// the resources whose content changed, and not those already served as
// they are.
func TestServeValidatesOnlyChangedResources(t *testing.T) {
	dir := copyExamples(t)
	var mu sync.Mutex
	var validated [][]string // resource names, per validation
	ts := startServerHook(t, []string{dir}, func(s *Server) {
		s.validate = func(r *translate.Resources) error {
			var names []string
			for _, rc := range r.RouteConfigs {
				names = append(names, "route/"+rc.GetName())
			}
			for _, c := range r.Clusters {
				names = append(names, "cluster/"+c.GetName())
			}
			mu.Lock()
			validated = append(validated, names)
			mu.Unlock()
			return render.Validate(r)
		}
	})
	first := ts.waitReady(t)
	writeFile(t, filepath.Join(dir, "added.yaml"), ingress("added", "added.example.com"))
	waitFor(t, "a new configuration", func() bool { return ts.Version() != first })

	mu.Lock()
	defer mu.Unlock()
	// A write may give more than one reload; the later ones change
	// nothing and validate nothing.
	all, changed := validated[0], false
	for _, names := range validated[1:] {
		changed = changed || slices.Contains(names, "route/ingress_http")
		if len(names) >= len(all) {
			t.Errorf("a reload validated %d resources, as many as the first (%d): %v", len(names), len(all), names)
		}
	}
	if !changed {
		t.Errorf("the changed route configuration was not validated: %v", validated[1:])
	}
}

// TestJudgeCountsByKindAndValidity: objects are counted by kind and
// validity whatever their order, and the invalid ones listed.
func TestJudgeCountsByKindAndValidity(t *testing.T) {
	obj := func(kind, name string) loader.Object {
		return loader.Object{Kind: kind, Obj: &metav1.ObjectMeta{Namespace: "ns", Name: name}}
	}
	objs := []loader.Object{obj("Service", "a"), obj("HTTPProxy", "bad"), obj("Service", "b"),
		obj("HTTPProxy", "good"), obj("HTTPProxy", "bad2"), obj("Secret", "s"), obj("Service", "c")}
	s := &Server{cfg: Config{Judge: func(st translate.ObjectStatus) (bool, string) {
		return !strings.HasPrefix(st.Name, "bad"), "it is bad"
	}}}
	var status []translate.ObjectStatus
	for _, o := range objs {
		status = append(status, translate.ObjectStatus{Kind: o.Kind, Namespace: "ns", Name: o.Obj.GetName()})
	}
	counts, invalid := s.judge(objs, status)
	want := []objectCount{{"HTTPProxy", true, 1}, {"HTTPProxy", false, 2}, {"Secret", true, 1}, {"Service", true, 3}}
	if !slices.Equal(counts, want) {
		t.Errorf("counts %v, want %v", counts, want)
	}
	if len(invalid) != 2 || !strings.Contains(invalid[0], "HTTPProxy ns/bad: it is bad") {
		t.Errorf("invalid %q", invalid)
	}
	// Without a judge every object is valid.
	s.cfg.Judge = nil
	counts, _ = s.judge(objs, status)
	want = []objectCount{{"HTTPProxy", true, 3}, {"Secret", true, 1}, {"Service", true, 3}}
	if !slices.Equal(counts, want) {
		t.Errorf("without a judge: counts %v, want %v", counts, want)
	}
}
