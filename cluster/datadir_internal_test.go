package cluster

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaimDataDir: a data dir open to group or others is set to 0700
// and the log says so; a shared dir (the sticky bit, as /tmp) is refused
// and left as it is, not closed to its other users.
func TestClaimDataDir(t *testing.T) {
	for _, tc := range []struct {
		name     string
		mode     fs.FileMode
		wantMode fs.FileMode
		wantErr  string
	}{
		{"open to all", 0o777, 0o700, ""},
		{"group readable", 0o750, 0o700, ""},
		{"private", 0o700, 0o700, ""},
		{"shared, as /tmp", fs.ModeSticky | 0o777, fs.ModeSticky | 0o777, "the sticky bit marks a directory shared with other users"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tc.mode); err != nil {
				t.Fatal(err)
			}
			var notes []string
			lock, err := claimDataDir(dir, func(f string, args ...any) { notes = append(notes, f) })
			lock.release()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("claimDataDir: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("claimDataDir = %v, want an error containing %q", err, tc.wantErr)
			}
			fi, err := os.Stat(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode() & (fs.ModePerm | fs.ModeSticky); got != tc.wantMode {
				t.Errorf("mode %v, want %v", got, tc.wantMode)
			}
			if tightened := tc.mode != tc.wantMode; tightened != (len(notes) == 1) {
				t.Errorf("log notes %q: want one exactly when the mode changed", notes)
			}
		})
	}
}
