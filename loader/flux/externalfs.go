package flux

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/contourc/contourc/loader/flux/artifact"
	"github.com/contourc/contourc/loader/kustomize"
)

// externalfs.go: the file system a Kustomization of an ExternalArtifact is
// built on. The composed artifact (artifact.Composed) is seen at a
// directory of its own, root, that is on no disk: its files are read from
// the checkout's files they were copied from, and nothing else of the
// checkout is there, as in Flux, where the build has the artifact's
// contents only. Paths outside the checkout (kustomize's clones of remote
// bases) are the disk's. After the build, its paths are put back: each
// file read is named by the file of the checkout it is, so that objects
// point at the files to edit, and messages name the artifact's paths as
// "ExternalArtifact NS/NAME:path".

// viewFS is a composed artifact, at root, with one kustomization file as
// the generator made it.
type viewFS struct {
	filesys.FileSystem // the disk, for paths outside the checkout
	root, checkout     string
	label              string // "ExternalArtifact NS/NAME"
	art                *artifact.Composed
	gen                string // the generated file's path
	data               []byte
}

// rel is path in the artifact, when it is under root; outside says it is
// neither there nor outside the checkout (so not in the build's view).
func (v *viewFS) rel(path string) (rel string, in, outside bool) {
	path = filepath.Clean(path)
	if path == v.root {
		return "", true, false
	}
	if r, ok := strings.CutPrefix(path, v.root+string(filepath.Separator)); ok {
		return filepath.ToSlash(r), true, false
	}
	if path == v.checkout || strings.HasPrefix(path, v.checkout+string(filepath.Separator)) {
		return "", false, false
	}
	return "", false, true
}

func (v *viewFS) missing(op, path string) error {
	rel, in, _ := v.rel(path)
	if in {
		if why := v.art.LeftOut(rel); why != "" {
			return &notInArtifact{op, path, v.label, why}
		}
	}
	return &fs.PathError{Op: op, Path: path, Err: syscall.ENOENT} // as the disk's
}

func (v *viewFS) isGen(path string) bool { return v.gen != "" && filepath.Clean(path) == v.gen }

func (v *viewFS) readOnly(op, path string) error {
	if _, _, outside := v.rel(path); outside {
		return nil
	}
	return &fs.PathError{Op: op, Path: path, Err: errors.New("read-only: an artifact")}
}

func (v *viewFS) Create(path string) (filesys.File, error) {
	if err := v.readOnly("create", path); err != nil {
		return nil, err
	}
	return v.FileSystem.Create(path)
}

func (v *viewFS) Mkdir(path string) error {
	if err := v.readOnly("mkdir", path); err != nil {
		return err
	}
	return v.FileSystem.Mkdir(path)
}

func (v *viewFS) MkdirAll(path string) error {
	if err := v.readOnly("mkdir", path); err != nil {
		return err
	}
	return v.FileSystem.MkdirAll(path)
}

func (v *viewFS) RemoveAll(path string) error {
	if err := v.readOnly("remove", path); err != nil {
		return err
	}
	return v.FileSystem.RemoveAll(path)
}

func (v *viewFS) WriteFile(path string, data []byte) error {
	if err := v.readOnly("write", path); err != nil {
		return err
	}
	return v.FileSystem.WriteFile(path, data)
}

func (v *viewFS) Open(path string) (filesys.File, error) {
	rel, in, outside := v.rel(path)
	switch {
	case outside:
		return v.FileSystem.Open(path)
	case in:
		if real, ok := v.art.File(rel); ok {
			return os.Open(real)
		}
	}
	return nil, v.missing("open", path)
}

func (v *viewFS) ReadFile(path string) ([]byte, error) {
	if v.isGen(path) {
		return v.data, nil
	}
	rel, in, outside := v.rel(path)
	switch {
	case outside:
		return v.FileSystem.ReadFile(path)
	case in:
		if real, ok := v.art.File(rel); ok {
			return os.ReadFile(real)
		}
	}
	return nil, v.missing("open", path)
}

func (v *viewFS) IsDir(path string) bool {
	rel, in, outside := v.rel(path)
	if outside {
		return v.FileSystem.IsDir(path)
	}
	return in && !v.isGen(path) && v.art.IsDir(rel)
}

func (v *viewFS) isFile(path string) bool {
	rel, in, _ := v.rel(path)
	if v.isGen(path) {
		return true
	}
	_, ok := v.art.File(rel)
	return in && ok
}

func (v *viewFS) Exists(path string) bool {
	if _, _, outside := v.rel(path); outside {
		return v.FileSystem.Exists(path)
	}
	return v.IsDir(path) || v.isFile(path)
}

func (v *viewFS) ReadDir(path string) ([]string, error) {
	rel, in, outside := v.rel(path)
	switch {
	case outside:
		return v.FileSystem.ReadDir(path)
	case !in || !v.IsDir(path):
		return nil, v.missing("open", path)
	}
	names := v.art.ReadDir(rel)
	if v.gen != "" && filepath.Dir(v.gen) == filepath.Clean(path) && !v.isFileInArtifact(v.gen) {
		names = append(names, filepath.Base(v.gen))
	}
	return names, nil
}

func (v *viewFS) isFileInArtifact(path string) bool {
	rel, in, _ := v.rel(path)
	_, ok := v.art.File(rel)
	return in && ok
}

func (v *viewFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", "", fmt.Errorf("abs path error on '%s' : %v", path, err)
	}
	if _, _, outside := v.rel(abs); outside {
		return v.FileSystem.CleanedAbs(abs)
	}
	switch {
	case v.IsDir(abs):
		return filesys.ConfirmedDir(abs), "", nil
	case v.isFile(abs):
		return filesys.ConfirmedDir(filepath.Dir(abs)), filepath.Base(abs), nil
	}
	return "", "", fmt.Errorf("evalsymlink failure on '%s' : %w", path, v.missing("lstat", abs))
}

func (v *viewFS) Glob(pattern string) ([]string, error) {
	if _, _, outside := v.rel(filepath.Dir(pattern)); outside {
		return v.FileSystem.Glob(pattern)
	}
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, err
	}
	var out []string
	err := v.Walk(v.root, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			if ok, _ := filepath.Match(pattern, p); ok {
				out = append(out, p)
			}
		}
		return err
	})
	return out, err
}

func (v *viewFS) Walk(path string, walkFn filepath.WalkFunc) error {
	if _, _, outside := v.rel(path); outside {
		return v.FileSystem.Walk(path, walkFn)
	}
	info, err := v.stat(path)
	if err != nil {
		return walkFn(path, nil, err)
	}
	return v.walk(path, info, walkFn)
}

func (v *viewFS) walk(path string, info os.FileInfo, walkFn filepath.WalkFunc) error {
	err := walkFn(path, info, nil)
	if !info.IsDir() {
		return err
	}
	if err != nil {
		if err == filepath.SkipDir {
			return nil
		}
		return err
	}
	names, _ := v.ReadDir(path)
	for _, n := range names {
		p := filepath.Join(path, n)
		info, err := v.stat(p)
		if err != nil {
			if err := walkFn(p, nil, err); err != nil && err != filepath.SkipDir {
				return err
			}
			continue
		}
		if err := v.walk(p, info, walkFn); err != nil {
			if err == filepath.SkipDir {
				if info.IsDir() {
					continue
				}
				return nil
			}
			return err
		}
	}
	return nil
}

func (v *viewFS) stat(path string) (os.FileInfo, error) {
	rel, _, _ := v.rel(path)
	switch {
	case v.IsDir(path):
		return dirInfo(filepath.Base(path)), nil
	case v.isGen(path):
		return genInfo{filepath.Base(path), int64(len(v.data))}, nil
	}
	if real, ok := v.art.File(rel); ok {
		return os.Stat(real)
	}
	return nil, v.missing("lstat", path)
}

// dirInfo is a directory of the artifact.
type dirInfo string

func (d dirInfo) Name() string       { return string(d) }
func (d dirInfo) Size() int64        { return 0 }
func (d dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o755 }
func (d dirInfo) ModTime() time.Time { return time.Time{} }
func (d dirInfo) IsDir() bool        { return true }
func (d dirInfo) Sys() any           { return nil }

// genInfo is the generated kustomization file.
type genInfo struct {
	name string
	size int64
}

func (g genInfo) Name() string       { return g.name }
func (g genInfo) Size() int64        { return g.size }
func (g genInfo) Mode() fs.FileMode  { return 0o644 }
func (g genInfo) ModTime() time.Time { return time.Time{} }
func (g genInfo) IsDir() bool        { return false }
func (g genInfo) Sys() any           { return nil }

// real is a path of the view as the file of the checkout it is: a file's
// source, the directory copied to a directory, the generated file in the
// directory its directory was copied from; "" when it has none.
func (v *viewFS) real(path string) string {
	rel, in, _ := v.rel(path)
	if !in {
		return path
	}
	if f, ok := v.art.File(rel); ok {
		return f
	}
	if d := v.art.Dir(rel); d != "" {
		return d
	}
	if v.isGen(path) {
		if d := v.art.Dir(filepath.ToSlash(filepath.Dir(rel))); d != "" {
			return filepath.Join(d, filepath.Base(path))
		}
	}
	return ""
}

// relabel names the view's paths in a message as the artifact's.
func (v *viewFS) relabel(msg string) string {
	msg = strings.ReplaceAll(msg, v.root+string(filepath.Separator), v.label+":")
	return strings.ReplaceAll(msg, v.root, v.label+":.")
}

// relabeled is a build's error with the view's paths named as the
// artifact's.
type relabeled struct {
	msg string
	err error
}

func (e *relabeled) Error() string { return e.msg }
func (e *relabeled) Unwrap() error { return e.err }

// putBack gives the build b of the view's directory dir the checkout's
// paths: its directory is the one copied there (else the checkout's
// root), the files it read and its objects' origins the files they are.
func (v *viewFS) putBack(b *kustomize.Build, err error, dir string) (*kustomize.Build, error) {
	if err != nil {
		err = &relabeled{msg: v.relabel(err.Error()), err: err}
	}
	if b == nil {
		return nil, err
	}
	out := *b
	if out.Dir = v.real(dir); out.Dir == "" {
		out.Dir = v.checkout
	}
	out.Read = make(map[string][]byte, len(b.Read))
	for p, data := range b.Read {
		if real := v.real(p); real != "" {
			out.Read[real] = data
		}
	}
	out.Resources = append([]kustomize.Resource(nil), b.Resources...)
	for i := range out.Resources {
		o := &out.Resources[i].Origin
		if o.File != "" {
			o.File = v.real(o.File)
		}
		if o.ConfiguredIn != "" {
			o.ConfiguredIn = v.real(o.ConfiguredIn)
		}
	}
	out.LeftOut = append([]kustomize.LeftOut(nil), b.LeftOut...)
	for i := range out.LeftOut {
		if real := v.real(out.LeftOut[i].File); real != "" {
			out.LeftOut[i].File = real
		}
	}
	out.Deprecations = append([]kustomize.Deprecation(nil), b.Deprecations...)
	for i := range out.Deprecations {
		if real := v.real(out.Deprecations[i].File); real != "" {
			out.Deprecations[i].File = real
		}
	}
	return &out, err
}
