package gitrepo

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// Head is the commit checked out in the repository at root, as git
// resolves HEAD: HEAD itself when it is detached, else the branch it
// names, as a loose ref (in the worktree's git directory, then the common
// one) or a line of packed-refs. ok is false when it cannot be told (an
// unborn branch, no repository).
func Head(root string) (commit string, ok bool) {
	gitDir, err := gitDirOf(root)
	if err != nil {
		return "", false
	}
	dirs := []string{gitDir}
	if common, ok := commonDir(gitDir); ok {
		dirs = append(dirs, common)
	}
	name := "HEAD"
	// A symbolic ref may name another; git gives up after five.
	for range 5 {
		value, found := readRef(dirs, name)
		if !found {
			return "", false
		}
		target, symbolic := strings.CutPrefix(value, "ref:")
		if !symbolic {
			if !IsCommitID(value) {
				return "", false
			}
			return value, true
		}
		name = strings.TrimSpace(target)
	}
	return "", false
}

// readRef is the value of ref name: its loose file's first line, else
// its line in packed-refs.
func readRef(dirs []string, name string) (string, bool) {
	for _, d := range dirs {
		if data, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(name))); err == nil {
			line, _, _ := strings.Cut(string(data), "\n")
			return strings.TrimSpace(line), true
		}
	}
	for _, d := range dirs {
		data, err := os.ReadFile(filepath.Join(d, "packed-refs"))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			id, ref, ok := strings.Cut(sc.Text(), " ")
			if ok && ref == name && !strings.HasPrefix(id, "#") && !strings.HasPrefix(id, "^") {
				return id, true
			}
		}
	}
	return "", false
}

// IsCommitID says whether s is a full commit id: 40 hex digits (SHA-1)
// or 64 (SHA-256), in lower case as git writes them.
func IsCommitID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
