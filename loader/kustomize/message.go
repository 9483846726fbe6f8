package kustomize

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// privateKeys are what kustomize's messages may quote of a Secret (some
// quote a whole patch or resource): PEM private key blocks, and the
// values of fields named like keys.
var privateKeys = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)`),
		regexp.MustCompile(`(?i)([\w.-]*key[\w.-]*"?\s*:\s*)[^\s,}]{16,}`),
	}
})

// Message is a kustomize (or other build tool's) error as contourc prints it: paths
// from the working directory, as contourc names files elsewhere, and no
// private key that the message quoted.
func Message(msg string) string {
	msg = relativeToCwd(msg)
	msg = privateKeys()[0].ReplaceAllString(msg, "[private key removed]")
	return privateKeys()[1].ReplaceAllString(msg, "${1}[removed]")
}

// relativeToCwd shortens the absolute paths in a message to paths from
// the working directory.
func relativeToCwd(msg string) string {
	wd, err := os.Getwd()
	if err != nil {
		return msg
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		msg = strings.ReplaceAll(msg, real+string(filepath.Separator), "")
	}
	return strings.ReplaceAll(msg, wd+string(filepath.Separator), "")
}
