package routetest

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	src := `apiVersion: contourc/v1alpha1
kind: RouteTest
tests:
- name: one
  request:
    authority: a.com
    headers:
      x-b: "2"
      x-a: [one, two]
    sni: ""
  expect:
    cluster: {service: ns/svc, port: http}
- name: two
  request: {authority: a.com, port: 8443, sourceAddress: 10.0.0.1}
  expect:
    weightedClusters:
    - {service: ns/a, port: 80, percent: 12.5}
    timeout: 1m30s
`
	f, err := Parse("t.test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) != 2 || f.Cases[0].Line != 4 || f.Cases[1].Line != 13 || f.Cases[1].Location() != "t.test.yaml:13" {
		t.Fatalf("cases = %+v", f.Cases)
	}
	r := f.Cases[0].Request
	wantHeaders := []Header{{"x-a", "one"}, {"x-a", "two"}, {"x-b", "2"}}
	if !reflect.DeepEqual(r.Headers, wantHeaders) || r.SNI == nil || *r.SNI != "" {
		t.Errorf("request = %+v", r)
	}
	if c := f.Cases[0].Expect.Cluster; c == nil || c.Service != "ns/svc" || c.Port.Name != "http" {
		t.Errorf("cluster expectation = %+v", c)
	}
	if w := f.Cases[1].Expect.WeightedClusters; len(w) != 1 || w[0].Port.Number != 80 || *w[0].Percent != 12.5 {
		t.Errorf("weighted expectation = %+v", w)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"empty", "", []string{"f: empty test file"}},
		{"not YAML", "tests: [", []string{"f:1:"}},
		{"no tests", "tests: []\n", []string{"f:1: no tests"}},
		{"unknown top-level field", "test:\n- name: a\n", []string{`f:1: unknown field "test" in the test file`}},
		{"a manifest", "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n", []string{`f: apiVersion "v1", kind "Service": not a route test file`}},
		{"two documents", "tests: [{name: a, request: {authority: a}, expect: {noMatch: true}}]\n---\na: 1\n", []string{"one YAML document"}},
		{"unknown fields are all reported", "tests:\n- name: a\n  request: {authority: a, hots: b}\n  expect: {noMatch: true, clutser: {}}\n",
			[]string{`f:3: unknown field "hots" in request`, `f:4: unknown field "clutser" in expect`}},
		{"wrong type", "tests:\n- name: a\n  request: {authority: a, port: http}\n  expect: {noMatch: true}\n", []string{"f:3: cannot unmarshal"}},
		{"missing name and authority", "tests:\n- request: {}\n  expect: {noMatch: true}\n", []string{"f:2: test #1 has no name", `f:2: test "": request.authority is required`}},
		{"empty expect", "tests:\n- name: a\n  request: {authority: a}\n  expect: {}\n", []string{"expect is empty"}},
		{"bad service", "tests:\n- name: a\n  request: {authority: a}\n  expect: {cluster: {service: svc}}\n", []string{`expect.cluster.service "svc": want namespace/name`}},
		{"percent on cluster", "tests:\n- name: a\n  request: {authority: a}\n  expect: {cluster: {name: c, percent: 5}}\n", []string{"expect.cluster.percent is only for weightedClusters and mirrors"}},
		{"bad statuses and words", "tests:\n- name: a\n  request: {authority: a, scheme: ftp, sourceAddress: me}\n  expect: {redirect: {status: 200}, extAuthz: on, ipFilter: maybe}\n",
			[]string{`request.scheme "ftp"`, `source address "me"`, "expect.redirect.status 200 is not a redirect status", `expect.extAuthz "on"`, `expect.ipFilter "maybe"`}},
		{"noMatch with route", "tests:\n- name: a\n  request: {authority: a}\n  expect: {noMatch: true, route: {name: r}}\n", []string{"both noMatch and route"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("f", []byte(tt.src))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}
