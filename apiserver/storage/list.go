package storage

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ListOptions qualify GetList and Watch. The meaning of ResourceVersion and
// ResourceVersionMatch is the one of the Kubernetes API concepts page.
type ListOptions struct {
	ResourceVersion      string
	ResourceVersionMatch metav1.ResourceVersionMatch
	Predicate            Predicate
	// AllowWatchBookmarks asks a watch for BOOKMARK events.
	AllowWatchBookmarks bool
	// SendInitialEvents asks a watch to start with the current state as
	// ADDED events, ended by an annotated BOOKMARK.
	SendInitialEvents *bool
}

// listPageSize is how many keys GetList reads from etcd per round trip
// when a selector filters the result.
const listPageSize = 500

// GetList lists the objects under key (a prefix ending in "/") or the one
// object at key, filtered by opts.Predicate, one page at a time when
// opts.Predicate.Limit is set. Every page of a paged list is read at the
// revision of the first page. Errors are the API errors kube-apiserver
// gives: 400 for a bad continue token or resourceVersion, 410 for a
// revision etcd has compacted, 504 for one it has not reached yet.
func (s *Store) GetList(ctx context.Context, key string, opts ListOptions) (runtime.Object, error) {
	rd, err := planList(key, opts)
	if err != nil {
		return nil, err
	}
	read, err := s.readList(ctx, &rd, opts.Predicate)
	if err != nil {
		return nil, err
	}
	return s.listObject(&rd, opts.Predicate, read)
}

// listRead is how one GetList reads etcd, decided from its key and options
// before the first read.
type listRead struct {
	// key is the list's key: a prefix ending in "/", or one object's key.
	key string
	// recursive: key is a prefix. paging: recursive with a limit, so
	// the list is one page of at most Predicate.Limit items.
	recursive, paging bool
	// continuing: the options carry a continue token (what a list at a
	// compacted revision is told, listError).
	continuing bool
	// start is the first key read.
	start string
	// rev is the revision read at; 0 until the first read fixes it at the
	// latest, which must then be at least minRev.
	rev, minRev int64
}

// planList decides how GetList reads key with opts: a continue token gives
// the start key and the revision of the list's first page (the latest, for
// a token that continues there); otherwise opts.ResourceVersion and
// ResourceVersionMatch give an exact revision or a lower bound
// (resourceVersionBounds). Invalid options are a 400 with kube-apiserver's
// message; an unknown match a plain error.
func planList(key string, opts ListOptions) (listRead, error) {
	pred := opts.Predicate
	rd := listRead{key: key, start: key, recursive: strings.HasSuffix(key, "/"), continuing: pred.Continue != ""}
	rd.paging = rd.recursive && pred.Limit > 0
	if rd.recursive && pred.Continue != "" {
		start, rv, err := decodeContinue(pred.Continue, key)
		if err != nil {
			return listRead{}, apierrors.NewBadRequest(fmt.Sprintf("invalid continue token: %v", err))
		}
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			return listRead{}, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		rd.start = start
		if rv > 0 {
			rd.rev = rv
		}
		return rd, nil
	}
	if opts.ResourceVersion == "" {
		return rd, nil
	}
	rv, err := ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return listRead{}, badResourceVersion(err)
	}
	rd.rev, rd.minRev, err = resourceVersionBounds(rv, opts.ResourceVersionMatch, rd.paging)
	return rd, err
}

// resourceVersionBounds returns, for a list at resourceVersion rv with
// match, the exact revision to read at (0: the latest) or the oldest
// revision the latest may be (0: any). Without a match (the legacy
// semantics) rv is exact for the first page of a paged list and a lower
// bound otherwise.
func resourceVersionBounds(rv int64, match metav1.ResourceVersionMatch, paging bool) (exact, minimum int64, err error) {
	switch match {
	case metav1.ResourceVersionMatchExact:
		return rv, 0, nil
	case metav1.ResourceVersionMatchNotOlderThan:
		return 0, rv, nil
	case "":
		if paging && rv > 0 {
			return rv, 0, nil
		}
		return 0, rv, nil
	}
	return 0, 0, fmt.Errorf("unknown ResourceVersionMatch value: %v", match)
}

// listItems is what the etcd reads of one list found.
type listItems struct {
	// items are the objects the predicate matched, in key order.
	items []runtime.Object
	// lastKey is the last key read (matched or not); nil if none.
	lastKey []byte
	// more: etcd has keys in range after lastKey.
	more bool
	// remaining counts the keys after the page's last item, when the
	// predicate selects everything and the page is full; else -1.
	remaining int64
}

// readList reads the list rd plans from etcd: one read, or for a paged
// list as many as it takes to fill the page with items pred matches,
// reading ahead listPageSize keys at a time when pred filters. The first
// read fixes rd.rev at etcd's revision if it was 0, and checks it against
// rd.minRev.
func (s *Store) readList(ctx context.Context, rd *listRead, pred Predicate) (*listItems, error) {
	read := &listItems{remaining: -1}
	ops := rd.getOptions(readLimit(pred))
	start := rd.start
	for {
		began := time.Now()
		resp, err := s.client.Get(ctx, start, append(ops, rd.revOption()...)...)
		s.observe("list", began, err)
		if err != nil {
			return nil, s.listError(ctx, err, rd.rev, rd.continuing, start, rd.key)
		}
		if rd.rev == 0 {
			rd.rev = resp.Header.Revision
			if err := checkMinimumRV(rd.minRev, rd.rev); err != nil {
				return nil, err
			}
		}
		if err := s.collect(read, resp, pred, rd.paging); err != nil {
			return nil, err
		}
		if !rd.paging || !read.more || int64(len(read.items)) >= pred.Limit {
			return read, nil
		}
		start = string(read.lastKey) + "\x00"
	}
}

// readLimit is how many keys one etcd read of a list asks for: the page
// size, at least listPageSize when pred filters (a selector may drop most
// of what is read); 0 (no limit) for a list without a limit.
func readLimit(pred Predicate) int64 {
	limit := pred.Limit
	if !pred.Empty() && limit > 0 && limit < listPageSize {
		limit = listPageSize
	}
	return limit
}

// getOptions are the options of each etcd read of rd, but its revision:
// the range under a prefix and, for a paged list, the limit.
func (rd *listRead) getOptions(limit int64) []clientv3.OpOption {
	var ops []clientv3.OpOption
	if rd.recursive {
		ops = append(ops, clientv3.WithRange(clientv3.GetPrefixRangeEnd(rd.key)))
	}
	if rd.recursive && limit > 0 {
		ops = append(ops, clientv3.WithLimit(limit))
	}
	return ops
}

// revOption is the revision option of an etcd read of rd: none until the
// first read has fixed rd.rev.
func (rd *listRead) revOption() []clientv3.OpOption {
	if rd.rev > 0 {
		return []clientv3.OpOption{clientv3.WithRev(rd.rev)}
	}
	return nil
}

// collect adds to read the objects of one etcd read that pred matches. A
// paged list stops at pred.Limit items (read.more then says that keys
// are left); when pred selects everything, the read's count gives how
// many keys follow the page's last item.
func (s *Store) collect(read *listItems, resp *clientv3.GetResponse, pred Predicate, paging bool) error {
	read.more = resp.More
	for i, kv := range resp.Kvs {
		if paging && int64(len(read.items)) >= pred.Limit {
			read.more = true
			return nil
		}
		read.lastKey = kv.Key
		obj, err := s.decode(kv.Value, kv.ModRevision)
		if err != nil {
			return err
		}
		ok, err := pred.Matches(obj)
		if err != nil {
			return err
		}
		if ok {
			read.items = append(read.items, obj)
		}
		if pred.Empty() && paging && int64(len(read.items)) == pred.Limit {
			// Remaining = everything in range after this key.
			read.remaining = resp.Count - int64(i) - 1
		}
	}
	return nil
}

// listObject returns the list of read's items at revision rd.rev; a paged
// list with keys left gets the continue token of the next page and, when
// its predicate selects everything, the count of the items left.
func (s *Store) listObject(rd *listRead, pred Predicate, read *listItems) (runtime.Object, error) {
	list := s.newList()
	if err := meta.SetList(list, read.items); err != nil {
		return nil, err
	}
	dropItemKinds(list)
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return nil, err
	}
	lm.SetResourceVersion(strconv.FormatInt(rd.rev, 10))
	// Every list gets a continue token, empty on the last page, as
	// upstream's UpdateList sets it: a custom resource list (unstructured)
	// then shows "continue": "", a typed list's omitempty hides it.
	lm.SetContinue("")
	if rd.paging && read.more && read.lastKey != nil {
		token, err := encodeContinue(string(read.lastKey)+"\x00", rd.key, rd.rev)
		if err != nil {
			return nil, err
		}
		lm.SetContinue(token)
		if pred.Empty() && read.remaining >= 0 {
			lm.SetRemainingItemCount(&read.remaining)
		}
	}
	return list, nil
}

// dropItemKinds clears the apiVersion and kind of a typed list's items,
// which kube-apiserver's lists do not carry (it converts its internal
// objects, which have none, and sets them on the list alone). The items
// are the list's own copies of the stored objects, so the objects cached
// keep theirs. A custom resource list's items keep theirs, as upstream's.
func dropItemKinds(list runtime.Object) {
	if _, ok := list.(*unstructured.UnstructuredList); ok {
		return
	}
	_ = meta.EachListItem(list, func(o runtime.Object) error {
		o.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		return nil
	})
}

// listError turns etcd's answer to a list at an old or future revision into
// the API error kube-apiserver gives.
func (s *Store) listError(ctx context.Context, err error, withRev int64, continuing bool, continueKey, prefix string) error {
	if errors.Is(err, rpctypes.ErrFutureRev) {
		current, cerr := s.CurrentRevision(ctx)
		if cerr != nil {
			return err
		}
		return tooLargeResourceVersion(withRev, current)
	}
	if !errors.Is(err, rpctypes.ErrCompacted) {
		return err
	}
	if !continuing {
		return apierrors.NewResourceExpired("The resourceVersion for the provided list is too old.")
	}
	// Offer a token that continues at the latest revision, as upstream does.
	st := apierrors.NewResourceExpired("The provided continue parameter is too old " +
		"to display a consistent list result. You can start a new list without " +
		"the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided " +
		"token results in an inconsistent list - objects that were created, " +
		"modified, or deleted between the time the first chunk was returned " +
		"and now may show up in the list.")
	if token, terr := encodeContinue(continueKey, prefix, -1); terr == nil {
		st.ErrStatus.ListMeta.Continue = token
	}
	return st
}
