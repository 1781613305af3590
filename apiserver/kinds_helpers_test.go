package apiserver_test

import (
	"encoding/json"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// tableAccept is the Accept header of `kubectl get`.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

// mustTable GETs path as a meta.k8s.io/v1 Table and returns its column
// names (all of them, -o wide's included) and the cells of its rows.
func mustTable(tb testing.TB, ts *testServer, path string) (columns []string, rows [][]string) {
	tb.Helper()
	code, body := ts.do(tb, "GET", path, "", "", "Accept", tableAccept)
	var table metav1.Table
	if err := json.Unmarshal([]byte(body), &table); err != nil || code != 200 || table.Kind != "Table" {
		tb.Fatalf("GET %s as Table: %d %v %.300s", path, code, err, body)
	}
	for _, c := range table.ColumnDefinitions {
		columns = append(columns, c.Name)
	}
	for _, r := range table.Rows {
		cells := make([]string, len(r.Cells))
		for i, c := range r.Cells {
			cells[i] = fmt.Sprint(c)
		}
		rows = append(rows, cells)
	}
	return columns, rows
}

// wantInvalid fails unless err is a 422 Invalid with message msg.
func wantInvalid(tb testing.TB, what string, err error, msg string) {
	tb.Helper()
	if !apierrors.IsInvalid(err) || err.Error() != msg {
		tb.Errorf("%s: got %v\nwant 422 %s", what, err, msg)
	}
}
