package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/contourc/contourc/loader/helmchart"
)

// helmFlags are helm template's flags, for a chart directory given as a
// PATH (loader/helmcharts.go); -n, the release namespace, is --namespace.
type helmFlags struct {
	valueFiles  []string
	set         []string
	setString   []string
	releaseName string
	kubeVersion string
}

func (f *helmFlags) register(fs *pflag.FlagSet) {
	fs.StringSliceVarP(&f.valueFiles, "values", "f", nil,
		"Helm values `FILE` for a chart directory given as a PATH, as helm template -f (repeatable; later files win)")
	fs.StringArrayVar(&f.set, "set", nil,
		"Helm value `KEY=VALUE` for a chart given as a PATH, as helm template --set (repeatable; wins over -f)")
	fs.StringArrayVar(&f.setString, "set-string", nil,
		"Helm string value `KEY=VALUE` for a chart given as a PATH, as helm template --set-string (repeatable; wins over --set)")
	fs.StringVar(&f.releaseName, "release-name", "",
		"Helm release `NAME` of a chart given as a PATH (default "+helmchart.DefaultReleaseName+", as helm template)")
	fs.StringVar(&f.kubeVersion, "kube-version", "",
		"Kubernetes `VERSION` a chart given as a PATH is rendered for, as helm template --kube-version (default: the version contourc is built for)")
}

// check finds the usage errors, before anything is read.
func (f *helmFlags) check() error {
	for _, s := range append(append([]string(nil), f.set...), f.setString...) {
		if !strings.Contains(s, "=") {
			return fmt.Errorf("--set %q: want KEY=VALUE", s)
		}
	}
	return nil
}

// options are the helmchart options of the flags; the namespace is the
// loader's (-n).
func (f *helmFlags) options() *helmchart.Options {
	return &helmchart.Options{
		ReleaseName: f.releaseName,
		ValueFiles:  f.valueFiles,
		Set:         f.set,
		SetString:   f.setString,
		KubeVersion: f.kubeVersion,
	}
}
