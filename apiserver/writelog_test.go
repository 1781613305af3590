package apiserver

import (
	"fmt"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
)

func TestWriteLogBetween(t *testing.T) {
	var l writeLog
	for _, rev := range []int64{10, 11, 13, 14} { // 12: not through this server
		l.add(flow.OtherWrite{Revision: rev, Op: "update", Key: fmt.Sprintf("/registry/events/default/e%d", rev)})
	}
	tests := []struct {
		after, before       int64
		want                []int64
		wantMore, elsewhere int64
	}{
		{9, 15, []int64{10, 11, 13, 14}, 0, 1},
		{10, 14, []int64{11, 13}, 0, 1},
		{10, 11, nil, 0, 0}, // nothing in between
		{0, 11, nil, 0, 0},  // a create: no previous revision
	}
	for _, tt := range tests {
		got, more, elsewhere := l.between(tt.after, tt.before)
		var revs []int64
		for _, w := range got {
			revs = append(revs, w.Revision)
		}
		if fmt.Sprint(revs) != fmt.Sprint(tt.want) || more != tt.wantMore || elsewhere != tt.elsewhere {
			t.Errorf("between(%d, %d) = %v +%d, %d elsewhere; want %v +%d, %d", tt.after, tt.before, revs, more, elsewhere, tt.want, tt.wantMore, tt.elsewhere)
		}
	}
}

func TestWriteLogKeepsTheMostRecent(t *testing.T) {
	var l writeLog
	for rev := int64(1); rev <= writeLogSize+100; rev++ {
		l.add(flow.OtherWrite{Revision: rev})
	}
	got, more, elsewhere := l.between(0+1, writeLogSize+101)
	if len(got) != maxBetween || got[0].Revision != 101 {
		t.Fatalf("first listed %v, want %d writes from revision 101 (the oldest remembered)", got[:1], maxBetween)
	}
	if more != writeLogSize-maxBetween || elsewhere != 99 {
		t.Errorf("more %d, elsewhere %d; want %d and the 99 forgotten", more, elsewhere, writeLogSize-maxBetween)
	}
}
