package apiserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/warning"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// bodyMediaTypes lists the request body formats, as a 415 names them.
var bodyMediaTypes = []string{mediaJSON, mediaYAML, mediaProtobuf}

// readBody reads a request body up to limit bytes; more is 413.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	defer r.Body.Close()
	data, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("unable to read request body: %v", err))
	}
	if int64(len(data)) > limit {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", limit))
	}
	return data, nil
}

func UnsupportedMediaType(accepted []string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnsupportedMediaType,
		Reason:  metav1.StatusReasonUnsupportedMediaType,
		Message: "the body of the request was in an unknown format - accepted media types include: " + strings.Join(accepted, ", "),
	}}
}

// decodeBody decodes a JSON or YAML request body into a new object of
// kind gvk, as kube-apiserver does: a missing apiVersion or kind takes the
// endpoint's; a different group-version or kind is 400, with upstream's
// text (kindRefusal); malformed input is 400. Unknown or duplicate fields
// are 400 with fieldValidation=Strict and warnings with Warn (the
// default).
func decodeBody(r *http.Request, body []byte, gvk schema.GroupVersionKind, into runtime.Object, validation string) (runtime.Object, []string, error) {
	var dec runtime.Decoder
	switch mt := ParseMediaType(r.Header.Get("Content-Type")); mt {
	case "", mediaJSON:
		dec = registry.StrictJSON
	case mediaYAML:
		dec = registry.StrictYAML
	case mediaProtobuf:
		// Protobuf has no field names: unknown fields cannot be detected.
		dec = registry.Protobuf
	default:
		return nil, nil, UnsupportedMediaType(bodyMediaTypes)
	}
	obj, got, err := dec.Decode(body, &gvk, into)
	_, isStrict := runtime.AsStrictDecodingError(err)
	_, custom := into.(runtime.Unstructured)
	if !custom && got != nil && *got != gvk && (err == nil || isStrict || runtime.IsNotRegisteredError(err)) {
		// A built-in endpoint given a kind or version that is not its
		// own: upstream refuses it now unless it reads the body (then
		// its strict decoding errors come first).
		if refusal, readable := kindRefusal(*got, gvk); !readable || !isStrict {
			return nil, nil, refusal
		}
	}
	var warnings []string
	if err != nil {
		strict, isStrict := runtime.AsStrictDecodingError(err)
		switch {
		case isStrict && obj != nil && validation == metav1.FieldValidationIgnore:
		case isStrict && obj != nil && validation != metav1.FieldValidationStrict:
			for _, e := range strict.Errors() {
				warnings = append(warnings, e.Error())
			}
		default:
			return nil, nil, decodeError(err, got, gvk, body)
		}
	}
	if got.GroupVersion() != gvk.GroupVersion() {
		return nil, nil, apiVersionMismatch(*got, gvk)
	}
	if got.Kind != gvk.Kind { // a custom resource's endpoint
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: the kind in the data does not match the endpoint", got.Kind, got.Version, gvk.Kind))
	}
	return obj, warnings, nil
}

// decodeError phrases a decoding failure as kube-apiserver does.
func decodeError(err error, got *schema.GroupVersionKind, want schema.GroupVersionKind, body []byte) error {
	if got != nil && got.Kind != "" {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", got.Kind, got.Version, want.Kind, err))
	}
	summary := string(body)
	if len(summary) > 30 {
		summary = summary[:30] + " ..."
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", want.Kind, err, summary))
}

// optionsError is how kube-apiserver reports bad query options.
func optionsError(kind string, errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: kind}, "", errs)
}

// decodeQuery fills opts (a metav1 or meta internal options type) from the
// query string.
func decodeQuery(r *http.Request, opts runtime.Object) error {
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(r.URL.Query(), metav1.SchemeGroupVersion, opts); err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	return nil
}

func listOptions(r *http.Request) (*metainternalversion.ListOptions, error) {
	var opts metainternalversion.ListOptions
	if err := decodeQuery(r, &opts); err != nil {
		return nil, err
	}
	return &opts, nil
}

func createOptions(r *http.Request) (*metav1.CreateOptions, error) {
	var opts metav1.CreateOptions
	if err := decodeQuery(r, &opts); err != nil {
		return nil, err
	}
	if errs := metav1validation.ValidateCreateOptions(&opts); len(errs) > 0 {
		return nil, optionsError("CreateOptions", errs)
	}
	return &opts, nil
}

func updateOptions(r *http.Request) (*metav1.UpdateOptions, error) {
	var opts metav1.UpdateOptions
	if err := decodeQuery(r, &opts); err != nil {
		return nil, err
	}
	if errs := metav1validation.ValidateUpdateOptions(&opts); len(errs) > 0 {
		return nil, optionsError("UpdateOptions", errs)
	}
	return &opts, nil
}

// deleteOptions reads DeleteOptions from the body if there is one, else
// from the query string.
func deleteOptions(r *http.Request, limit int64) (*metav1.DeleteOptions, error) {
	body, err := readBody(r, limit)
	if err != nil {
		return nil, err
	}
	opts := &metav1.DeleteOptions{}
	if len(strings.TrimSpace(string(body))) > 0 {
		gvk := metav1.SchemeGroupVersion.WithKind("DeleteOptions")
		var dec runtime.Decoder = registry.JSONSerializer
		switch ParseMediaType(r.Header.Get("Content-Type")) {
		case mediaProtobuf:
			dec = registry.Protobuf
		case mediaYAML:
			dec = registry.YAMLSerializer
		}
		obj, _, err := dec.Decode(body, &gvk, opts)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		var ok bool
		if opts, ok = obj.(*metav1.DeleteOptions); !ok {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("decoded object of type %T is not a DeleteOptions", obj))
		}
	} else if err := decodeQuery(r, opts); err != nil {
		return nil, err
	}
	if errs := metav1validation.ValidateDeleteOptions(opts); len(errs) > 0 {
		return nil, optionsError("DeleteOptions", errs)
	}
	return opts, nil
}

// fieldValidation returns the directive in effect: Warn unless set.
func fieldValidation(v string) string {
	if v == "" {
		return metav1.FieldValidationWarn
	}
	return v
}

// recordWarnings adds warnings to the request's warning recorder
// (upstream's WithWarningRecorder filter), which sends each once as an
// HTTP Warning header, as kubectl prints them. As upstream's handlers do,
// the decoding's warnings are recorded when they are found, before
// admission and the strategy add theirs, and are sent with a failure too.
func recordWarnings(ctx context.Context, warnings []string) {
	for _, msg := range warnings {
		warning.AddWarning(ctx, "", msg)
	}
}
