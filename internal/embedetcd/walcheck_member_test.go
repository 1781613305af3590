package embedetcd_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/embedetcd"
	"github.com/kubesim/kubesim/internal/etcdtest"
)

// TestDamagedWALOfClusterMember: StartMember checks a member's data as
// Start does, and the data dir is left as it was: an empty log file is a
// *CorruptError, and so is a log cut short of what the member's
// database holds (etcd would start the member, and raft panic when the
// leader says entries past the log's end are committed).
func TestDamagedWALOfClusterMember(t *testing.T) {
	dirs := map[string]string{}
	lc, _ := etcdtest.StartCluster(t, 3, func(c *embedetcd.MemberConfig) { dirs[c.Name] = c.Dir })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, err := lc.Client(5 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	for i := range 20 {
		if _, err := client.Put(ctx, fmt.Sprintf("/k/%d", i), strings.Repeat("v", 2000)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		member string
		damage func(t *testing.T, path string)
		want   string
	}{
		{"m1", func(t *testing.T, path string) { mustTruncate(t, path, 0) }, " is empty"},
		{"m2", func(t *testing.T, path string) { mustTruncate(t, path, recordAtHalf(t, path).Start) }, " ends at entry "},
	}
	for _, tt := range tests {
		if err := lc.Stop(tt.member); err != nil {
			t.Fatal(err)
		}
		f := etcdtest.LastWALFile(t, filepath.Join(dirs[tt.member], "member", "wal"))
		tt.damage(t, f)
		before := etcdtest.Listing(t, dirs[tt.member], allFiles)
		err := lc.Restart(ctx, tt.member)
		t.Logf("%s: %v", tt.member, err)
		var ce *embedetcd.CorruptError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), f+tt.want) {
			t.Errorf("restart of %s: %v, want a *CorruptError saying %q", tt.member, err, f+tt.want)
		}
		if after := etcdtest.Listing(t, dirs[tt.member], allFiles); after != before {
			t.Errorf("the failed start changed %s's data dir:\nbefore:\n%s\nafter:\n%s", tt.member, before, after)
		}
	}
}
