package admission

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

// referenceAdmit admits obj the way the API server's strategy does, with
// whole-CRD validators compiled up front and no memo: what Admit must
// agree with.
func referenceAdmit(t testing.TB, obj map[string]any, gvk GVK) field.ErrorList {
	t.Helper()
	v, err := lookup(gvk)
	if err != nil {
		t.Fatal(err)
	}
	root, err := v.compiled()
	if err != nil {
		t.Fatal(err)
	}
	if errs := referenceDecode(obj, v.structural); len(errs) > 0 {
		return errs
	}
	structuraldefaulting.Default(obj, v.structural)
	sv, cv := referenceValidators(t, gvk, root)
	errs := validation.ValidateCustomResource(nil, obj, sv)
	errs = append(errs, schemaobjectmeta.Validate(context.Background(), nil, obj, v.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, v.structural, obj)...)
	if cv == nil {
		return errs
	}
	if blocked, err := blocking(errs); blocked {
		return append(errs, err)
	}
	cerrs, _ := cv.Validate(context.Background(), nil, v.structural, obj, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, cerrs...)
}

var refCache = map[GVK]struct {
	sv validation.SchemaValidator
	cv *cel.Validator
}{}

// referenceValidators are the whole-CRD validators of gvk, built once.
func referenceValidators(t testing.TB, gvk GVK, root *node) (validation.SchemaValidator, *cel.Validator) {
	if r, ok := refCache[gvk]; ok {
		return r.sv, r.cv
	}
	sv, _, err := validation.NewSchemaValidator(root.props)
	if err != nil {
		t.Fatal(err)
	}
	cv := cel.NewValidator(root.st, true, celconfig.PerCallLimit)
	refCache[gvk] = struct {
		sv validation.SchemaValidator
		cv *cel.Validator
	}{sv, cv}
	return sv, cv
}

// referenceDecode is decode with the whole schema in every walk.
func referenceDecode(obj map[string]any, s *structuralschema.Structural) field.ErrorList {
	_, _, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("metadata"), nil, err.Error())}
	}
	unknown = append(unknown, structuralpruning.PruneWithOptions(obj, s, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, s)
	ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, obj, s, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	unknown = append(unknown, paths...)
	var errs field.ErrorList
	for _, p := range unknown {
		errs = append(errs, &field.Error{Type: ErrorTypeUnknownField, Field: p, Detail: fmt.Sprintf("unknown field %q", p)})
	}
	if ferr != nil {
		errs = append(errs, ferr)
	}
	return errs
}

func errorStrings(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	sort.Strings(out)
	return out
}

func parseObject(t testing.TB, text string) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(text), &obj); err != nil {
		t.Fatal(err)
	}
	// Integers as the API server's JSON decoder gives them.
	b, _ := json.Marshal(obj)
	obj = nil
	if err := unmarshalJSON(b, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func gvkOf(obj map[string]any) GVK {
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	for i := len(av) - 1; i >= 0; i-- {
		if av[i] == '/' {
			return GVK{av[:i], av[i+1:], kind}
		}
	}
	return GVK{"", av, kind}
}

func embeddedJSON(t *testing.T) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(crdsGz))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
