// Package embedetcd runs a single-member etcd inside the kubesim process.
//
// The member listens on unix sockets in its own data directory (mode 0700),
// so only this process's user can reach it; the API server talks to it
// over gRPC through that socket. (An in-process v3client was tried first:
// its unbuffered in-memory stream deadlocks when many watches end at once.)
// All of etcd's logs go to a file, never to the terminal.
package embedetcd
