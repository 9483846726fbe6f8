package follow

import (
	"fmt"

	"github.com/contourc/contourc/loader/internal/manifest"
	"github.com/contourc/contourc/loader/internal/object"
	"github.com/contourc/contourc/loader/kustomize"
	"github.com/contourc/contourc/loader/substitute"
)

// Follow tells the load to follow GitOps entry points (loader.Options.Follow).
type Follow struct {
	// Followers know the entry points, one tool each.
	Followers []Follower
	// Cluster are the objects of the cluster context, which entries may
	// read (the ConfigMaps and Secrets of Flux's substituteFrom and
	// valuesFrom) though they are not part of the input.
	Cluster []object.Object
}

// A Follower finds one GitOps tool's entry points.
type Follower interface {
	// Entries returns the entry points among objs, the GitOps objects
	// (kept as *unstructured.Unstructured, see loader.IsGitOps) that one round
	// found, in their order; each is followed or says why not. in holds
	// the rest of the input.
	Entries(in *FollowInput, objs []object.Object) []Entry
}

// FollowInput is what a Follower may read besides the entry points.
type FollowInput struct {
	// Objects are the objects decoded so far (the walk's, then each
	// build's), the GitOps objects and secret sources among them, then
	// the cluster context's.
	Objects []object.Object
	// Substitute holds the --substitute variables, which apply on top of
	// an entry's own and win.
	Substitute *substitute.Substitution
}

// Find is the first object of in with this kind, namespace and name.
func (in *FollowInput) Find(kind, namespace, name string) (object.Object, bool) {
	for _, o := range in.Objects {
		if o.Kind == kind && o.Obj.GetName() == name && o.Obj.GetNamespace() == namespace {
			return o, true
		}
	}
	return object.Object{}, false
}

// Entry is one entry point.
type Entry struct {
	// Object is the entry point itself.
	Object object.Object
	// NotFollowed, when not empty, says why the entry is not followed
	// ("source GitRepository x/other is not this repository"); nothing
	// else of the entry is used.
	NotFollowed string
	// Key names what is built and with which options: entries with the
	// same Key are built once.
	Key string
	// Path is what is built, as messages name it ("apps/web/").
	Path string
	// Covers are the directories, absolute, whose files the walk leaves
	// to this entry.
	Covers []string
	// Build builds the entry. An error is the entry's failure, as the
	// tool would report it.
	Build func() (*Built, error)
}

// Built is what an entry built: a kustomize build, files, or both.
type Built struct {
	// Kustomize is a kustomize build, decoded like a walk's.
	Kustomize *kustomize.Result
	// Files are manifests read as files of these names (rendered chart
	// templates, a directory's files).
	Files []BuiltFile
	// Namespace is set on namespaced objects that have none; those that
	// name another keep theirs (Argo CD's destination.namespace, helm -n).
	Namespace string
	// Substitute, when it holds variables, is Flux's post-build
	// substitution of the built objects.
	Substitute *substitute.Substitution
	// Warnings are what the entry went past (options not applied, files
	// left out), reported with the load's warnings.
	Warnings []object.Warning
	// Also are more builds of the same entry, decoded with it: the other
	// kustomize sources of a multi-source Argo CD Application.
	Also []*Built
}

// BuiltFile is a manifest an entry built, read as a file of that name.
type BuiltFile struct {
	Name string
	Data []byte
	// AsWalked reads it as the walk reads a file it finds: one that is
	// not manifests (application config, a Go template) is skipped with a
	// notice rather than refused, as Argo CD's directory sources skip it.
	AsWalked bool
}

// EntryReport is what became of one entry point, for -v and check.
type EntryReport struct {
	Kind, Namespace, Name string
	Source                manifest.Source
	Followed              bool
	// Path is what a followed entry built; Reason why one was not.
	Path, Reason string
	// Objects counts the objects a followed entry built.
	Objects int
}

func (e EntryReport) String() string {
	name := e.Kind + " " + manifest.Qualified(e.Namespace, e.Name)
	if !e.Followed {
		return "not followed: " + name + ": " + e.Reason
	}
	return fmt.Sprintf("followed: %s -> %s (%d object%s)", name, e.Path, e.Objects, plural(e.Objects))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
