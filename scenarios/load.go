package scenarios

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/flow"
)

// FileError is a problem with a scenario file (or a manifest it names),
// at a line and column (both from 1). Its Error is "file:line:col: msg".
type FileError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *FileError) Error() string { return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg) }

// Parse reads a scenario from data; filename names it in errors, and an
// applyFile is read relative to its directory, where it must stay (see
// readApplyFile: a regular file of at most MaxFileSize). Every problem is
// reported as a *FileError (the first one found). Text that reaches the
// screen (title, summary, narration, every string of the file) has its
// terminal control sequences removed (flow.Printable).
func Parse(filename string, data []byte) (*Scenario, error) {
	dir := filepath.Dir(filename)
	return parse(filename, data, func(name string) (string, []byte, error) {
		return readApplyFile(dir, name)
	})
}

// Load reads and parses the scenario file at path (see Parse): a regular
// file of at most MaxFileSize.
func Load(path string) (*Scenario, error) {
	data, err := readRegular(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %s: %w", path, err)
	}
	return Parse(path, data)
}

// readFunc reads a file a scenario names (applyFile), returning the name
// errors should give it.
type readFunc func(name string) (string, []byte, error)

// loader holds what parsing one file needs.
type loader struct {
	file  string
	lines []string
	read  readFunc
	// customKinds are the kinds the file's CustomResourceDefinitions
	// define, known to the steps after the one that applies them.
	customKinds map[string]kindInfo
}

// errorAt returns a *FileError at n's position in the loader's file.
func (l *loader) errorAt(n *yaml.Node, format string, args ...any) *FileError {
	return &FileError{File: l.file, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)}
}

// parse reads the scenario in data, the contents of file; read reads
// the manifests its applyFile actions name.
func parse(file string, data []byte, read readFunc) (*Scenario, error) {
	l := &loader{file: file, lines: strings.Split(string(data), "\n"), read: read}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(file, err, func(line int) (int, int) { return line, 1 })
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &FileError{File: file, Line: 1, Col: 1, Msg: "empty scenario file"}
	}
	root := doc.Content[0]
	s, err := l.scenario(root)
	return s, scope{root, "scenario", ""}.fileError(file, err)
}

// scenarioDoc is a scenario file as written.
type scenarioDoc struct {
	Name    slug        `yaml:"name" load:"required"`
	Title   text        `yaml:"title" load:"required"`
	Summary text        `yaml:"summary" load:"required"`
	Level   *str        `yaml:"level"`
	Cluster *clusterDoc `yaml:"cluster"`
	Steps   []yaml.Node `yaml:"steps" load:"required"`
}

// scenario reads the top-level mapping: metadata, cluster and steps,
// with the defaults of what it leaves out.
func (l *loader) scenario(root *yaml.Node) (*Scenario, error) {
	if root.Kind != yaml.MappingNode {
		// Not quoted: a file that is not a scenario at all is not shown.
		return nil, errAt(root, "expected a mapping (%s), got %s", strings.Join(docKeys[scenarioDoc](), ", "), kindOfNode(root))
	}
	var d scenarioDoc
	if err := decode(root, &d); err != nil {
		return nil, err
	}
	s := &Scenario{File: l.file, Name: string(d.Name), Title: flow.Text(d.Title), Summary: flow.Text(d.Summary),
		Cluster: ClusterSpec{Nodes: cluster.DefaultNodes(cluster.DefaultNodeCount), Scheduler: true, Speed: DefaultSpeed, Topology: TopologySingle}}
	var err error
	if s.Level, err = d.Level.oneOf(valueOf(root, "level"), Levels[0], Levels); err != nil {
		return nil, err
	}
	if d.Cluster != nil {
		if err := d.Cluster.apply(valueOf(root, "cluster"), &s.Cluster); err != nil {
			return nil, err
		}
	}
	if len(d.Steps) == 0 {
		return nil, errAt(valueOf(root, "steps"), "a scenario needs at least one step")
	}
	ids := map[string]bool{}
	for i := range d.Steps {
		st, err := l.step(&d.Steps[i], i+1)
		if err != nil {
			return nil, err
		}
		if st.ID != "" {
			if ids[st.ID] {
				return nil, l.errorAt(&d.Steps[i], "step %d: id %q is used twice", i+1, st.ID)
			}
			ids[st.ID] = true
		}
		s.Steps = append(s.Steps, st)
	}
	s.customKinds = l.customKinds
	return s, nil
}

// docKeys lists the keys of the struct type T as decode reads it, in
// the order messages list them.
func docKeys[T any]() []string {
	var keys []string
	for _, f := range fieldsOf(reflect.TypeFor[T]()) {
		keys = append(keys, f.key)
	}
	return keys
}
