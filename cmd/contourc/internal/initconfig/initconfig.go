// Package initconfig writes the repository config file `contourc init`
// proposes (Write) from a survey of the repository (internal/survey): its
// paths, GitOps entry points, the Secrets and Services to assume and its
// Contour instances, each choice commented. Keys the running contourc lacks
// are written commented out, so the file is always one it reads.
package initconfig

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/contourc/contourc/cmd/contourc/internal/repoconfig"
	"github.com/contourc/contourc/internal/survey"
)

// configWriter writes the file's text: keys the running contourc has are
// written, those it lacks (flags of a later version) commented out, so
// that the file is always one this contourc reads.
type configWriter struct {
	b    strings.Builder
	keys map[string]repoconfig.Flag
}

func (w *configWriter) line(format string, args ...any) { fmt.Fprintf(&w.b, format+"\n", args...) }

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Write is the config file for a survey, each choice commented; keys are
// the flags of the running contourc (repoconfig.Keys).
func Write(sv *survey.Survey, keys map[string]repoconfig.Flag) string {
	w := &configWriter{keys: keys}
	w.line("# .contourc.yaml, written by `contourc init`: what `contourc check` reads and how, for this")
	w.line("# repository. Keys are contourc's flags by their long names (docs/gitops.md, \"The repository")
	w.line("# config file\"); flags given on the command line win. Review the choices commented below.")
	w.paths(sv)
	w.gitops(sv)
	w.assumed(sv)
	w.instances(sv)
	return w.b.String()
}

func (w *configWriter) paths(sv *survey.Survey) {
	w.line("")
	type entry struct{ path, why string }
	var entries []entry
	for _, group := range sv.Roots {
		chosen, why := chooseOverlay(group)
		entries = append(entries, entry{chosen, why})
	}
	for _, l := range sv.Loose {
		entries = append(entries, entry{l, "manifests outside any kustomization"})
	}
	if len(entries) == 0 {
		w.line("# No kustomization and no manifest found: the whole repository.")
		w.line("paths: [.]")
		return
	}
	if len(sv.Roots) > 0 {
		w.line("# The kustomizations no other one includes, as a cluster would be given them (kustomize")
		w.line("# builds them when contourc has kustomize support; until then their own files are read).")
	}
	w.line("paths:")
	for _, e := range entries {
		w.line("  - %s  # %s", quote(e.path), e.why)
	}
}

// chooseOverlay picks one of a group of root kustomizations: the overlays
// of one base are alternatives (a cluster gets one of them; reading them
// all would declare the base's objects several times). A production
// overlay is taken first, since that is what an edge serves; else the
// first by name.
func chooseOverlay(group []string) (string, string) {
	if len(group) == 1 {
		return group[0], "a kustomization no other one includes"
	}
	chosen := group[0]
	for _, g := range group {
		if base := filepath.Base(g); base == "production" || base == "prod" {
			chosen = g
			break
		}
	}
	var others []string
	for _, g := range group {
		if g != chosen {
			others = append(others, g)
		}
	}
	return chosen, fmt.Sprintf("one of the overlays of one base (production first, else by name); the others: %s", strings.Join(others, ", "))
}

func (w *configWriter) gitops(sv *survey.Survey) {
	for _, f := range sv.GitOps {
		w.line("")
		w.line("# %d %s object(s), the first in %s: contourc does not follow", f.Count, f.What, f.First)
		w.line("# them yet (a later release will); paths above are the directories found instead.")
	}
	if len(sv.Unread) > 0 {
		w.line("")
		w.line("# Files contourc refuses (check would fail on them; --exclude leaves files out):")
		for _, u := range sv.Unread {
			w.line("#   %s", u)
		}
	}
}

func (w *configWriter) assumed(sv *survey.Survey) {
	if len(sv.MissingSecrets) == 0 && len(sv.MissingServices) == 0 && len(sv.Certificates) == 0 {
		return
	}
	w.line("")
	if len(sv.Certificates) == 0 {
		w.assume(sv.MissingSecrets, sv.MissingServices)
		return
	}
	// cert-manager makes the Secrets: stand-ins take their place, and the
	// absent Secrets are taken to be those.
	w.line("# cert-manager makes TLS Secrets here; stand-ins take their place:")
	for _, c := range sv.Certificates {
		w.line("#   %d %s, the first in %s", c.Count, c.What, c.First)
	}
	for _, m := range sv.MissingSecrets {
		w.line("# Secret %s/%s, absent, is taken to be one of them: for %s.", m.Namespace, m.Name, m.By)
	}
	if _, ok := w.keys["standIns"]; ok {
		w.line("standIns: true")
	} else {
		w.line("# standIns: true  (this contourc has no stand-ins yet; a later one reads this key)")
	}
	w.assume(nil, sv.MissingServices)
}

// assume writes the assume: section for Secrets and Services absent.
func (w *configWriter) assume(secrets, services []survey.Missing) {
	if len(secrets) == 0 && len(services) == 0 {
		return
	}
	w.line("# Referred to and not in the repository: the cluster has them (a platform's Secret, an")
	w.line("# operator's Service); assumed so that what uses them is checked.")
	_, hasSecrets := w.keys["assume.secrets"]
	_, hasServices := w.keys["assume.services"]
	if !hasSecrets && !hasServices {
		w.line("# (this contourc has no --assume-secret or --assume-service yet; a later one reads these keys)")
		w.line("# assume:")
	} else {
		w.line("assume:")
	}
	prefix := func(ok bool) string {
		if ok {
			return ""
		}
		return "# "
	}
	if len(secrets) > 0 {
		p := prefix(hasSecrets)
		w.line("%s  secrets:", p)
		for _, m := range secrets {
			v := m.Namespace + "/" + m.Name
			if len(m.Namespaces) > 0 {
				v += ":" + strings.Join(m.Namespaces, ",") // delegated to them, as the owner's TLSCertificateDelegation would
			}
			w.line("%s    - %s  # for %s", p, quote(v), m.By)
		}
	}
	if len(services) > 0 {
		p := prefix(hasServices)
		w.line("%s  services:", p)
		for _, m := range services {
			v := m.Namespace + "/" + m.Name
			why := "for " + m.By
			entry := p
			if len(m.NamedPorts) > 0 {
				why += fmt.Sprintf("; port %s referred to by name: write its number", strings.Join(m.NamedPorts, ", "))
			}
			if len(m.Ports) > 0 {
				v += ":" + strings.Join(m.Ports, ",")
			} else {
				v += ":PORT"
				entry = "# " // the flag needs a port: left for a person to finish
			}
			w.line("%s    - %s  # %s", entry, quote(v), why)
		}
	}
}

// instances writes the Contour settings when the repository holds more
// than one Contour's objects: several ingress classes, several Gateways.
func (w *configWriter) instances(sv *survey.Survey) {
	if len(sv.IngressClasses) < 2 && len(sv.Gateways) < 2 {
		return
	}
	w.line("")
	w.line("# More than one Contour instance: one config checks one of them; check another with the")
	w.line("# flag on the command line (it wins over the key).")
	w.line("contour:")
	if len(sv.IngressClasses) > 1 {
		w.line("  ingressClassName: [%s]  # the classes found: %s", quote(sv.IngressClasses[0]), strings.Join(sv.IngressClasses, ", "))
	}
	if len(sv.Gateways) > 1 {
		w.line("  gateway: %s  # the Gateways found: %s", quote(sv.Gateways[0]), strings.Join(sv.Gateways, ", "))
	}
}
