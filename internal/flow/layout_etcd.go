package flow

import (
	"fmt"
	"sort"
	"strings"
)

// Bounds of the field changes a Brief layout lists for an etcd write.
const (
	maxChanges  = 20  // changes listed; the rest are counted
	briefChange = 150 // bytes of one change
)

// etcd lays out an etcd write: the operation and key, the revision it
// made (the object's resourceVersion) and the one it replaced. Brief
// adds the start of the value, then the fields that changed since
// c.Prior when that is Known; Full adds the line diff of the indented
// JSON against c.Prior (the whole value for a create), or says that
// c.Prior is still being read or could not be.
func (l Layout) etcd(ev Event, c Context) []Line {
	w := ev.Etcd
	if l.Form == Brief {
		rev := l.printf("revision_rv", w.Revision, w.Revision)
		if w.PrevRevision != 0 {
			rev = l.printf("revision_prev_rv", w.Revision, w.PrevRevision, w.Revision)
		}
		out := []Line{line(RoleHeading, 0, fmt.Sprintf("etcd %s %s", w.Op, w.Key)), field(rev)}
		out = append(append(out, l.author(w)...), l.between(w)...)
		if w.Value != "" {
			out = append(out, field(l.printf("value_bytes", len(w.Value), Preview([]byte(w.Value)))))
		}
		return append(out, l.changes(w, c.Prior)...)
	}
	rev := l.printf("revision_bytes", w.Revision, len(w.Value))
	if w.PrevRevision > 0 {
		rev = l.printf("revision_prev_bytes", w.Revision, w.PrevRevision, len(w.Value))
	}
	out := []Line{line(RoleHeading, 2, fmt.Sprintf("%s %s", w.Op, w.Key)), line(RoleField, 2, rev)}
	out = append(append(out, l.author(w)...), l.between(w)...)
	return append(out, l.etcdDiff(w, c.Prior)...)
}

// etcdDiff is the Full form's diff of w against p.
func (l Layout) etcdDiff(w *EtcdWrite, p Prior) []Line {
	after := indentJSON([]byte(w.Value))
	if w.PrevRevision == 0 {
		return append([]Line{line(RoleNote, 0, l.word("created"))}, diffLines(lineDiff("", after))...)
	}
	if p.Pending {
		return []Line{line(RoleNote, 0, l.printf("loading", w.PrevRevision))}
	}
	var out []Line
	if p.Err != nil {
		out = append(out, line(RoleWarning, 2, l.printf("history_err", p.Err)))
	}
	if !p.Known {
		return out
	}
	out = append(out, line(RoleNote, 0, l.printf("diff_prev", w.PrevRevision)))
	return append(out, diffLines(hunks(lineDiff(indentJSON([]byte(p.Value)), after), 1))...)
}

// diffLines lays out a line diff: added and removed lines marked with
// their sign, unchanged ones after a space, a run left out as "…".
func diffLines(ops []diffOp) []Line {
	out := make([]Line, 0, len(ops))
	for _, op := range ops {
		switch op.Kind {
		case '+':
			out = append(out, Line{Role: RoleAdded, Text: op.Line, Fit: FitAnywhere, Mark: "+"})
		case '-':
			out = append(out, Line{Role: RoleRemoved, Text: op.Line, Fit: FitAnywhere, Mark: "-"})
		case '~':
			out = append(out, line(RoleNote, 0, " "+op.Line))
		default:
			out = append(out, cut(RoleNote, " "+op.Line))
		}
	}
	return out
}

// Revision lays out an etcd write on one line, Brief, as one more
// revision of an object followed (not one of its stages): "etcd update
// KEY, revision N (previous P)", then the fields that changed since p
// when that is Known, as etcd's Brief layout lists them. Every Line is
// Printable.
func (l Layout) Revision(w *EtcdWrite, p Prior) []Line {
	head := fmt.Sprintf("etcd %s %s, %s", w.Op, w.Key, l.printf("revision_prev", w.Revision, w.PrevRevision))
	if w.By != nil {
		head += ", " + l.printf("for_request", w.By.Method, shortURI(w.By.URI), l.who(w.By.User))
	}
	return printable(append([]Line{field(head)}, l.changes(w, p)...))
}

// shortURI is a request URI without its query, for one-line mentions.
func shortURI(uri string) string {
	path, _, _ := strings.Cut(uri, "?")
	return path
}

// changes lists the fields w changed since p (nothing unless p is
// Known), at most maxChanges of them: the ones that tell a pod's story
// first, then by path; resourceVersion and managedFields are left out.
// The list is indented by two spaces under its heading.
func (l Layout) changes(w *EtcdWrite, p Prior) []Line {
	if !p.Known || w.PrevRevision == 0 {
		return nil
	}
	all, err := DiffFields([]byte(p.Value), []byte(w.Value))
	if err != nil {
		return nil
	}
	var shown []FieldChange
	for _, c := range all {
		if c.Path == "metadata.resourceVersion" || strings.HasPrefix(c.Path, "metadata.managedFields") {
			continue
		}
		shown = append(shown, c)
	}
	if len(shown) == 0 {
		return nil
	}
	sort.SliceStable(shown, func(i, j int) bool { return storyField(shown[i].Path) && !storyField(shown[j].Path) })
	out := []Line{line(RoleNote, 0, l.printf("changes", w.PrevRevision))}
	for i, c := range shown {
		if i == maxChanges {
			out = append(out, line(RoleNote, 0, "  "+l.printf("more_changes", len(shown)-maxChanges)))
			break
		}
		out = append(out, field("  "+Truncate(c.String(), briefChange)))
	}
	return out
}

// storyField reports the fields that tell a pod's story: where it runs,
// its phase, its deletion, its labels, its containers' state and
// readiness.
func storyField(path string) bool {
	switch path {
	case "spec.nodeName", "status.phase", "status.podIP", "metadata.deletionTimestamp", "metadata.deletionGracePeriodSeconds", "metadata.labels":
		return true
	}
	return strings.HasPrefix(path, "metadata.labels.") ||
		(strings.HasPrefix(path, "status.containerStatuses[") && (strings.Contains(path, "].state.") || strings.HasSuffix(path, "].ready")))
}
