package podlog

import (
	"fmt"
	"net/url"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TimestampFormat is how the kubelet writes a line's time when asked for
// timestamps: RFC 3339 with nanoseconds, in UTC, followed by a space.
const TimestampFormat = time.RFC3339Nano

// ParseOptions reads the PodLogOptions of a query: container, follow,
// previous, timestamps, sinceSeconds, sinceTime, tailLines, limitBytes,
// insecureSkipTLSVerifyBackend and stream, with the names client-go
// writes them under. A value that does not parse is an error naming it
// (the API server answers it with 400, as upstream's parameter codec).
// Unknown parameters are ignored, as upstream ignores them.
func ParseOptions(q url.Values) (*corev1.PodLogOptions, error) {
	o := &corev1.PodLogOptions{Container: q.Get("container")}
	var err error
	flags := []struct {
		name string
		dst  *bool
	}{
		{"follow", &o.Follow}, {"previous", &o.Previous}, {"timestamps", &o.Timestamps},
		{"insecureSkipTLSVerifyBackend", &o.InsecureSkipTLSVerifyBackend},
	}
	for _, f := range flags {
		if *f.dst, err = parseBool(q, f.name); err != nil {
			return nil, err
		}
	}
	if o.SinceSeconds, err = parseInt(q, "sinceSeconds"); err != nil {
		return nil, err
	}
	if o.TailLines, err = parseInt(q, "tailLines"); err != nil {
		return nil, err
	}
	if o.LimitBytes, err = parseInt(q, "limitBytes"); err != nil {
		return nil, err
	}
	if v := q.Get("sinceTime"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return nil, fmt.Errorf("sinceTime: %w", err)
		}
		mt := metav1.NewTime(t)
		o.SinceTime = &mt
	}
	if v, ok := q["stream"]; ok && len(v) > 0 {
		s := v[0]
		o.Stream = &s
	}
	return o, nil
}

// parseBool reads a boolean as the parameter codec does ("true", "1"...);
// an empty value is false.
func parseBool(q url.Values, name string) (bool, error) {
	v := q.Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

func parseInt(q url.Values, name string) (*int64, error) {
	v, ok := q[name]
	if !ok || len(v) == 0 || v[0] == "" {
		return nil, nil
	}
	n, err := strconv.ParseInt(v[0], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &n, nil
}

// Validate checks o as upstream's ValidatePodLogOptions does with the
// PodLogsQuerySplitStreams feature gate off (its default in v1.37):
// tailLines not negative, limitBytes and sinceSeconds above 0, not both
// sinceTime and sinceSeconds, no stream.
func Validate(o *corev1.PodLogOptions) field.ErrorList {
	var errs field.ErrorList
	if o.TailLines != nil && *o.TailLines < 0 {
		errs = append(errs, field.Invalid(field.NewPath("tailLines"), *o.TailLines, "must be greater than or equal to 0"))
	}
	if o.LimitBytes != nil && *o.LimitBytes < 1 {
		errs = append(errs, field.Invalid(field.NewPath("limitBytes"), *o.LimitBytes, "must be greater than 0"))
	}
	switch {
	case o.SinceSeconds != nil && o.SinceTime != nil:
		errs = append(errs, field.Forbidden(field.NewPath(""), "at most one of `sinceTime` or `sinceSeconds` may be specified"))
	case o.SinceSeconds != nil && *o.SinceSeconds < 1:
		errs = append(errs, field.Invalid(field.NewPath("sinceSeconds"), *o.SinceSeconds, "must be greater than 0"))
	}
	if o.Stream != nil {
		errs = append(errs, field.Forbidden(field.NewPath("stream"), "may not be specified"))
	}
	return errs
}

// Query writes o back as the query the API server sends to the kubelet,
// as upstream's LogLocation does (the container is in the path, not the
// query).
func Query(o *corev1.PodLogOptions) url.Values {
	q := url.Values{}
	if o.Follow {
		q.Add("follow", "true")
	}
	if o.Previous {
		q.Add("previous", "true")
	}
	if o.Timestamps {
		q.Add("timestamps", "true")
	}
	if o.SinceSeconds != nil {
		q.Add("sinceSeconds", strconv.FormatInt(*o.SinceSeconds, 10))
	}
	if o.SinceTime != nil {
		q.Add("sinceTime", o.SinceTime.Format(time.RFC3339))
	}
	if o.TailLines != nil {
		q.Add("tailLines", strconv.FormatInt(*o.TailLines, 10))
	}
	if o.LimitBytes != nil {
		q.Add("limitBytes", strconv.FormatInt(*o.LimitBytes, 10))
	}
	return q
}
