package flow

import (
	"fmt"
	"strings"
)

// maxBetweenShown bounds the writes in between an etcd write's evidence
// lists one by one; the others are counted.
const maxBetweenShown = 5

// author lays out who an etcd write was made for: the request the API
// server was serving ("for POST …/binding, sent by system:kube-scheduler
// (the scheduler)"); nothing when the evidence does not say.
func (l Layout) author(w *EtcdWrite) []Line {
	if w.By == nil {
		return nil
	}
	return []Line{line(RoleField, 4, l.printf("written_for", w.By.Method, w.By.URI, l.who(w.By.User)))}
}

// who names a user and, for the control plane's own users, the component
// that acts as it.
func (l Layout) who(user string) string {
	switch {
	case user == "":
		return l.word("anonymous")
	case user == "system:kube-scheduler":
		return user + " " + l.word("the_scheduler")
	case strings.HasPrefix(user, "system:node:"):
		return user + " " + l.printf("the_kubelet", strings.TrimPrefix(user, "system:node:"))
	}
	return user
}

// between lays out which keys took the revisions between an etcd write
// and the previous write of the same key: a line saying how many there
// were, then up to maxBetweenShown of them (revision, operation, key, who
// asked), then how many more, and how many the API server did not write.
func (l Layout) between(w *EtcdWrite) []Line {
	gap := w.Revision - w.PrevRevision - 1
	if w.PrevRevision == 0 || gap <= 0 || int64(len(w.Between))+w.BetweenMore+w.BetweenElsewhere == 0 {
		return nil // nothing in between, or evidence that does not say
	}
	head := l.printf("between", w.PrevRevision+1, w.Revision-1, gap)
	if gap == 1 {
		head = l.printf("between_one", w.PrevRevision+1)
	}
	out := []Line{line(RoleNote, 4, head)}
	for i, o := range w.Between {
		if i == maxBetweenShown {
			break
		}
		by := ""
		if o.User != "" {
			by = "  " + l.printf("by", l.who(o.User))
		}
		out = append(out, cut(RoleField, fmt.Sprintf("  %d %s %s%s", o.Revision, o.Op, o.Key, by)))
	}
	if more := int64(len(w.Between)) + w.BetweenMore - int64(min(len(w.Between), maxBetweenShown)); more > 0 {
		out = append(out, line(RoleNote, 4, "  "+l.printf("between_more", more)))
	}
	if w.BetweenElsewhere > 0 {
		out = append(out, line(RoleNote, 4, "  "+l.printf("between_elsewhere", w.BetweenElsewhere)))
	}
	return out
}
