package main

// Decoding and comparing render -o json output. The comparison forgives what
// the shared parity tool forgives: snake_case or lowerCamelCase field names,
// which xDS transport a ConfigSource names, Lua source text, and the order of
// endpoints.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// xdsResources is render -o json output decoded: type URL -> resource name ->
// resource in canonical form.
type xdsResources map[string]map[string]any

// decodeXDS is parseXDS for tests that cannot go on without it.
func decodeXDS(t *testing.T, b []byte) xdsResources {
	t.Helper()
	x, err := parseXDS(b)
	if err != nil {
		t.Fatalf("render -o json output: %v", err)
	}
	return x
}

func parseXDS(b []byte) (xdsResources, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	out := xdsResources{}
	for typeURL, v := range raw {
		if !strings.HasPrefix(typeURL, "type.googleapis.com/") {
			continue // not a resource list
		}
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: not a list of resources", typeURL)
		}
		byName := map[string]any{}
		for _, r := range list {
			res, ok := canonical(r, "", false).(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: a resource is not an object", typeURL)
			}
			delete(res, "@type") // present when resources are written as Any
			name, _ := res["name"].(string)
			if name == "" {
				name, _ = res["cluster_name"].(string)
			}
			byName[name] = res
		}
		out[typeURL] = byName
	}
	return out, nil
}

// lowerCamel matches field names protojson writes in lowerCamelCase. Map keys
// (filter names, metadata keys) hold dots or dashes and are left alone.
var lowerCamel = regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)

func snakeCase(key string) string {
	if !lowerCamel.MatchString(key) {
		return key
	}
	var b strings.Builder
	for _, r := range key {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// canonical rewrites decoded JSON so that equivalent xDS compares equal.
// key is the field v sits in; lua says v is inside a Lua filter config.
func canonical(v any, key string, lua bool) any {
	switch x := v.(type) {
	case map[string]any:
		if t, _ := x["@type"].(string); strings.HasSuffix(t, ".lua.v3.Lua") || strings.HasSuffix(t, ".lua.v3.LuaPerRoute") {
			lua = true
		}
		out := make(map[string]any, len(x))
		for k, val := range x {
			k = snakeCase(k)
			if lua && k == "inline_string" {
				out[k] = "<lua source>"
				continue
			}
			out[k] = canonical(val, k, lua)
		}
		if isConfigSource(out) {
			return "<xds config source>"
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = canonical(val, key, lua)
		}
		if key == "lb_endpoints" {
			sort.Slice(out, func(i, j int) bool { return jsonText(out[i]) < jsonText(out[j]) })
		}
		return out
	case json.Number:
		// protojson writes 64-bit integers as strings: compare numbers as text.
		return x.String()
	default:
		return v
	}
}

// isConfigSource says whether m is a ConfigSource pointing at an xDS server,
// whichever transport it names.
func isConfigSource(m map[string]any) bool {
	_, ads := m["ads"]
	_, api := m["api_config_source"]
	if !ads && !api {
		return false
	}
	for k := range m {
		switch k {
		case "ads", "api_config_source", "resource_api_version", "initial_fetch_timeout":
		default:
			return false
		}
	}
	return true
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// compareXDS lists the resources that differ, one line each.
func compareXDS(want, got xdsResources) []string {
	var diffs []string
	for _, typeURL := range unionKeys(want, got) {
		short := typeURL[strings.LastIndex(typeURL, ".")+1:]
		for _, name := range unionKeys(want[typeURL], got[typeURL]) {
			w, inWant := want[typeURL][name]
			g, inGot := got[typeURL][name]
			switch {
			case !inGot:
				diffs = append(diffs, fmt.Sprintf("%s %q: missing", short, name))
			case !inWant:
				diffs = append(diffs, fmt.Sprintf("%s %q: not expected", short, name))
			default:
				if where := firstDiff(w, g, "$"); where != "" {
					diffs = append(diffs, fmt.Sprintf("%s %q: differs at %s", short, name, where))
				}
			}
		}
	}
	return diffs
}

// firstDiff returns where a and b first differ ("" when they do not).
func firstDiff(want, got any, path string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		for _, k := range unionKeys(w, g) {
			wv, inW := w[k]
			gv, inG := g[k]
			switch {
			case !inW:
				return fmt.Sprintf("%s.%s (not expected: %.120s)", path, k, jsonText(gv))
			case !inG:
				return fmt.Sprintf("%s.%s (missing, want %.120s)", path, k, jsonText(wv))
			}
			if d := firstDiff(wv, gv, path+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			break
		}
		for i := 0; i < len(w) && i < len(g); i++ {
			if d := firstDiff(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		if len(w) != len(g) {
			return fmt.Sprintf("%s (want %d items, got %d)", path, len(w), len(g))
		}
		return ""
	}
	if jsonText(want) == jsonText(got) {
		return ""
	}
	return fmt.Sprintf("%s (want %.120s, got %.120s)", path, jsonText(want), jsonText(got))
}

func unionKeys[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// jsonAt walks decoded JSON by field names and list indexes; nil when the
// path does not exist.
func jsonAt(v any, path ...any) any {
	for _, p := range path {
		switch p := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[p]
		case int:
			l, _ := v.([]any)
			if p >= len(l) {
				return nil
			}
			v = l[p]
		}
	}
	return v
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// TestCanonicalXDS checks the comparison itself: what it forgives and what
// it does not.
func TestCanonicalXDS(t *testing.T) {
	const want = `{"type.googleapis.com/envoy.config.cluster.v3.Cluster": [
	  {"name": "default/kuard/80/da39a3ee5e", "connect_timeout": "2s", "type": "EDS",
	   "eds_cluster_config": {"eds_config": {"api_config_source": {"api_type": "GRPC", "grpc_services": [{"envoy_grpc": {"cluster_name": "contour"}}]}, "resource_api_version": "V3"},
	                          "service_name": "default/kuard"}}],
	 "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment": [
	  {"cluster_name": "default/kuard", "endpoints": [{"lb_endpoints": [
	    {"endpoint": {"address": {"socket_address": {"address": "10.0.0.1", "port_value": 8080}}}},
	    {"endpoint": {"address": {"socket_address": {"address": "10.0.0.2", "port_value": 8080}}}}]}]}],
	 "type.googleapis.com/envoy.config.listener.v3.Listener": [
	  {"name": "ingress_https", "per_connection_buffer_limit_bytes": "32768", "filter_chains": [{"filters": [{"typed_config": {"http_filters": [
	    {"name": "envoy.filters.http.lua", "typed_config": {"@type": "type.googleapis.com/envoy.extensions.filters.http.lua.v3.Lua", "default_source_code": {"inline_string": "-- Contour's Lua"}}}],
	   "route_config_name": "https/kuard.example.com", "metadata": {"filter_metadata": {"envoy.access_loggers.file": {"io.projectcontour.kind": "Ingress"}}}}}]}]}]}`
	const same = `{"type.googleapis.com/envoy.config.cluster.v3.Cluster": [
	  {"name": "default/kuard/80/da39a3ee5e", "connectTimeout": "2s", "type": "EDS",
	   "edsClusterConfig": {"edsConfig": {"ads": {}, "resourceApiVersion": "V3"}, "serviceName": "default/kuard"}}],
	 "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment": [
	  {"clusterName": "default/kuard", "endpoints": [{"lbEndpoints": [
	    {"endpoint": {"address": {"socketAddress": {"address": "10.0.0.2", "portValue": 8080}}}},
	    {"endpoint": {"address": {"socketAddress": {"address": "10.0.0.1", "portValue": 8080}}}}]}]}],
	 "type.googleapis.com/envoy.config.listener.v3.Listener": [
	  {"name": "ingress_https", "perConnectionBufferLimitBytes": 32768, "filterChains": [{"filters": [{"typedConfig": {"httpFilters": [
	    {"name": "envoy.filters.http.lua", "typedConfig": {"@type": "type.googleapis.com/envoy.extensions.filters.http.lua.v3.Lua", "defaultSourceCode": {"inlineString": "-- my Lua"}}}],
	   "routeConfigName": "https/kuard.example.com", "metadata": {"filterMetadata": {"envoy.access_loggers.file": {"io.projectcontour.kind": "Ingress"}}}}}]}]}]}`
	w, err := parseXDS([]byte(want))
	if err != nil {
		t.Fatal(err)
	}
	g, err := parseXDS([]byte(same))
	if err != nil {
		t.Fatal(err)
	}
	if d := compareXDS(w, g); len(d) != 0 {
		t.Errorf("equivalent resources differ: %v", d)
	}

	// A changed endpoint port and a missing listener are differences.
	different := strings.Replace(same, `"address": "10.0.0.2", "portValue": 8080`, `"address": "10.0.0.2", "portValue": 8081`, 1)
	different = strings.Replace(different, `"name": "ingress_https"`, `"name": "ingress_http"`, 1)
	g, err = parseXDS([]byte(different))
	if err != nil {
		t.Fatal(err)
	}
	wantDiffs := []string{
		`ClusterLoadAssignment "default/kuard": differs at $.endpoints[0].lb_endpoints[1].endpoint.address.socket_address.port_value (want "8080", got "8081")`,
		`Listener "ingress_http": not expected`,
		`Listener "ingress_https": missing`,
	}
	if d := compareXDS(w, g); strings.Join(d, "\n") != strings.Join(wantDiffs, "\n") {
		t.Errorf("differences:\n%s\nwant:\n%s", strings.Join(d, "\n"), strings.Join(wantDiffs, "\n"))
	}
}
