package embedetcd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// The bbolt file format, as far as checkDB reads it (go.etcd.io/bbolt,
// internal/common: page.go, meta.go, bucket.go). Integers are in the
// machine's byte order; kubesim runs on little-endian machines only.
const (
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	pageHeaderSize   = 16 // id uint64, flags uint16, count uint16, overflow uint32
	elementSize      = 16 // a branch or leaf element
	bucketHeaderSize = 16 // root pgid uint64, sequence uint64
	metaChecksumAt   = 56 // the meta's checksum covers the bytes before it
	metaSize         = 64
	branchPage       = 0x01
	leafPage         = 0x02
	bucketLeaf       = 0x01
	// maxTreeDepth bounds the walk: a real tree is a few levels deep, a
	// cycle in a corrupt one would never end.
	maxTreeDepth = 64
)

var le = binary.LittleEndian

// checkDB reads etcd's bbolt database at path with plain reads and
// reports the first reason it cannot be opened safely: no valid meta
// page, pages beyond the end of the file, or a tree whose pages are not
// what their parents say. bbolt maps the file into memory and walks that
// tree when it opens it, so such a file kills the process with SIGBUS or
// a panic that no caller can recover; checkDB finds it first. A missing
// or empty file is fine: bbolt starts a new database in it. On a file
// that checks, it also returns the index of the last raft log entry etcd
// applied to it (consistentIndex; 0 for none), read on the same open
// file.
func checkDB(path string) (applied uint64, err error) {
	c, err := openForCheck(path)
	if err != nil || c == nil {
		return 0, err
	}
	defer c.r.(io.Closer).Close()
	root, err := c.meta()
	if err != nil {
		return 0, err
	}
	if err := c.tree(root, 0); err != nil {
		return 0, err
	}
	return c.consistentIndex(root)
}

// openForCheck opens path for checkDB; nil (and no error) when the file
// is missing or empty: bbolt starts a new database there.
func openForCheck(path string) (*dbChecker, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		f.Close()
		return nil, err
	}
	return &dbChecker{r: f, size: fi.Size(), seen: map[uint64]bool{}}, nil
}

// dbChecker walks one bbolt file.
type dbChecker struct {
	r        io.ReaderAt
	size     int64
	pageSize int64
	hwm      uint64 // the high-water mark: pages below it are in use or free
	seen     map[uint64]bool
}

// meta validates the two meta pages, as bbolt does (magic, version,
// checksum), keeps the newer valid one and returns its root bucket's page.
func (c *dbChecker) meta() (uint64, error) {
	if c.size < pageHeaderSize+metaSize {
		return 0, fmt.Errorf("the database file has %d bytes, too few for its meta pages", c.size)
	}
	first, err := c.readMeta(0)
	if err != nil {
		return 0, err
	}
	c.pageSize = int64(le.Uint32(first[8:]))
	if !validMeta(first) {
		c.pageSize = int64(os.Getpagesize()) // meta 0 is damaged: read meta 1 where bbolt would
	}
	if c.size < 2*c.pageSize {
		return 0, fmt.Errorf("the database file has %d bytes, too few for its two meta pages of %d bytes (truncated?)", c.size, c.pageSize)
	}
	second, err := c.readMeta(c.pageSize)
	if err != nil {
		return 0, err
	}
	var best []byte
	for _, m := range [][]byte{first, second} {
		if validMeta(m) && (best == nil || le.Uint64(m[48:]) > le.Uint64(best[48:])) {
			best = m
		}
	}
	if best == nil {
		return 0, errors.New("neither meta page of the database is valid (magic, version or checksum)")
	}
	c.pageSize, c.hwm = int64(le.Uint32(best[8:])), le.Uint64(best[40:])
	if need := int64(c.hwm) * c.pageSize; need > c.size {
		return 0, fmt.Errorf("the database file has %d bytes but its pages reach byte %d (truncated?)", c.size, need)
	}
	return le.Uint64(best[16:]), nil
}

func (c *dbChecker) readMeta(off int64) ([]byte, error) {
	m := make([]byte, metaSize)
	if _, err := c.r.ReadAt(m, off+pageHeaderSize); err != nil {
		return nil, fmt.Errorf("read meta page at %d: %w", off, err)
	}
	return m, nil
}

func validMeta(m []byte) bool {
	h := fnv.New64a()
	h.Write(m[:metaChecksumAt])
	return le.Uint32(m[0:]) == boltMagic && le.Uint32(m[4:]) == boltVersion &&
		le.Uint64(m[metaChecksumAt:]) == h.Sum64() && le.Uint32(m[8:]) >= 512 && le.Uint32(m[8:]) <= 1<<20
}

// tree checks the page id and every page below it (branches, leaves and
// the buckets nested in leaves).
func (c *dbChecker) tree(id uint64, depth int) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("page %d: the tree is deeper than %d levels (a cycle?)", id, maxTreeDepth)
	}
	if id < 2 || id >= c.hwm {
		return fmt.Errorf("page %d: out of bounds (pages in use are 2 to %d)", id, c.hwm-1)
	}
	if c.seen[id] {
		return fmt.Errorf("page %d: referenced twice", id)
	}
	c.seen[id] = true
	p, err := c.page(id)
	if err != nil {
		return err
	}
	return c.elements(p, id, depth)
}

// page reads page id with its overflow pages and checks its header.
func (c *dbChecker) page(id uint64) ([]byte, error) {
	hdr := make([]byte, pageHeaderSize)
	if _, err := c.r.ReadAt(hdr, int64(id)*c.pageSize); err != nil {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	if got := le.Uint64(hdr); got != id {
		return nil, fmt.Errorf("page %d: its header says page %d", id, got)
	}
	n := int64(le.Uint32(hdr[12:])) + 1
	if uint64(n) > c.hwm-id {
		return nil, fmt.Errorf("page %d: %d overflow pages reach past the high-water mark %d", id, n-1, c.hwm)
	}
	p := make([]byte, n*c.pageSize)
	if _, err := c.r.ReadAt(p, int64(id)*c.pageSize); err != nil {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	return p, nil
}

// elements checks the elements of page p (read as id): their keys and
// values lie inside the page, branches point at pages that check, and
// buckets stored in leaves check too.
func (c *dbChecker) elements(p []byte, id uint64, depth int) error {
	flags, count := le.Uint16(p[8:]), int(le.Uint16(p[10:]))
	if flags != branchPage && flags != leafPage {
		return fmt.Errorf("page %d: type %#x where a branch or leaf page belongs", id, flags)
	}
	if pageHeaderSize+count*elementSize > len(p) {
		return fmt.Errorf("page %d: %d elements do not fit in the page", id, count)
	}
	for i := range count {
		at := pageHeaderSize + i*elementSize
		e := p[at : at+elementSize]
		if flags == branchPage {
			if err := c.inside(p, id, at, int(le.Uint32(e[0:])), int(le.Uint32(e[4:]))); err != nil {
				return err
			}
			if err := c.tree(le.Uint64(e[8:]), depth+1); err != nil {
				return err
			}
			continue
		}
		pos, ksize, vsize := int(le.Uint32(e[4:])), int(le.Uint32(e[8:])), int(le.Uint32(e[12:]))
		if err := c.inside(p, id, at, pos, ksize+vsize); err != nil {
			return err
		}
		if le.Uint32(e[0:])&bucketLeaf != 0 {
			if err := c.bucket(p[at+pos+ksize:at+pos+ksize+vsize], id, depth); err != nil {
				return err
			}
		}
	}
	return nil
}

// inside checks that n bytes at pos from the element at offset at lie in p.
func (c *dbChecker) inside(p []byte, id uint64, at, pos, n int) error {
	if start := at + pos; pos < 0 || n < 0 || start+n > len(p) || start+n < start {
		return fmt.Errorf("page %d: an element's data lies outside the page", id)
	}
	return nil
}

// bucket checks a bucket stored as a leaf value: its own tree, or the
// inline page that follows its header.
func (c *dbChecker) bucket(v []byte, id uint64, depth int) error {
	if len(v) < bucketHeaderSize {
		return fmt.Errorf("page %d: a bucket header of %d bytes", id, len(v))
	}
	if root := le.Uint64(v); root != 0 {
		return c.tree(root, depth+1)
	}
	inline := v[bucketHeaderSize:]
	if len(inline) < pageHeaderSize {
		return fmt.Errorf("page %d: an inline bucket of %d bytes", id, len(inline))
	}
	return c.elements(inline, id, depth+1)
}
