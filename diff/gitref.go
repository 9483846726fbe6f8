package diff

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// GitCheckout holds files as they were at a Git revision, written under a
// directory of the caller's, so that they can be loaded like any input.
type GitCheckout struct {
	// Paths are where the given paths are in the checkout, in order; a path
	// that did not exist at the revision is left out.
	Paths []string
	// Labels name each given path as Git does, "REV:dir/file.yaml"
	// relative to the top of its repository.
	Labels []string
	// prefixes maps the checkout directories to "REV:", for Relabel.
	prefixes map[string]string
}

// manifestExts are the extensions a directory of manifests is read for, as
// loader reads directories.
var manifestExts = map[string]bool{".yaml": true, ".yml": true, ".json": true}

// CheckoutGit writes the files under each of paths, as they were at rev in
// the Git repository holding the path, into dir. Paths are those of the
// working tree (files or directories, relative to the current directory
// or absolute, in any subdirectory of a repository); each must exist now.
// Only git itself is run, read-only: the working tree and index are not
// touched.
func CheckoutGit(rev string, paths []string, dir string) (*GitCheckout, error) {
	co := &GitCheckout{prefixes: map[string]string{}}
	repos := map[string]string{} // repository top → directory in dir
	commits := map[string]string{}
	for _, p := range paths {
		if p == "-" {
			return nil, errors.New("stdin (-) has no Git revision")
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil, err
		}
		if real, err = filepath.Abs(real); err != nil {
			return nil, err
		}
		st, err := os.Stat(real)
		if err != nil {
			return nil, err
		}
		gitDir := real
		if !st.IsDir() {
			gitDir = filepath.Dir(real)
		}
		top, err := git(gitDir, nil, "rev-parse", "--show-toplevel")
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		top = strings.TrimSpace(top)
		if t, err := filepath.EvalSymlinks(top); err == nil {
			top = t
		}
		rel, err := filepath.Rel(top, real)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("%s: not inside the repository at %s", p, top)
		}
		commit, ok := commits[top]
		if !ok {
			out, err := git(top, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
			if err != nil {
				return nil, fmt.Errorf("%q is not a commit in the repository at %s", rev, top)
			}
			commit = strings.TrimSpace(out)
			commits[top] = commit
		}
		root, ok := repos[top]
		if !ok {
			root = filepath.Join(dir, "repo"+strconv.Itoa(len(repos)))
			repos[top] = root
			co.prefixes[root+string(filepath.Separator)] = rev + ":"
		}
		n, err := writeTree(top, commit, filepath.ToSlash(rel), st.IsDir(), root)
		if err != nil {
			return nil, fmt.Errorf("%s at %s: %v", p, rev, err)
		}
		co.Labels = append(co.Labels, rev+":"+filepath.ToSlash(rel))
		if n > 0 {
			co.Paths = append(co.Paths, filepath.Join(root, rel))
		}
	}
	return co, nil
}

// Relabel replaces the checkout's directories in s (a file name or an
// error message naming files) by "REV:", so that "<tmp>/repo0/app.yaml:3"
// reads "origin/main:app.yaml:3".
func (co *GitCheckout) Relabel(s string) string {
	for prefix, label := range co.prefixes {
		s = strings.ReplaceAll(s, prefix, label)
	}
	return s
}

// writeTree writes the blobs under rel at commit into root/<their path>,
// only manifests when rel is a directory, and returns how many it wrote.
func writeTree(top, commit, rel string, isDir bool, root string) (int, error) {
	out, err := git(top, nil, "ls-tree", "-r", "-z", "--full-tree", commit, "--", rel)
	if err != nil {
		return 0, err
	}
	type blob struct{ oid, path string }
	var blobs []blob
	for _, entry := range strings.Split(out, "\x00") {
		meta, name, ok := strings.Cut(entry, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta) // mode type oid
		// Symbolic links (120000) and submodules are not manifests.
		if len(f) != 3 || f[1] != "blob" || f[0] == "120000" {
			continue
		}
		if isDir && !manifestExts[path.Ext(name)] {
			continue
		}
		blobs = append(blobs, blob{f[2], name})
	}
	if len(blobs) == 0 {
		return 0, nil
	}
	var req bytes.Buffer
	for _, b := range blobs {
		req.WriteString(b.oid + "\n")
	}
	contents, err := git(top, &req, "cat-file", "--batch")
	if err != nil {
		return 0, err
	}
	r := bufio.NewReader(strings.NewReader(contents))
	for _, b := range blobs {
		data, err := readBatchEntry(r)
		if err != nil {
			return 0, fmt.Errorf("reading %s: %v", b.path, err)
		}
		dst := filepath.Join(root, filepath.FromSlash(b.path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return 0, err
		}
		// Manifests may hold Secrets: readable by their owner only.
		if err := os.WriteFile(dst, data, 0o600); err != nil {
			return 0, err
		}
	}
	return len(blobs), nil
}

// readBatchEntry reads one "<oid> blob <size>\n<content>\n" answer of
// git cat-file --batch.
func readBatchEntry(r *bufio.Reader) ([]byte, error) {
	header, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	f := strings.Fields(header)
	if len(f) != 3 || f[1] != "blob" {
		return nil, fmt.Errorf("unexpected git cat-file answer %q", strings.TrimSpace(header))
	}
	size, err := strconv.Atoi(f[2])
	if err != nil {
		return nil, err
	}
	data := make([]byte, size+1) // and the newline after the content
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, err
	}
	return data[:size], nil
}

// git runs git in dir and returns its output. Pathspecs are literal, so a
// file name with * or : means itself; no pager or prompt can block.
func git(dir string, stdin io.Reader, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"--literal-pathspecs", "-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat")
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("git %s: %s", args[0], msg)
		}
		return "", fmt.Errorf("git %s: %v", args[0], err)
	}
	return stdout.String(), nil
}
