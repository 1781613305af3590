package printers_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// kindCase is one object printed by its kind's handler: the columns
// (priority-1 ones marked "*", as -o wide adds them) and the cells of
// its row as upstream's printer (pkg/printers/internalversion) prints
// them, rendered with %v.
type kindCase struct {
	name    string
	handler *printers.Handler
	obj     runtime.Object
	columns []string
	cells   []string
}

// runKindCases converts each case's object with the test clock and
// compares columns and cells.
func runKindCases(t *testing.T, cases []kindCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			table, err := tc.handler.ConvertToTable(tc.obj, printers.Options{Now: now})
			if err != nil {
				t.Fatal(err)
			}
			var cols []string
			for _, c := range table.ColumnDefinitions {
				name := c.Name
				if c.Priority == 1 {
					name += "*"
				}
				cols = append(cols, name)
			}
			if !slices.Equal(cols, tc.columns) {
				t.Errorf("columns\n got %q\nwant %q", cols, tc.columns)
			}
			if len(table.Rows) != 1 {
				t.Fatalf("%d rows, want 1", len(table.Rows))
			}
			var cells []string
			for _, c := range table.Rows[0].Cells {
				cells = append(cells, fmt.Sprint(c))
			}
			if !slices.Equal(cells, tc.cells) {
				t.Errorf("cells\n got %q\nwant %q", cells, tc.cells)
			}
		})
	}
}

// created is the metadata of an object named name made 3 days ago.
func created(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, CreationTimestamp: ago(3*day + time.Hour)}
}
