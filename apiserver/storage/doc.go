// Package storage keeps API objects in etcd the way kube-apiserver does.
//
// An object lives at one key (for example /registry/pods/default/nginx),
// encoded by the Store's Codec: the API server's stores JSON by default,
// or Kubernetes' protobuf envelope (registry.StorageCodec). Its
// resourceVersion is the etcd mod revision of that key; a list's
// resourceVersion is the revision the read was served at. Creates are
// transactions on "the key does not exist yet", updates and deletes are
// transactions on "the key has not changed since I read it", so two writers
// never overwrite each other silently. Config.OnWrite is told of every
// write before the Store returns.
//
// Reads (Get, GetList) go to etcd. A list at a revision etcd has compacted
// is 410 Expired, one at a revision etcd has not reached 504 (Too large
// resource version); a paged list reads every page at the revision of its
// first, with continue tokens in kube-apiserver's format.
//
// Watches are served, while Run runs, by the Store's watch cache, as on
// kube-apiserver: one etcd watch per Store, each change decoded once for
// every watcher (a create the Store made itself not at all: the cache
// takes the Store's copy, writtenObjects), and each event it makes encoded once per form for all
// the watchers that write it (Event.Encodings, KEP-1152's cachingObject);
// with Config.WatchIndex (pods: spec.nodeName), a watcher whose field
// selector pins that field is handed only the changes of its value. The
// cache's history starts when the cache starts and is
// sized by WindowConfig: a watch from a resourceVersion older than that
// history gets one ERROR event with a 410 Expired Status ("too old
// resource version"), even if etcd still has the changes, and a watch the
// cache can serve is served after a compaction too; a watch while the
// cache (re)starts gets 429; a watcher that falls too far behind is
// dropped (its stream ends; the client watches again). Without Run, each
// watch is an etcd watch of its own, and a compacted resourceVersion ends
// it with 410 Expired, as the upstream etcd3 storage does. Either way a
// watch from resourceVersion N receives exactly the changes after N, in
// revision order.
//
// A Store serves one resource. It is safe for concurrent use; the
// goroutines of a watch are owned by its watcher, and ended and waited for
// by Stop.
package storage
