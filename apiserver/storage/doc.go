// Package storage keeps API objects in etcd the way kube-apiserver does.
//
// An object lives at one key (for example /registry/pods/default/nginx) as
// JSON. Its resourceVersion is the etcd mod revision of that key; a list's
// resourceVersion is the revision the read was served at. Creates are
// transactions on "the key does not exist yet", updates and deletes are
// transactions on "the key has not changed since I read it", so two writers
// never overwrite each other silently.
//
// Watches are etcd watches: a watch from resourceVersion N receives exactly
// the changes made after N, in revision order, and a compacted N ends the
// watch with a 410 Expired error, as the upstream etcd3 storage does.
//
// A Store serves one resource. It is safe for concurrent use; every watch
// runs one goroutine, owned by the watcher and ended by Stop.
package storage
