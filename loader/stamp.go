package loader

import "time"

// fileStamp is what stat says of one version of a file: a change to the
// file's bytes changes its change time (ctime), which no system call can
// set back, and a file replaced by another (an editor's save, a
// ConfigMap's symlink swap) has another inode.
type fileStamp struct {
	valid        bool
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds
	// taken is when stat was called, before the bytes the stamp goes
	// with were read.
	taken int64
}

// stampMargin is how long after a file's last change its stamp can be
// trusted: longer than the coarsest timestamp a file system keeps (FAT's
// two seconds). A change within the same tick as the change before it
// would leave the stamp as it was.
var stampMargin = 2 * time.Second

// vouches says whether s, equal to the stamp of the bytes last read, shows
// that the file still holds them: s was taken long enough after the
// file's last change that a later change would have a later time.
func (s fileStamp) vouches() bool {
	return s.valid && s.taken-s.ctime > int64(stampMargin) && s.taken-s.mtime > int64(stampMargin)
}

// sameFile says whether a and b stamp the same version of a file.
func (a fileStamp) sameFile(b fileStamp) bool {
	return a.valid && b.valid && a.dev == b.dev && a.ino == b.ino && a.size == b.size &&
		a.mtime == b.mtime && a.ctime == b.ctime
}
