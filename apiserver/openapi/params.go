package openapi

import (
	"fmt"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// prettyDescription is the text kube-apiserver gives the pretty parameter.
const prettyDescription = "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget)."

const namespaceDescription = "object name and auth scope, such as for teams and projects"

// The query parameters of each kind of operation, taken from the fields of
// the option types (for their types and descriptions). Fields this server
// has no use for are left out: force (server-side apply only), shardSelector
// and ignoreStoreReadErrorWithClusterBreakingPotential.
var (
	createQuery = queryFields{&metav1.CreateOptions{}, []string{"dryRun", "fieldManager", "fieldValidation"}}
	updateQuery = queryFields{&metav1.UpdateOptions{}, []string{"dryRun", "fieldManager", "fieldValidation"}}
	patchQuery  = queryFields{&metav1.PatchOptions{}, []string{"dryRun", "fieldManager", "fieldValidation"}}
	deleteQuery = queryFields{&metav1.DeleteOptions{}, []string{"dryRun", "gracePeriodSeconds", "orphanDependents", "propagationPolicy"}}
	listQuery   = queryFields{&metav1.ListOptions{}, []string{"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch"}}
	// deletecollection takes the list selectors but cannot watch.
	deleteCollectionListQuery = queryFields{listQuery.options, without(listQuery.names, "watch", "allowWatchBookmarks")}
)

// queryFields chooses the fields of an options type that become query
// parameters.
type queryFields struct {
	options any      // pointer to an options struct with a SwaggerDoc method
	names   []string // json names of the fields to offer
}

// without returns names, in order, without those in drop.
func without(names []string, drop ...string) []string {
	var out []string
	for _, n := range names {
		if !contains(drop, n) {
			out = append(out, n)
		}
	}
	return out
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// params turns the chosen fields into query parameters: the JSON type of the
// field and its SwaggerDoc text. Like kube-apiserver's, each schema says
// uniqueItems: true.
func (q queryFields) params() ([]*spec3.Parameter, error) {
	t := reflect.TypeOf(q.options).Elem()
	docs := docsOf(t)
	byName := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			byName[name] = f.Type
		}
	}
	var out []*spec3.Parameter
	for _, name := range q.names {
		ft, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("%v has no field %q", t, name)
		}
		typ, err := queryType(ft)
		if err != nil {
			return nil, fmt.Errorf("%v.%s: %w", t, name, err)
		}
		out = append(out, queryParam(name, docs[name], typ))
	}
	return out, nil
}

// queryType is the JSON type of a query parameter. A repeated parameter
// ([]string) is described by its element type, as upstream does.
func queryType(t reflect.Type) (string, error) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean", nil
	case reflect.String:
		return "string", nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer", nil
	case reflect.Float32, reflect.Float64:
		return "number", nil
	}
	return "", fmt.Errorf("no query parameter type for %v", t)
}

// queryParam is an optional query parameter of JSON type typ.
func queryParam(name, description, typ string) *spec3.Parameter {
	return &spec3.Parameter{ParameterProps: spec3.ParameterProps{
		Name: name, In: "query", Description: description,
		Schema: &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{typ}, UniqueItems: true}},
	}}
}

// pathParam is a required string path parameter.
func pathParam(name, description string) *spec3.Parameter {
	return &spec3.Parameter{ParameterProps: spec3.ParameterProps{
		Name: name, In: "path", Description: description, Required: true,
		Schema: &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"string"}, UniqueItems: true}},
	}}
}

// queryParamSets holds the built query parameters, computed once per New.
type queryParamSets struct {
	create, update, patch, delete, list, deleteCollection []*spec3.Parameter
}

// buildQueryParamSets builds the query parameters of each kind of
// operation; deletecollection takes those of delete and of a list. It
// fails if an option type lacks a field named in its queryFields.
func buildQueryParamSets() (*queryParamSets, error) {
	var q queryParamSets
	for _, x := range []struct {
		dst *[]*spec3.Parameter
		src []queryFields
	}{
		{&q.create, []queryFields{createQuery}},
		{&q.update, []queryFields{updateQuery}},
		{&q.patch, []queryFields{patchQuery}},
		{&q.delete, []queryFields{deleteQuery}},
		{&q.list, []queryFields{listQuery}},
		{&q.deleteCollection, []queryFields{deleteQuery, deleteCollectionListQuery}},
	} {
		for _, src := range x.src {
			ps, err := src.params()
			if err != nil {
				return nil, err
			}
			*x.dst = append(*x.dst, ps...)
		}
	}
	return &q, nil
}

// withPretty returns the pretty query parameter followed by groups, in
// order: the parameters of every operation.
func withPretty(groups ...[]*spec3.Parameter) []*spec3.Parameter {
	out := []*spec3.Parameter{queryParam("pretty", prettyDescription, "string")}
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// clone returns a copy of ps that appending to cannot share with ps.
func clone(ps []*spec3.Parameter) []*spec3.Parameter {
	return append([]*spec3.Parameter(nil), ps...)
}
