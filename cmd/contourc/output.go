package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Permissions of files contourc creates: a rendered configuration carries
// TLS private keys inline and is readable by its owner only; a bootstrap
// for serve only names key files, and Envoy may run as another user.
const (
	privatePerm fs.FileMode = 0o600
	publicPerm  fs.FileMode = 0o644
)

// writeFileAtomic replaces path with data so that readers (an Envoy hot
// restart, a config-reloading sidecar) see either the old file or the whole
// new one, never a partial write. The data goes to a temporary file in the
// same directory, since rename is atomic only within one file system; on any
// failure the temporary file is removed and path is left as it was. A new
// file gets newPerm; a replaced one keeps its permissions.
func writeFileAtomic(path string, data []byte, newPerm fs.FileMode) error {
	return writeFileAtomicFrom(path, newPerm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeFileAtomicFrom is writeFileAtomic with the data written by write,
// straight into the temporary file: a large output need not be held in
// memory as well. If write fails, path is left as it was.
func writeFileAtomicFrom(path string, newPerm fs.FileMode, write func(io.Writer) error) (err error) {
	perm := newPerm
	if fi, statErr := os.Stat(path); statErr == nil {
		// Replacing a file keeps its permissions, as writing into it would.
		perm = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = write(tmp); err != nil {
		return err
	}
	// Without a sync, a crash after the rename can leave an empty file.
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		var linkErr *os.LinkError
		if errors.As(err, &linkErr) {
			// The temporary name means nothing to the user.
			err = &fs.PathError{Op: "write", Path: path, Err: linkErr.Err}
		}
		return err
	}
	return nil
}

// writeOut writes to out with emit, which writes all or nothing, or with
// stream, which writes as it goes and may fail part way, when out can take
// a failed write back: a regular file whose offset is its end, as the
// shell's > leaves standard output, which is then cut back to where it was.
// Anything else (a pipe, a terminal, a file opened by >>, whose offset
// stays 0 until the first write) gets emit.
func writeOut(out io.Writer, emit, stream func(io.Writer) error) error {
	f, end, ok := retractable(out)
	if !ok || stream == nil {
		return emit(out)
	}
	err := stream(f)
	if err != nil {
		if terr := f.Truncate(end); terr != nil {
			return errors.Join(err, fmt.Errorf("taking back the partial output: %w", terr))
		}
		_, _ = f.Seek(end, io.SeekStart)
	}
	return err
}

// retractable returns out as a regular file whose offset is its end, and
// that offset.
func retractable(out io.Writer) (*os.File, int64, bool) {
	f, ok := out.(*os.File)
	if !ok {
		return nil, 0, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, 0, false
	}
	at, err := f.Seek(0, io.SeekCurrent)
	if err != nil || at != fi.Size() {
		return nil, 0, false
	}
	return f, at, true
}

// protectOut makes out readable by its owner only (0600, as --output
// creates its file) when it is a regular file that others may read: the
// shell's `render > envoy.yaml` creates the file with the umask's mode,
// usually 0644, and the output is about to put private keys in it. It runs
// before anything is written, on the open descriptor (fchmod), so the
// file's name does not matter and no reader can open it in between.
// Pipes, terminals and /dev/null are left alone: their permissions are not
// the output's. It reports whether it changed the mode; when it cannot,
// nothing may be written.
func protectOut(out io.Writer) (bool, error) {
	f, ok := out.(*os.File)
	if !ok {
		return false, nil
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 == 0 {
		return false, nil
	}
	if err := f.Chmod(fi.Mode().Perm() & privatePerm); err != nil {
		return false, fmt.Errorf("standard output is a file others can read, and the output holds private keys: "+
			"cannot make it private (%v); write with --output FILE instead", errors.Unwrap(err))
	}
	return true, nil
}
