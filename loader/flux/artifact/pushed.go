package artifact

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fluxcd/pkg/sourceignore"
)

// pushed.go: the artifact of an OCIRepository whose content CI pushed
// from a directory of the checkout with `flux push artifact
// --path=DIR` (Flux Operator's and "gitless GitOps" layouts).
//
// The CLI archives DIR (fluxcd/pkg/oci build, by way of Client.Push's
// createLayer; `flux build artifact` is the same Build) with
// fluxcd/pkg/tar, which leaves out what is neither a regular file nor a
// directory (symbolic links, and what is reached through one), and what
// --ignore-paths matches, gitignore patterns matched from DIR, the last
// matching one deciding. Its default (flux2 cmd/flux/build_artifact.go,
// excludeOCI) is sourceignore.ExcludeVCS and ExcludeExt: .git/
// .gitignore .gitmodules .gitattributes and *.jpg *.jpeg *.gif *.png
// *.wmv *.flv *.tar.gz *.zip, not the CI files nor **/.sops.yaml. The
// CLI reads no .sourceignore file. What --ignore-paths or
// --add-ignore-paths a pipeline passed, or --resolve-symlinks, contourc
// cannot know: DIR is taken as pushed with the defaults.
//
// source-controller then extracts the layer and archives it as it
// archives a GitRepository's checkout (ocirepository_controller.go,
// reconcileArtifact): the .sourceignore files that were pushed, each from
// its own directory, then the OCIRepository's spec.ignore, or its default
// exclusions when there are none of these (Filter's rules, from DIR).
// With spec.layerSelector.operation copy the layer is stored as pushed.

// pushedRules are the CLI's default --ignore-paths.
func pushedRules() []rule {
	return rules(sourceignore.ExcludeVCS+","+sourceignore.ExcludeExt, "flux push artifact's default --ignore-paths")
}

// LoadPushed reads the rules of the artifact of the OCIRepository named
// source (as messages name it), pushed from the directory root of a
// checkout with the CLI's defaults, whose spec.ignore is ignore. stored
// says source-controller archived it as it archives a checkout (false for
// spec.layerSelector.operation copy: the pushed rules only).
func LoadPushed(root, source, ignore string, stored bool) (*Filter, error) {
	mode := "pushed"
	if !stored {
		mode = "pushed, copied"
	}
	f := newFilter(root, source, source+"\x00"+ignore+"\x00"+mode+"\x00"+filepath.Clean(root))
	f.pushed = pushedRules()
	if !stored {
		// The links are left out all the same; nothing else is read.
		return f, f.walk(f.root, nil, new([]rule))
	}
	return f, f.load(ignore)
}

// Tree is the artifact f has of its root as a composed artifact: each
// file and directory of the tree that f keeps, at its path from the root,
// for a build that sees nothing else of the checkout. LeftOut says why f
// leaves a path out.
func Tree(f *Filter) (*Composed, error) {
	c := &Composed{files: map[string]string{}, dirs: map[string]string{"": f.root}, left: map[string]string{}, filter: f}
	src := sourceFS{Source{Root: f.root, Filter: f}}
	err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case p == ".":
		case d.IsDir():
			c.dirs[p] = src.real(p)
		default:
			c.files[p] = src.real(p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// filteredOut is why the filter of a Tree leaves p out, or "".
func (c *Composed) filteredOut(p string) string {
	if c.filter == nil || p == "" {
		return ""
	}
	abs := filepath.Join(c.filter.root, filepath.FromSlash(p))
	st, err := os.Lstat(abs)
	if err != nil {
		return ""
	}
	return c.filter.Excluded(abs, st.IsDir())
}
