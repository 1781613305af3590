// Package embedetcd runs a single-member etcd inside the kubesim process.
//
// The member's one endpoint is its client socket, a unix socket file (mode
// 0600) in its own data directory (mode 0700), so only this process's user
// can reach it; the API server talks to it over gRPC through that socket.
// A member alone needs no peer listener and has none (etcd would give a
// path-only unix peer URL an abstract socket, open to every local user).
// (An in-process v3client was tried first: its unbuffered in-memory
// stream deadlocks when many watches end at once.)
//
// Start checks the database and the write-ahead log before etcd opens
// them, with plain reads, so that damaged data is an error
// (*CorruptError) rather than a crash or a hang inside etcd, and gives
// up when its context is done. All of etcd's logs go to a file (mode
// 0600), never to the terminal.
package embedetcd
