// Package gitrepo says which repository a checkout is, without the git
// binary: the root found upward from a path, the URL of its origin remote
// read from the repository's config, and a normal form of git URLs in
// which the ssh and https forms of one repository are the same. Flux
// GitRepositories and Argo CD Applications name their repository by URL;
// contourc follows those that name the checkout it is given.
package gitrepo

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Root is the root of the repository that holds path: the nearest
// directory at or above it with a .git directory or file (a worktree's or
// a submodule's). ok is false outside any repository.
func Root(path string) (root string, ok bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	if st, err := os.Stat(abs); err == nil && !st.IsDir() {
		abs = filepath.Dir(abs)
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// OriginURL is the URL of the origin remote of the repository at root
// ("" when it has none). A .git file ("gitdir: ...", a worktree or
// submodule) is followed to its git directory, and a worktree's to the
// common directory that holds the config.
func OriginURL(root string) (string, error) {
	gitDir, err := gitDirOf(root)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join(gitDir, "config"))
	if errors.Is(err, os.ErrNotExist) {
		if common, ok := commonDir(gitDir); ok {
			data, err = os.ReadFile(filepath.Join(common, "config"))
		}
	}
	if err != nil {
		return "", err
	}
	return remoteURL(data, "origin"), nil
}

// gitDirOf is the git directory of the repository at root.
func gitDirOf(root string) (string, error) {
	dotGit := filepath.Join(root, ".git")
	st, err := os.Stat(dotGit)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		return dotGit, nil
	}
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	dir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return "", errors.New(dotGit + ": not a gitdir file")
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	return dir, nil
}

// commonDir is the directory a worktree's git directory shares with the
// main checkout (its "commondir" file), which holds the config.
func commonDir(gitDir string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return "", false
	}
	dir := strings.TrimSpace(string(data))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(gitDir, dir)
	}
	return dir, true
}

// remoteURL reads the url of a remote from git config text: the first
// url key of its [remote "NAME"] section, as git uses for fetching.
func remoteURL(config []byte, name string) string {
	want := `remote "` + name + `"`
	in := false
	sc := bufio.NewScanner(bytes.NewReader(config))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			section := strings.TrimSpace(strings.Trim(line, "[]"))
			in = section == want
			continue
		}
		if !in {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if ok && strings.EqualFold(strings.TrimSpace(key), "url") {
			return strings.Trim(strings.TrimSpace(value), `"`)
		}
	}
	return ""
}

// Normalize is the form of a git URL in which the URLs of one repository
// are equal: host (lower case, without user or port) and path, without
// scheme, trailing slash or ".git" suffix. https://github.com/org/repo,
// ssh://git@github.com/org/repo.git and git@github.com:org/repo are all
// "github.com/org/repo". A local path stays a cleaned path.
func Normalize(url string) string {
	url = strings.TrimSpace(url)
	var hostPath string
	if scheme, rest, ok := strings.Cut(url, "://"); ok && !strings.ContainsAny(scheme, "/@") {
		if strings.EqualFold(scheme, "file") {
			return filepath.Clean(rest)
		}
		hostPath = rest
	} else if host, path, ok := scpLike(url); ok {
		hostPath = host + "/" + path
	} else {
		return filepath.Clean(url)
	}
	host, path, _ := strings.Cut(hostPath, "/")
	if at := strings.LastIndex(host, "@"); at >= 0 {
		host = host[at+1:]
	}
	if h, _, ok := strings.Cut(host, ":"); ok && !strings.HasPrefix(host, "[") {
		host = h
	}
	path = strings.Trim(path, "/")
	path = strings.TrimSuffix(path, ".git")
	path = strings.TrimSuffix(path, "/")
	return strings.ToLower(host) + "/" + path
}

// scpLike splits git's scp-like ssh form, [user@]host:path, which has no
// scheme and a colon before any slash.
func scpLike(url string) (host, path string, ok bool) {
	colon := strings.Index(url, ":")
	slash := strings.Index(url, "/")
	if colon <= 0 || (slash >= 0 && slash < colon) {
		return "", "", false
	}
	return url[:colon], url[colon+1:], true
}

// Same reports whether two git URLs name the same repository.
func Same(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	return Normalize(a) == Normalize(b)
}
