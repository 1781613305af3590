package printers

import (
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// EventsV1 prints events.k8s.io/v1 events as upstream does, with the
// columns of core/v1 events (kube-apiserver prints the internal type of
// either), from the core form toCore converts them to; each row's object
// is the events.k8s.io one.
func EventsV1(toCore func(*eventsv1.Event) (*corev1.Event, error)) TableConvertor {
	return TableConvertorFunc(func(obj runtime.Object, opts Options) (*metav1.Table, error) {
		var items []runtime.Object
		var core runtime.Object
		switch o := obj.(type) {
		case *eventsv1.Event:
			e, err := toCore(o)
			if err != nil {
				return nil, err
			}
			items, core = []runtime.Object{o}, e
		case *eventsv1.EventList:
			list := &corev1.EventList{ListMeta: o.ListMeta}
			for i := range o.Items {
				e, err := toCore(&o.Items[i])
				if err != nil {
					return nil, err
				}
				list.Items = append(list.Items, *e)
				items = append(items, &o.Items[i])
			}
			core = list
		default:
			return Events.ConvertToTable(obj, opts)
		}
		table, err := Events.ConvertToTable(core, opts)
		if err != nil {
			return nil, err
		}
		for i := range table.Rows {
			table.Rows[i].Object = runtime.RawExtension{Object: items[i]}
		}
		return table, nil
	})
}
