package scenarios

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// testFile is the file name parser tests give their loader.
const testFile = "t.yaml"

// mustNode parses src and returns its document's root node.
func mustNode(tb testing.TB, src string) *yaml.Node {
	tb.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		tb.Fatalf("YAML %q: %v", src, err)
	}
	if len(doc.Content) == 0 {
		tb.Fatalf("YAML %q: no document", src)
	}
	return doc.Content[0]
}

// testLoader returns a loader of testFile whose applyFile reads files
// (by name; others are not found).
func testLoader(files map[string]string) *loader {
	return &loader{file: testFile, read: func(name string) (string, []byte, error) {
		data, ok := files[name]
		if !ok {
			return name, nil, fmt.Errorf("%s: no such file or directory", name)
		}
		return name, []byte(data), nil
	}}
}

// parseCase is a value of one key, and what its parser must make of it:
// want, or the error wantErr ("line:col: message", in testFile).
type parseCase[T any] struct {
	name    string
	key     string
	src     string
	want    T
	wantErr string
}

// checkParse runs parse on each case's value and compares; it names the
// errors as the loader does, after the key.
func checkParse[T any](t *testing.T, parse func(*loader, string, *yaml.Node) (T, error), cases []parseCase[T]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := testLoader(nil)
			l.lines = strings.Split(tc.src, "\n")
			n := mustNode(t, tc.src)
			got, err := parse(l, tc.key, n)
			err = keyScope(n, tc.key).fileError(l.file, err)
			if tc.wantErr != "" {
				var fe *FileError
				if !errors.As(err, &fe) {
					t.Fatalf("%s: %q gave %v, want a *FileError", tc.key, tc.src, err)
				}
				if want := testFile + ":" + tc.wantErr; err.Error() != want {
					t.Errorf("%s: %q: error\n got %s\nwant %s", tc.key, tc.src, err, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %q: %v", tc.key, tc.src, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: %q\n got %+v\nwant %+v", tc.key, tc.src, got, tc.want)
			}
		})
	}
}
