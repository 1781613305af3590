package embedetcd

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// etcd keeps the index of the last raft log entry it applied to its
// database in the bucket "meta", key "consistent_index", as 8 big-endian
// bytes (go.etcd.io/etcd/server/v3/storage/schema: bucket.go, cindex.go).
var (
	metaBucket         = []byte("meta")
	consistentIndexKey = []byte("consistent_index")
)

// consistentIndex returns the index of the last raft log entry etcd
// applied to the database whose root bucket is on page root; 0 when it
// holds no index (a member stopped before it applied anything). Call it
// only on a file whose tree checked (checkDB does).
func (c *dbChecker) consistentIndex(root uint64) (uint64, error) {
	p, err := c.page(root)
	if err != nil {
		return 0, err
	}
	v, isBucket, err := c.lookup(p, root, metaBucket)
	if err != nil || v == nil || !isBucket {
		return 0, err
	}
	if p, err = c.bucketPage(v, root); err != nil {
		return 0, err
	}
	v, isBucket, err = c.lookup(p, root, consistentIndexKey)
	switch {
	case err != nil || v == nil:
		return 0, err
	case isBucket || len(v) != 8:
		return 0, fmt.Errorf("the database's consistent index is not 8 bytes (%d)", len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

// bucketPage returns the root page of the bucket whose leaf value is v
// (found on page id): the inline page that follows its header, or the
// page its header names.
func (c *dbChecker) bucketPage(v []byte, id uint64) ([]byte, error) {
	if len(v) < bucketHeaderSize {
		return nil, fmt.Errorf("page %d: a bucket header of %d bytes", id, len(v))
	}
	root := le.Uint64(v)
	if root == 0 {
		if len(v) < bucketHeaderSize+pageHeaderSize {
			return nil, fmt.Errorf("page %d: an inline bucket of %d bytes", id, len(v)-bucketHeaderSize)
		}
		return v[bucketHeaderSize:], nil
	}
	if root < 2 || root >= c.hwm {
		return nil, fmt.Errorf("page %d: a bucket's root page %d is out of bounds", id, root)
	}
	return c.page(root)
}

// lookup finds key in the tree whose root is page p (read as page id),
// as bbolt's cursor does: down the branch whose first key is the
// greatest not above key, to a leaf. It returns the value (nil when key
// is absent) and whether it is a bucket.
func (c *dbChecker) lookup(p []byte, id uint64, key []byte) (value []byte, isBucket bool, err error) {
	for depth := 0; ; depth++ {
		if depth > maxTreeDepth {
			return nil, false, fmt.Errorf("page %d: the tree is deeper than %d levels (a cycle?)", id, maxTreeDepth)
		}
		flags, count := le.Uint16(p[8:]), int(le.Uint16(p[10:]))
		if pageHeaderSize+count*elementSize > len(p) {
			return nil, false, fmt.Errorf("page %d: %d elements do not fit in the page", id, count)
		}
		if flags == leafPage {
			return c.leafValue(p, id, count, key)
		}
		if flags != branchPage {
			return nil, false, fmt.Errorf("page %d: type %#x where a branch or leaf page belongs", id, flags)
		}
		child := uint64(0)
		for i := range count {
			at := pageHeaderSize + i*elementSize
			e := p[at : at+elementSize]
			pos, ksize := int(le.Uint32(e[0:])), int(le.Uint32(e[4:]))
			if err := c.inside(p, id, at, pos, ksize); err != nil {
				return nil, false, err
			}
			if i > 0 && bytes.Compare(p[at+pos:at+pos+ksize], key) > 0 {
				break
			}
			child = le.Uint64(e[8:])
		}
		if child < 2 || child >= c.hwm {
			return nil, false, fmt.Errorf("page %d: a branch to page %d, out of bounds", id, child)
		}
		if p, err = c.page(child); err != nil {
			return nil, false, err
		}
		id = child
	}
}

// leafValue finds key among the count elements of leaf page p.
func (c *dbChecker) leafValue(p []byte, id uint64, count int, key []byte) ([]byte, bool, error) {
	for i := range count {
		at := pageHeaderSize + i*elementSize
		e := p[at : at+elementSize]
		pos, ksize, vsize := int(le.Uint32(e[4:])), int(le.Uint32(e[8:])), int(le.Uint32(e[12:]))
		if err := c.inside(p, id, at, pos, ksize+vsize); err != nil {
			return nil, false, err
		}
		if k := p[at+pos : at+pos+ksize]; bytes.Equal(k, key) {
			return p[at+pos+ksize : at+pos+ksize+vsize], le.Uint32(e[0:])&bucketLeaf != 0, nil
		}
	}
	return nil, false, nil
}
