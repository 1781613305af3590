package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// rotatingLogForTest opens a rotating audit log in a fresh directory,
// with a limit of maxBytes instead of megabytes and a clock that reads
// *clock.
func rotatingLogForTest(t *testing.T, r Rotation, maxBytes int64, clock *time.Time) (*RotatingLog, string) {
	t.Helper()
	dir := t.TempDir()
	l, err := OpenRotatingLog(filepath.Join(dir, "audit.log"), r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	l.maxBytes = maxBytes
	l.now = func() time.Time { return *clock }
	return l, dir
}

func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(data)
	}
	return out
}

func mustWriteLine(t *testing.T, l *RotatingLog, line string) {
	t.Helper()
	if _, err := l.Write([]byte(line + "\n")); err != nil {
		t.Fatalf("Write(%q): %v", line, err)
	}
}

func TestRotatingAuditLogRotatesAtMaxSize(t *testing.T) {
	clock := time.Date(2026, 12, 1, 19, 18, 38, 0, time.UTC)
	l, dir := rotatingLogForTest(t, Rotation{MaxSizeMB: 1}, 10, &clock)
	for _, line := range []string{"aaaa", "bbbb", "cccc"} { // 5 bytes each
		mustWriteLine(t, l, line)
	}
	got := dirFiles(t, dir)
	want := map[string]string{
		"audit.log": "cccc\n",
		// Named at the time of the rotation, in UTC, as lumberjack does.
		"audit-2026-12-01T19-18-38.000.log": "aaaa\nbbbb\n",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("files after writing 15 bytes with a limit of 10:\n got %q\nwant %q", got, want)
	}
	if _, err := l.Write([]byte(strings.Repeat("x", 11))); err == nil {
		t.Error("a write larger than the limit succeeded, want an error")
	}
	if fi, err := os.Stat(filepath.Join(dir, "audit.log")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("new file: %v, mode %v, want 0600", err, fi.Mode().Perm())
	}
}

func TestRotatingAuditLogKeepsMaxBackups(t *testing.T) {
	clock := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	l, dir := rotatingLogForTest(t, Rotation{MaxSizeMB: 1, MaxBackups: 2}, 5, &clock)
	for i := range 5 { // each line fills a file: 4 rotations
		clock = clock.Add(time.Second)
		mustWriteLine(t, l, fmt.Sprintf("ev%d", i))
	}
	got := dirFiles(t, dir)
	want := map[string]string{
		"audit.log": "ev4\n",
		// Each named at the write that rotated it out, one second later.
		"audit-2026-12-01T00-00-05.000.log": "ev3\n",
		"audit-2026-12-01T00-00-04.000.log": "ev2\n",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("files after 4 rotations keeping 2 backups:\n got %q\nwant %q", got, want)
	}
}

func TestRotatingAuditLogRemovesOldBackups(t *testing.T) {
	clock := time.Date(2026, 12, 10, 0, 0, 1, 0, time.UTC)
	l, dir := rotatingLogForTest(t, Rotation{MaxSizeMB: 1, MaxAgeDays: 3}, 5, &clock)
	// Backups left by earlier runs, 9 and 2 days old; a file that is not
	// a backup is left alone.
	for _, name := range []string{"audit-2026-12-01T00-00-00.000.log", "audit-2026-12-08T00-00-00.000.log"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("old\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "audit-notes.log"), []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustWriteLine(t, l, "ev0")
	mustWriteLine(t, l, "ev1") // rotates
	var names []string
	for name := range dirFiles(t, dir) {
		names = append(names, name)
	}
	slices.Sort(names)
	want := []string{"audit-2026-12-08T00-00-00.000.log", "audit-2026-12-10T00-00-01.000.log", "audit-notes.log", "audit.log"}
	if !slices.Equal(names, want) {
		t.Errorf("files after a rotation with --audit-log-maxage 3:\n got %q\nwant %q", names, want)
	}
}

func TestOpenRotatingAuditLogContinuesTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	if err := os.WriteFile(path, []byte("torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := OpenRotatingLog(path, Rotation{MaxSizeMB: 1})
	if err != nil {
		t.Fatal(err)
	}
	l.maxBytes = 9
	mustWriteLine(t, l, "ev") // "torn\n" + "ev\n" = 8 bytes: no rotation
	l.Close()
	if got := dirFiles(t, dir); len(got) != 1 || got["audit.log"] != "torn\nev\n" {
		t.Errorf("files: %q, want audit.log alone with the torn line ended", got)
	}
	if _, err := OpenRotatingLog(path, Rotation{MaxBackups: -1}); err == nil || !strings.Contains(err.Error(), "--audit-log-maxbackup -1 can't be a negative number") {
		t.Errorf("negative maxbackup: %v", err)
	}
}
