package kustomize

import (
	"path/filepath"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// recordingFS is the file system one build sees: the real one, with every
// file kustomize reads recorded (so that a walk does not read it again and
// errors can quote it), and each kustomization file handed over as
// rewrite makes it (origin tracking asked for, remote entries left out).
type recordingFS struct {
	filesys.FileSystem
	rewrite func(path string, data []byte) []byte

	mu   sync.Mutex
	read map[string][]byte // absolute path -> contents as read from disk
}

func newRecordingFS(fSys filesys.FileSystem, rewrite func(string, []byte) []byte) *recordingFS {
	return &recordingFS{FileSystem: fSys, rewrite: rewrite, read: map[string][]byte{}}
}

// ReadFile is the one call through which kustomize reads files: resources,
// patches, generator sources and kustomization files alike.
func (r *recordingFS) ReadFile(path string) ([]byte, error) {
	data, err := r.FileSystem.ReadFile(path)
	if err != nil {
		return nil, err
	}
	path = filepath.Clean(path)
	r.mu.Lock()
	r.read[path] = data
	r.mu.Unlock()
	if IsKustomizationFile(filepath.Base(path)) {
		return r.rewrite(path, data), nil
	}
	return data, nil
}
