// Package walk turns the paths given to the loader into the files it
// reads: directories walked for .yaml, .yml and .json files, hidden files,
// Helm charts and --exclude patterns left out (filter.go), a directory
// reached twice through links walked once, and each file opened without
// blocking on a named pipe (open.go). It reads no file's contents.
package walk
