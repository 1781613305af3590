// Package etcdtest gives tests a throw-away embedded etcd member in their
// own temporary directory.
package etcdtest
