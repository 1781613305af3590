package printers

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// eventDoc holds the API documentation of core/v1 Event fields.
var eventDoc = corev1.Event{}.SwaggerDoc()

// eventColumns are the columns of `kubectl get events`; the priority-1 ones
// appear with -o wide.
var eventColumns = []metav1.TableColumnDefinition{
	{Name: "Last Seen", Type: "string", Description: eventDoc["lastTimestamp"]},
	{Name: "Type", Type: "string", Description: eventDoc["type"]},
	{Name: "Reason", Type: "string", Description: eventDoc["reason"]},
	{Name: "Object", Type: "string", Description: eventDoc["involvedObject"]},
	{Name: "Subobject", Type: "string", Priority: 1, Description: corev1.ObjectReference{}.SwaggerDoc()["fieldPath"]},
	{Name: "Source", Type: "string", Priority: 1, Description: eventDoc["source"]},
	{Name: "Message", Type: "string", Description: eventDoc["message"]},
	{Name: "First Seen", Type: "string", Priority: 1, Description: eventDoc["firstTimestamp"]},
	{Name: "Count", Type: "string", Priority: 1, Description: eventDoc["count"]},
	{Name: "Name", Type: "string", Priority: 1, Format: "name", Description: objectMetaDoc["name"]},
}

// event prints one core/v1 event: LAST SEEN TYPE REASON OBJECT SUBOBJECT
// SOURCE MESSAGE FIRST SEEN COUNT NAME. COUNT is an int64 cell.
//
// Events written through events.k8s.io/v1 have no first/last timestamps or
// count, so FIRST SEEN falls back to eventTime, LAST SEEN to FIRST SEEN, and
// a series supplies both LAST SEEN and COUNT; a singleton counts as 1.
func (p printer) event(ev *corev1.Event) metav1.TableRow {
	first := p.since(ev.FirstTimestamp.Time)
	if ev.FirstTimestamp.IsZero() {
		first = p.since(ev.EventTime.Time)
	}
	last := p.since(ev.LastTimestamp.Time)
	if ev.LastTimestamp.IsZero() {
		last = first
	}
	count := ev.Count
	switch {
	case ev.Series != nil:
		last = p.since(ev.Series.LastObservedTime.Time)
		count = ev.Series.Count
	case count == 0:
		count = 1
	}

	object := strings.ToLower(ev.InvolvedObject.Kind)
	if ev.InvolvedObject.Name != "" {
		object += "/" + ev.InvolvedObject.Name
	}

	return metav1.TableRow{
		Cells: []any{
			last,
			ev.Type,
			ev.Reason,
			object,
			ev.InvolvedObject.FieldPath,
			eventSource(ev),
			strings.TrimSpace(ev.Message),
			first,
			int64(count),
			ev.Name,
		},
		Object: runtime.RawExtension{Object: ev},
	}
}

// eventSource renders the SOURCE cell, "component, host", taking each part
// from the legacy source field or else from the reporting controller and
// instance; the ", host" part is left out when there is no host.
func eventSource(ev *corev1.Event) string {
	component := firstNonEmpty(ev.Source.Component, ev.ReportingController)
	host := firstNonEmpty(ev.Source.Host, ev.ReportingInstance)
	if host == "" {
		return component
	}
	return component + ", " + host
}

// firstNonEmpty returns the first of ss that is not empty, or "".
func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// Events prints events.
var Events = tableHandler(eventColumns, printer.event)
