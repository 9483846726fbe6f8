package admission

import (
	"encoding/json"
	"testing"

	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
)

// TestPlainMetadataIsDecodedCleanly holds plainMetadata to the API
// server's decoder: metadata it calls plain must decode without error or
// unknown field, and the cases it does not call plain show why the
// decoder must see them.
func TestPlainMetadataIsDecodedCleanly(t *testing.T) {
	cases := []struct {
		metadata string
		plain    bool
	}{
		{`{"name": "a", "namespace": "b"}`, true},
		{`{"name": "a", "labels": {"app": "x", "k8s.io/n": ""}, "annotations": {"a": "b\u00e9"}}`, true},
		{`{"generateName": "a-"}`, true},
		{`{}`, true},
		{`{"name": 3}`, false},                // a type error
		{`{"Name": "a"}`, false},              // unknown: the decoder is case-sensitive
		{`{"name": "a", "x": 1}`, false},      // unknown field
		{`{"labels": {"a": 1}}`, false},       // a type error
		{`{"labels": null}`, false},           // null is not a map here
		{`{"uid": "u"}`, false},               // known, but left to the decoder
		{`{"creationTimestamp": "x"}`, false}, // a time that does not parse
		{`{"finalizers": ["a"]}`, false},      // known, left to the decoder
		{`"metadata"`, false},                 // not a map
		{`{"annotations": {"a": {"b": "c"}}}`, false},
	}
	for _, c := range cases {
		var m any
		if err := json.Unmarshal([]byte(c.metadata), &m); err != nil {
			t.Fatal(err)
		}
		if got := plainMetadata(m); got != c.plain {
			t.Errorf("plainMetadata(%s) = %v, want %v", c.metadata, got, c.plain)
		}
		if !c.plain {
			continue
		}
		_, _, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(map[string]any{"metadata": m}, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
		if err != nil || len(unknown) > 0 {
			t.Errorf("%s is plain, but the API server's decoder says %v, unknown %v", c.metadata, err, unknown)
		}
	}
}
