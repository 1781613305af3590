package apiserver

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/munnerz/goautoneg"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/kubesim/kubesim/apiserver/printers"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/request"
)

// Media types the server reads and writes.
const (
	mediaJSON     = "application/json"
	mediaYAML     = "application/yaml"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// acceptedMediaTypes is what a 406 lists.
var acceptedMediaTypes = []string{mediaJSON, mediaYAML, mediaProtobuf}

// Transformations a client may ask for with the "as" media type parameter.
const (
	asNone          = ""
	asTable         = "Table"
	asPartial       = "PartialObjectMetadata"
	asPartialList   = "PartialObjectMetadataList"
	asDiscoveryList = "APIGroupDiscoveryList"
)

// output is the negotiated form of a response.
type output struct {
	mediaType string // mediaJSON, mediaYAML or mediaProtobuf
	as        string // one of the as* constants
	pretty    bool
	// table is the Table conversion of the resource served (as=Table);
	// nil is printers.Default.
	table printers.TableConvertor
}

// negotiate picks the response form from the Accept header, as
// kube-apiserver does: the first acceptable clause by preference wins;
// transformations (as=Table...) are only offered where allowed. No
// acceptable clause gives 406.
func negotiate(r *http.Request, allowed ...string) (output, error) {
	out := output{mediaType: mediaJSON, pretty: r.URL.Query().Get("pretty") == "true" || r.URL.Query().Get("pretty") == "1"}
	header := r.Header.Get("Accept")
	if header == "" {
		return out, nil
	}
	for _, c := range goautoneg.ParseAccept(header) {
		var mt string
		switch {
		case c.Type == "*" || (c.Type == "application" && c.SubType == "*"):
			mt = mediaJSON
		case c.Type == "application" && c.SubType == "json":
			mt = mediaJSON
		case c.Type == "application" && c.SubType == "yaml":
			mt = mediaYAML
		case c.Type == "application" && c.SubType == "vnd.kubernetes.protobuf":
			mt = mediaProtobuf
		default:
			continue
		}
		as := c.Params["as"]
		if mt == mediaProtobuf && (as == asTable || as == asDiscoveryList) {
			// Tables and discovery documents have no protobuf form here.
			continue
		}
		switch as {
		case asNone:
		case asTable, asPartial, asPartialList:
			if c.Params["g"] != metav1.GroupName || c.Params["v"] != "v1" || !contains(allowed, as) {
				continue
			}
		case asDiscoveryList:
			if c.Params["g"] != "apidiscovery.k8s.io" || c.Params["v"] != "v2" || !contains(allowed, as) {
				continue
			}
		default:
			continue
		}
		out.mediaType, out.as = mt, as
		return out, nil
	}
	return out, notAcceptable()
}

func notAcceptable() error {
	return NotAcceptableMsg("only the following media types are accepted: " + strings.Join(acceptedMediaTypes, ", "))
}

func NotAcceptableMsg(msg string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotAcceptable,
		Reason:  metav1.StatusReasonNotAcceptable,
		Message: msg,
	}}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// responseVersions are the group-versions objects are written in.
var responseVersions = schema.GroupVersions(append(append([]schema.GroupVersion{}, registry.GroupVersions...), metav1.SchemeGroupVersion))

var (
	prettyJSON = json.NewSerializerWithOptions(json.DefaultMetaFactory, registry.Scheme, registry.Scheme, json.SerializerOptions{Pretty: true})
)

// encode serializes obj in the form o asks, with apiVersion and kind set.
func encode(obj runtime.Object, o output) ([]byte, error) {
	var ser runtime.Encoder = registry.JSONSerializer
	switch {
	case o.mediaType == mediaYAML:
		ser = registry.YAMLSerializer
	case o.mediaType == mediaProtobuf:
		ser = registry.Protobuf
	case o.pretty:
		ser = prettyJSON
	}
	var buf bytes.Buffer
	enc := runtime.WithVersionEncoder{Version: responseVersions, Encoder: ser, ObjectTyper: registry.Scheme}
	if err := enc.Encode(obj, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// contentType is the Content-Type header of a response in form o.
func contentType(o output) string {
	if o.as == asDiscoveryList {
		return o.mediaType + ";g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	}
	return o.mediaType
}

// transform applies the requested transformation (Table, partial
// metadata) to a response object. Status objects pass unchanged.
func transform(r *http.Request, obj runtime.Object, o output, noHeaders bool, now time.Time) (runtime.Object, error) {
	if _, ok := obj.(*metav1.Status); ok {
		return obj, nil
	}
	switch o.as {
	case asTable:
		return asTableObject(r, obj, o, noHeaders, now)
	case asPartial:
		if meta.IsListType(obj) {
			return nil, NotAcceptableMsg(fmt.Sprintf("you requested PartialObjectMetadata, but the requested object is a list (%T)", obj))
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, err
		}
		p := meta.AsPartialObjectMetadata(m)
		p.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata"))
		return p, nil
	case asPartialList:
		if !meta.IsListType(obj) {
			return nil, NotAcceptableMsg(fmt.Sprintf("you requested PartialObjectMetadataList, but the requested object is not a list (%T)", obj))
		}
		items, err := meta.ExtractList(obj)
		if err != nil {
			return nil, err
		}
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("PartialObjectMetadataList"))
		if lm, err := meta.ListAccessor(obj); err == nil {
			list.ResourceVersion, list.Continue, list.RemainingItemCount = lm.GetResourceVersion(), lm.GetContinue(), lm.GetRemainingItemCount()
		}
		for _, item := range items {
			m, err := meta.Accessor(item)
			if err != nil {
				return nil, err
			}
			p := meta.AsPartialObjectMetadata(m)
			p.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata"))
			list.Items = append(list.Items, *p)
		}
		return list, nil
	}
	return obj, nil
}

// asTableObject converts to a Table with o's conversion and fills each
// row's object according to includeObject (Metadata by default).
func asTableObject(r *http.Request, obj runtime.Object, o output, noHeaders bool, now time.Time) (runtime.Object, error) {
	include := metav1.IncludeObjectPolicy(r.URL.Query().Get("includeObject"))
	switch include {
	case "", metav1.IncludeMetadata, metav1.IncludeObject, metav1.IncludeNone:
	default:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("unrecognized includeObject value: %q", include))
	}
	convert := o.table
	if convert == nil {
		convert = printers.Default
	}
	table, err := convert.ConvertToTable(obj, printers.Options{NoHeaders: noHeaders, Now: now})
	if err != nil {
		return nil, err
	}
	table.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("Table"))
	for i := range table.Rows {
		row := &table.Rows[i]
		switch include {
		case metav1.IncludeObject:
		case metav1.IncludeNone:
			row.Object.Object = nil
		default:
			m, err := meta.Accessor(row.Object.Object)
			if err != nil {
				return nil, err
			}
			p := meta.AsPartialObjectMetadata(m)
			p.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata"))
			row.Object.Object = p
		}
	}
	return table, nil
}

// writeObject writes obj with code in the negotiated form.
func (s *Server) writeObject(w http.ResponseWriter, r *http.Request, code int, obj runtime.Object, o output) {
	obj, err := transform(r, obj, o, false, time.Now())
	if err != nil {
		s.WriteError(w, r, err)
		return
	}
	data, err := encode(obj, o)
	if err != nil {
		s.WriteError(w, r, apierrors.NewInternalError(err))
		return
	}
	w.Header().Set("Content-Type", contentType(o))
	w.WriteHeader(code)
	_, _ = w.Write(data)
}

// WriteError writes err as a metav1.Status, in JSON or YAML as the client
// accepts. Errors that are not API errors become a 500 whose message is
// the error's text and whose reason is empty, as k8s.io/apiserver's
// ErrorToAPIStatus answers them (an etcd error such as "etcdserver:
// request timed out" reaches clients so).
func (s *Server) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	st := statusOf(err)
	if ac := request.AuditFrom(r.Context()); ac != nil {
		ac.Status = st
	}
	o, nerr := negotiate(r)
	if nerr != nil {
		o = output{mediaType: mediaJSON}
	}
	o.as = asNone
	data, eerr := encode(st, o)
	if eerr != nil {
		http.Error(w, st.Message, int(st.Code))
		return
	}
	w.Header().Set("Content-Type", contentType(o))
	w.WriteHeader(int(st.Code))
	_, _ = w.Write(data)
}

// statusOf returns the Status an error is answered with.
func statusOf(err error) *metav1.Status {
	var st metav1.Status
	if se, ok := err.(apierrors.APIStatus); ok {
		st = se.Status()
	} else {
		st = metav1.Status{Code: http.StatusInternalServerError, Reason: metav1.StatusReasonUnknown, Message: err.Error()}
	}
	if st.Code == 0 {
		st.Code = http.StatusInternalServerError
	}
	if st.Status == "" {
		st.Status = metav1.StatusFailure
	}
	st.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "Status"})
	return &st
}

// ParseMediaType returns the bare media type of a Content-Type header.
func ParseMediaType(header string) string {
	if header == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(header)
	if err != nil {
		return header
	}
	return mt
}
