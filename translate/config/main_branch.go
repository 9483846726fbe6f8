package config

import (
	"fmt"

	"github.com/contourc/contourc/loader"
)

// Warnings for the fields contourc accepts that only Contour's main branch
// has (loader/main_branch.go): manifests or a configuration using them
// work with contourc, but a cluster running released Contour v1.33 refuses
// them (its CRDs lack them) or its configuration file reader does.

// mainBranchOnly ends each warning.
const mainBranchOnly = "is not in Contour v1.33.x (main branch only)"

// MainBranchNotices warns once for each use of such a field in objs,
// whether or not Contour would read the object (another ingress class,
// say): the API server refuses it all the same.
func MainBranchNotices(objs []loader.Object) []Notice {
	var out []Notice
	for _, o := range objs {
		if o.Extensions == nil {
			continue
		}
		for _, f := range o.Extensions.MainBranchFields {
			out = append(out, Notice{Source: f.Source, Kind: o.Kind, Name: objectName(o), Msg: f.Field + " " + mainBranchOnly})
		}
	}
	return out
}

// configMainBranchNotices warns once for each such key of a configuration
// file.
func configMainBranchNotices(cfg *loader.ContourConfig) []Notice {
	if cfg == nil {
		return nil
	}
	out := make([]Notice, 0, len(cfg.MainBranchFields))
	for _, f := range cfg.MainBranchFields {
		out = append(out, Notice{Source: f.Source, Kind: "configuration", Msg: f.Field + " " + mainBranchOnly})
	}
	return out
}

// configMapMainBranchNotices is configMainBranchNotices for a
// configuration file read from a ConfigMap's contour.yaml, which was read
// from a file of its own: the notices are the ConfigMap's, each with its
// line in contour.yaml.
func configMapMainBranchNotices(cfg *loader.ContourConfig, cm *loader.Object) []Notice {
	out := make([]Notice, 0, len(cfg.MainBranchFields))
	for _, f := range cfg.MainBranchFields {
		out = append(out, Notice{Source: cm.Source, Kind: "ConfigMap", Name: objectName(*cm),
			Msg: fmt.Sprintf("%s line %d: %s %s", ConfigMapKey, f.Source.Line, f.Field, mainBranchOnly)})
	}
	return out
}

// objectName is an object's namespace/name, as its notices name it.
func objectName(o loader.Object) string {
	return o.Obj.GetNamespace() + "/" + o.Obj.GetName()
}
