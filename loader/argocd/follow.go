package argocd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/loader/gitrepo"
	"github.com/contourc/contourc/loader/helmchart"
	"github.com/contourc/contourc/loader/internal/manifest"
	"github.com/contourc/contourc/loader/kustomize"
	"github.com/contourc/contourc/loader/walk"
)

// follow.go: the Follower of Argo CD Applications (plan.go plans their
// sources). An Application is an entry point whose sources in
// this repository are built as Argo CD's repo server generates them, into
// the destination's namespace: a directory source's files read as they
// are, a kustomize source built with its options, a helm source rendered
// with its values. Argo CD fails an Application when any of its sources
// fails; so does this, with the reason, and the Application is not
// followed. ApplicationSets are listed and not followed: their
// Applications come from generators that need the cluster or the network.

// Options say which repository is this one.
type Options struct {
	// Root, when set, is the repository's root, from which sources'
	// paths are read (the directory of the repository config file), for
	// the Applications whose files are in it; otherwise the root is the
	// Git top-level of each Application's file.
	Root string
	// Repos are URLs that name this repository, beside the URL of its
	// origin remote (--argocd-repo).
	Repos []string
	// KustomizeRemote lets kustomize sources fetch remote resources.
	KustomizeRemote bool
}

// Follower follows the Applications whose sources are this repository.
type Follower struct {
	opts Options
}

// New is the follower of Argo CD Applications with opts.
func New(opts Options) *Follower { return &Follower{opts: opts} }

// argoCheckout is the repository an Application lies in: its root
// (absolute, links resolved), the root as messages name it (as the
// paths given name the files in it: ".", "../platform", an absolute
// path), and its origin remote's URL.
type argoCheckout struct {
	root, name, origin string
	repos              []string
}

// checkout is the repository that holds o's file.
func (a *Follower) checkout(o loader.Object) (*argoCheckout, error) {
	abs, err := filepath.Abs(o.Source.File)
	if err != nil {
		return nil, err
	}
	root := a.opts.Root
	if root != "" && !inside(walk.RealPath(abs), walk.RealPath(root)) {
		root = "" // not this root's file: another checkout (diff --base-ref's)
	}
	if root == "" {
		r, ok := gitrepo.Root(abs)
		if !ok {
			return nil, fmt.Errorf("%s is in no Git repository, whose paths its sources would name", o.Source.File)
		}
		root = r
	}
	root = walk.RealPath(root)
	co := &argoCheckout{root: root, repos: a.opts.Repos}
	if r, ok := gitrepo.Root(root); ok && r == root {
		co.origin, _ = gitrepo.OriginURL(r)
	}
	co.name = rootName(o.Source.File, walk.RealPath(abs), root)
	return co, nil
}

// rootName names root as file (shown as shown, at abs) names it: file
// without its path in root.
func rootName(shown, abs, root string) string {
	rel, err := filepath.Rel(root, abs)
	if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		if prefix, ok := strings.CutSuffix(filepath.Clean(shown), rel); ok {
			if prefix = strings.TrimSuffix(prefix, string(filepath.Separator)); prefix == "" {
				return "."
			}
			return prefix
		}
	}
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, root); err == nil {
			return r
		}
	}
	return root
}

// thisRepo reports whether a repoURL names the repository.
func (co *argoCheckout) thisRepo(url string) bool {
	if gitrepo.Same(url, co.origin) {
		return true
	}
	for _, r := range co.repos {
		if gitrepo.Same(url, r) {
			return true
		}
	}
	return false
}

// display names a file or directory of the repository as the walk names
// what it finds.
func (co *argoCheckout) display(abs string) string {
	rel, err := filepath.Rel(co.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return filepath.Join(co.name, rel)
}

// Entries are the Applications and ApplicationSets among objs.
func (a *Follower) Entries(in *loader.FollowInput, objs []loader.Object) []loader.Entry {
	var out []loader.Entry
	for _, o := range objs {
		switch {
		case IsApplicationSet(o.APIVersion, o.Kind):
			out = append(out, loader.Entry{Object: o, NotFollowed: "its Applications are made by the ApplicationSet controller's generators, which contourc does not run"})
		case IsApplication(o.APIVersion, o.Kind):
			out = append(out, a.entry(o))
		}
	}
	return out
}

// entry plans one Application and readies what it builds.
func (a *Follower) entry(o loader.Object) loader.Entry {
	e := loader.Entry{Object: o}
	app, err := decodeApplication(o)
	if err != nil {
		e.NotFollowed = err.Error()
		return e
	}
	co, err := a.checkout(o)
	if err != nil {
		e.NotFollowed = err.Error()
		return e
	}
	plans := Plan(app, co.root, co.thisRepo)
	var followed []*SourcePlan
	var reasons []string
	for i := range plans {
		p := &plans[i]
		switch {
		case p.Followed():
			followed = append(followed, p)
		case !p.RefOnly:
			reasons = append(reasons, labelled(p.Label, p.NotFollowed))
		}
	}
	if len(followed) == 0 {
		e.NotFollowed = strings.Join(reasons, "; ")
		return e
	}
	s := &sourceBuilds{root: co.root, remote: a.opts.KustomizeRemote, name: co.display}
	for _, p := range followed {
		if err := s.prepare(p); err != nil {
			e.NotFollowed = labelled(p.Label, err.Error())
			return e
		}
	}
	for _, r := range reasons {
		s.warnings = append(s.warnings, loader.Warning{Source: o.Source, Msg: "Application " + manifest.Qualified(app.Metadata.Namespace, app.Metadata.Name) + ": not followed: " + r, Skipped: true})
	}
	e.Key, e.Path, e.Covers = s.key(), strings.Join(s.paths, " + "), s.covers
	e.Build = s.build
	return e
}

func labelled(label, msg string) string {
	if label == "" {
		return msg
	}
	return label + ": " + msg
}

// decodeApplication reads the Application the loader kept as
// unstructured.
func decodeApplication(o loader.Object) (*Application, error) {
	u, ok := o.Obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("not an object contourc can read")
	}
	data, err := json.Marshal(u.Object)
	if err != nil {
		return nil, err
	}
	return Decode(data)
}

// sourceBuilds are the followed sources of one Application, readied:
// directory files read, charts rendered, kustomizations left to build.
type sourceBuilds struct {
	root   string
	remote bool
	name   func(abs string) string // names a file of the repository

	paths    []string
	covers   []string
	keys     []string
	files    []loader.BuiltFile
	kusts    []pendingKustomize
	warnings []loader.Warning
	ns       string
}

// pendingKustomize is a kustomize source, built when the entry is.
type pendingKustomize struct {
	dir  string
	fSys filesys.FileSystem
}

func (s *sourceBuilds) prepare(p *SourcePlan) error {
	s.ns = p.Namespace
	s.paths = append(s.paths, strings.TrimSuffix(filepath.ToSlash(p.Path), "/")+"/")
	var opts any
	switch p.Type {
	case TypeDirectory:
		if err := s.directory(p); err != nil {
			return err
		}
		opts = p.Source.Directory
	case TypeKustomize:
		fSys, err := KustomizeFS(filesys.MakeFsOnDisk(), p.Dir, p.Source.Kustomize, p.Env)
		if err != nil {
			return err
		}
		s.kusts = append(s.kusts, pendingKustomize{dir: p.Dir, fSys: fSys})
		s.covers = append(s.covers, walk.RealPath(p.Dir))
		opts = []any{p.Source.Kustomize, p.Env}
	case TypeHelm:
		if err := s.helm(p); err != nil {
			return err
		}
		opts = p.Helm
	}
	for _, w := range p.Warnings {
		s.warnings = append(s.warnings, loader.Warning{Source: loader.Source{File: s.name(p.Dir)}, Msg: w, Skipped: true})
	}
	key, _ := json.Marshal([]any{p.Type, p.Dir, p.Namespace, opts})
	s.keys = append(s.keys, string(key))
	return nil
}

// directory reads a directory source's files. The walk leaves the whole
// directory to the entry when it recurses, its own files when not: the
// files Argo CD excludes are applied by no one.
func (s *sourceBuilds) directory(p *SourcePlan) error {
	for _, f := range p.Files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		s.files = append(s.files, loader.BuiltFile{Name: s.name(f), Data: data, AsWalked: true})
	}
	for _, sk := range p.Skipped {
		if strings.HasPrefix(sk.Reason, "jsonnet") {
			s.warnings = append(s.warnings, loader.Warning{Source: loader.Source{File: s.name(sk.File)}, Msg: "left out of the directory source: " + sk.Reason, Skipped: true})
		}
	}
	if p.Source.Directory != nil && p.Source.Directory.Recurse {
		s.covers = append(s.covers, walk.RealPath(p.Dir))
		return nil
	}
	entries, err := os.ReadDir(p.Dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			s.covers = append(s.covers, walk.RealPath(filepath.Join(p.Dir, e.Name())))
		}
	}
	return nil
}

// helm renders a helm source's chart. Its values files are the entry's
// too: the walk does not read them as manifests.
func (s *sourceBuilds) helm(p *SourcePlan) error {
	manifests, err := helmchart.Render(p.Dir, p.Helm)
	if err != nil {
		return fmt.Errorf("helm template: %w", err)
	}
	for _, m := range manifests {
		s.files = append(s.files, loader.BuiltFile{Name: s.templateFile(p.Dir, m.Template), Data: m.Content})
	}
	s.covers = append(s.covers, walk.RealPath(p.Dir))
	for _, f := range p.Helm.ValueFiles {
		s.covers = append(s.covers, walk.RealPath(f))
	}
	return nil
}

// templateFile names a rendered template by the template's file in the
// chart: helm names it from the chart's name ("shop/templates/x.yaml"),
// the chart lies in dir.
func (s *sourceBuilds) templateFile(dir, template string) string {
	_, rest, ok := strings.Cut(filepath.ToSlash(template), "/")
	if !ok {
		rest = template
	}
	return s.name(filepath.Join(dir, filepath.FromSlash(rest)))
}

// key is what the entry builds and with which options.
func (s *sourceBuilds) key() string {
	keys := append([]string(nil), s.keys...)
	sort.Strings(keys)
	return "argocd\x00" + strings.Join(keys, "\x00")
}

// build builds the kustomize sources; the rest was readied.
func (s *sourceBuilds) build() (*loader.Built, error) {
	b := &loader.Built{Files: s.files, Namespace: s.ns, Warnings: s.warnings}
	for i, k := range s.kusts {
		build, err := kustomize.Run(k.fSys, k.dir, kustomize.Options{Remote: s.remote})
		if build != nil {
			build.Deprecations = OwnDeprecations(k.fSys, build.Deprecations)
		}
		r := &kustomize.Result{Dir: s.name(k.dir), Build: build, Err: err}
		if i == 0 {
			b.Kustomize = r
			continue
		}
		b.Also = append(b.Also, &loader.Built{Kustomize: r, Namespace: s.ns})
	}
	return b, nil
}
