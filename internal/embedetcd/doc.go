// Package embedetcd runs a single-member etcd inside the kubesim process.
//
// The member listens on loopback only; the API server talks to it through an
// in-process client (v3client), so nothing outside the process needs the
// etcd ports. All of etcd's logs go to a file, never to the terminal.
package embedetcd
