package flow

import "time"

// FormatDuration is kubesim's one way of writing a duration for people:
// microseconds below a millisecond, tenths of a millisecond below a
// second, tenths of a second below a minute, whole seconds above; a
// negative duration is "0s". The plain printer, the markdown export and
// the TUI all write durations with it.
func FormatDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(100 * time.Microsecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
