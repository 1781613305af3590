package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Rotation bounds the audit log file as kube-apiserver's
// --audit-log-maxsize, --audit-log-maxbackup and --audit-log-maxage do
// (upstream hands them to the lumberjack package; kubesim rotates the
// same way here). The zero value never rotates.
type Rotation struct {
	// MaxSizeMB is the size in megabytes (2^20 bytes) the file may reach
	// before it is renamed to a backup and a new file started; 0
	// disables rotation (upstream: "not recommended").
	MaxSizeMB int
	// MaxBackups is how many backups are kept, the newest (0: all).
	MaxBackups int
	// MaxAgeDays removes backups older than this many days, by the time
	// in their name (0: none for their age).
	MaxAgeDays int
}

// Validate reports a negative field, worded as kube-apiserver's.
func (r Rotation) Validate() error {
	for _, f := range []struct {
		flag  string
		value int
	}{{"audit-log-maxage", r.MaxAgeDays}, {"audit-log-maxbackup", r.MaxBackups}, {"audit-log-maxsize", r.MaxSizeMB}} {
		if f.value < 0 {
			return fmt.Errorf("--%s %v can't be a negative number", f.flag, f.value)
		}
	}
	return nil
}

// backupTimeFormat is the time in a backup's name, in UTC, as lumberjack
// writes it: audit.log becomes audit-2026-12-01T19-18-37.123.log.
const backupTimeFormat = "2006-01-02T15-04-05.000"

// RotatingLog is an audit log file (for Config.AuditLog) rotated as
// kube-apiserver's: a Write that would take the file past MaxSizeMB first
// renames it to <name>-<UTC time>.<ext> and starts a new one, then removes
// the backups past MaxBackups (oldest first) and those older than
// MaxAgeDays. Each Write goes to the file whole, in one write call, so an
// audit event's line is never split between two files. Upstream removes
// old backups in the background; kubesim does it inside the Write that
// rotated. Safe for concurrent use.
type RotatingLog struct {
	path     string
	rotation Rotation
	maxBytes int64
	now      func() time.Time

	mu   sync.Mutex
	f    *os.File
	size int64
}

// OpenRotatingLog opens the audit log at path as OpenLog does
// (0600, appending, a torn last line ended) and rotates it by r. The
// caller closes it.
func OpenRotatingLog(path string, r Rotation) (*RotatingLog, error) {
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("apiserver: audit log: %w", err)
	}
	l := &RotatingLog{path: path, rotation: r, maxBytes: int64(r.MaxSizeMB) << 20, now: time.Now}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *RotatingLog) open() error {
	f, err := OpenLog(l.path)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("apiserver: audit log: %w", err)
	}
	l.f, l.size = f, fi.Size()
	return nil
}

// Write appends p, rotating first if p would take the file past the
// limit. A p larger than the limit itself is refused, as lumberjack does.
func (l *RotatingLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, os.ErrClosed
	}
	if l.maxBytes > 0 && int64(len(p)) > l.maxBytes {
		return 0, fmt.Errorf("apiserver: audit log: write of %d bytes exceeds the maximum file size of %d", len(p), l.maxBytes)
	}
	// A failed rename (the full file stays open) or a failure to remove
	// old backups does not lose p; it is reported once p is written.
	var rotateErr error
	if l.maxBytes > 0 && l.size+int64(len(p)) > l.maxBytes {
		if rotateErr = l.rotate(); rotateErr == nil {
			rotateErr = l.removeOldBackups()
		}
		if l.f == nil {
			return 0, rotateErr
		}
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	if err == nil {
		err = rotateErr
	}
	return n, err
}

// rotate renames the full file to a backup and opens a new one; if the
// rename fails, the full file stays open. l.mu is held.
func (l *RotatingLog) rotate() error {
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("apiserver: audit log: %w", err)
	}
	l.f = nil
	renameErr := os.Rename(l.path, l.backupName(l.now()))
	if err := l.open(); err != nil {
		return err
	}
	if renameErr != nil {
		return fmt.Errorf("apiserver: audit log rotation: %w", renameErr)
	}
	return nil
}

// backupName is the name of a backup made at t.
func (l *RotatingLog) backupName(t time.Time) string {
	dir, base := filepath.Split(l.path)
	ext := filepath.Ext(base)
	return filepath.Join(dir, strings.TrimSuffix(base, ext)+"-"+t.UTC().Format(backupTimeFormat)+ext)
}

// backup is a backup file and the time in its name.
type backup struct {
	path string
	made time.Time
}

// backups lists the backups of l's file, newest first. Files whose name
// does not parse are not backups, and are left alone.
func (l *RotatingLog) backups() ([]backup, error) {
	dir, base := filepath.Split(l.path)
	ext := filepath.Ext(base)
	prefix := strings.TrimSuffix(base, ext) + "-"
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []backup
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ext) {
			continue
		}
		t, err := time.Parse(backupTimeFormat, strings.TrimSuffix(strings.TrimPrefix(name, prefix), ext))
		if err != nil {
			continue
		}
		out = append(out, backup{path: filepath.Join(dir, name), made: t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].made.After(out[j].made) })
	return out, nil
}

// removeOldBackups removes the backups past MaxBackups and those older
// than MaxAgeDays.
func (l *RotatingLog) removeOldBackups() error {
	if l.rotation.MaxBackups == 0 && l.rotation.MaxAgeDays == 0 {
		return nil
	}
	backups, err := l.backups()
	if err != nil {
		return fmt.Errorf("apiserver: audit log backups: %w", err)
	}
	cutoff := l.now().Add(-time.Duration(l.rotation.MaxAgeDays) * 24 * time.Hour)
	var errs []string
	for i, b := range backups {
		tooMany := l.rotation.MaxBackups > 0 && i >= l.rotation.MaxBackups
		tooOld := l.rotation.MaxAgeDays > 0 && b.made.Before(cutoff)
		if !tooMany && !tooOld {
			continue
		}
		if err := os.Remove(b.path); err != nil && !os.IsNotExist(err) {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("apiserver: audit log backups: %s", strings.Join(errs, "; "))
	}
	return nil
}

// Close closes the current file; later writes fail.
func (l *RotatingLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
