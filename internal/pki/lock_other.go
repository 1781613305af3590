//go:build !unix

package pki

// LockFileName is the lock file of Config.Dir on systems with flock;
// elsewhere nothing is locked, and one process at a time must own Dir.
const LockFileName = "pki.lock"

func lockDir(string) (func(), error) { return func() {}, nil }
