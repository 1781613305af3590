package flow

// Marks is what one component has done about one pod's creation, so that
// it does each thing once: the gate's points it held the pod at ("held
// once at each point") and the latest stage it recorded for the pod (a
// stage is recorded only after every stage recorded before it, so once
// and in order).
//
// The zero Marks has held the pod nowhere and recorded no stage. A Marks
// is not safe for concurrent use: the component that keeps it guards it,
// with the rest of what it knows of the pod.
type Marks struct {
	held []Point // few: at most the points of one component
	last Stage
}

// Hold reports whether the pod may be held at p: true the first time it
// is asked for p, false after. It marks p held when it returns true.
func (m *Marks) Hold(p Point) bool {
	if m.Held(p) {
		return false
	}
	m.held = append(m.held, p)
	return true
}

// Held reports whether the pod was held at p (Hold returned true for p).
func (m *Marks) Held(p Point) bool {
	for _, h := range m.held {
		if h == p {
			return true
		}
	}
	return false
}

// Passed reports whether s, or a stage after it, has been recorded: then
// s may no longer be (Record would refuse it).
func (m *Marks) Passed(s Stage) bool { return s <= m.last }

// Record reports whether stage s may be recorded now: true when s comes
// after every stage recorded so far, which it then marks as the latest.
// Stage 0 is never recorded.
func (m *Marks) Record(s Stage) bool {
	if m.Passed(s) {
		return false
	}
	m.last = s
	return true
}
