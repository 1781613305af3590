package flow

// briefPatch is how many bytes of a status patch a Brief layout shows.
const briefPatch = 200

// status lays out a kubelet's status report: PATCH pods/<name>/status,
// the kubelet's identity and the phase it reports, then the patch as
// sent: Brief on one line, cut short, Full indented.
func (l Layout) status(ev Event, _ Context) []Line {
	s := ev.Status
	if l.Form == Brief {
		return []Line{
			line(RoleHeading, 0, l.printf("status_as", s.User, s.Phase)),
			field(l.printf("patch_bytes", len(s.Patch), Truncate(oneLine(s.Patch), briefPatch))),
		}
	}
	return []Line{
		line(RoleHeading, 2, l.printf("status_patch", ev.Object.Name, s.User, s.Phase)),
		cut(RoleField, indentJSON([]byte(s.Patch))),
	}
}
