package scenarios

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/kubelet"
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

// The keys of the format.
var (
	scenarioKeys = []string{"name", "title", "summary", "level", "cluster", "steps"}
	clusterKeys  = []string{"nodes", "scheduler", "speed", "topology"}
	nodeKeys     = []string{"name", "cpu", "memory", "pods", "labels", "taints"}
	taintKeys    = []string{"key", "value", "effect"}
	textKeys     = []string{"en", "zh"}
	// stepKeys are a step's fields, its action's among them.
	stepKeys     = append(append([]string{"id", "narration", "question", "as", "server"}, actionKeys()...), "wait", "expect", "timeout")
	taintEffects = []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}
)

var nameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// loader holds what parsing one file needs.
type loader struct {
	file  string
	lines []string
	read  readFunc
	// customKinds are the kinds the file's CustomResourceDefinitions
	// define, known to the steps after the one that applies them.
	customKinds map[string]kindInfo
}

// errAt returns a *FileError at n's position in the loader's file.
func (l *loader) errAt(n *yaml.Node, format string, args ...any) *FileError {
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
	return l.scenario(doc.Content[0])
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlError turns a syntax error of the YAML parser into a *FileError;
// at maps a line of the parsed text to the file's line and column.
func yamlError(file string, err error, at func(int) (int, int)) error {
	msg := err.Error()
	line := 1
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	l, c := at(line)
	return &FileError{File: file, Line: l, Col: c, Msg: "invalid YAML: " + msg}
}

// field is one key of a mapping and its value.
type field struct {
	key, val *yaml.Node
}

// fields checks that n is a mapping whose keys are all in allowed (each
// once) and returns them by name, with the keys in file order.
func (l *loader) fields(n *yaml.Node, what string, allowed []string) (map[string]field, []string, error) {
	if n.Kind != yaml.MappingNode {
		return nil, nil, l.errAt(n, "%s: expected a mapping, got %s", what, describe(n))
	}
	out := map[string]field{}
	var order []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(allowed, k.Value) {
			return nil, nil, l.errAt(k, "%s: unknown field %q (allowed: %s)", what, k.Value, strings.Join(allowed, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, nil, l.errAt(k, "%s: field %q given twice", what, k.Value)
		}
		out[k.Value] = field{k, v}
		order = append(order, k.Value)
	}
	return out, order, nil
}

// describe says what kind of value n is, for messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		return "a number (" + flow.Printable(n.Value) + ")"
	case "!!bool":
		return "a boolean (" + flow.Printable(n.Value) + ")"
	case "!!null":
		return "nothing"
	}
	return fmt.Sprintf("a string (%q)", n.Value)
}

// str reads a string, without terminal control sequences (every string
// of a scenario may reach the screen).
func (l *loader) str(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		return "", l.errAt(n, "%s: expected a string, got %s", what, describe(n))
	}
	return flow.Printable(n.Value), nil
}

// optionalStr sets *dst to the string in fields[name] when the field is
// given and leaves it as it is otherwise; errors name the field what.name.
func (l *loader) optionalStr(fields map[string]field, what, name string, dst *string) error {
	f, ok := fields[name]
	if !ok {
		return nil
	}
	s, err := l.str(f.val, what+"."+name)
	if err != nil {
		return err
	}
	*dst = s
	return nil
}

// scalar accepts a string or a number (quantities: cpu: 4).
func (l *loader) scalar(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!str" && n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		return "", l.errAt(n, "%s: expected a string or a number, got %s", what, describe(n))
	}
	return flow.Printable(n.Value), nil
}

// integer reads a YAML integer.
func (l *loader) integer(n *yaml.Node, what string) (int64, error) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		return 0, l.errAt(n, "%s: expected an integer, got %s", what, describe(n))
	}
	v, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil {
		return 0, l.errAt(n, "%s: %q is not an integer", what, n.Value)
	}
	return v, nil
}

// number reads a YAML integer or float.
func (l *loader) number(n *yaml.Node, what string) (float64, error) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		return 0, l.errAt(n, "%s: expected a number, got %s", what, describe(n))
	}
	v, err := strconv.ParseFloat(n.Value, 64)
	if err != nil {
		return 0, l.errAt(n, "%s: %q is not a number", what, n.Value)
	}
	return v, nil
}

// boolean reads true or false.
func (l *loader) boolean(n *yaml.Node, what string) (bool, error) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		return false, l.errAt(n, "%s: expected true or false, got %s", what, describe(n))
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		return false, l.errAt(n, "%s: %v", what, err)
	}
	return b, nil
}

// duration reads "2s", "1m30s", "500ms" (0 is allowed as a bare number).
func (l *loader) duration(n *yaml.Node, what string) (time.Duration, error) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!str" && n.ShortTag() != "!!int") {
		return 0, l.errAt(n, "%s: expected a duration such as 2s or 500ms, got %s", what, describe(n))
	}
	if n.ShortTag() == "!!int" && n.Value == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil || d < 0 {
		return 0, l.errAt(n, "%s: bad duration %q (use a number with a unit: 500ms, 2s, 1m)", what, n.Value)
	}
	return d, nil
}

// oneOf reads a string that must be one of allowed.
func (l *loader) oneOf(n *yaml.Node, what string, allowed []string) (string, error) {
	s, err := l.str(n, what)
	if err != nil {
		return "", err
	}
	if !slices.Contains(allowed, s) {
		return "", l.errAt(n, "%s: %q is not one of %s", what, s, strings.Join(allowed, ", "))
	}
	return s, nil
}

// stringMap reads a mapping of scalars (labels, annotations) as strings.
func (l *loader) stringMap(n *yaml.Node, what string) (map[string]string, error) {
	if n.Kind != yaml.MappingNode {
		return nil, l.errAt(n, "%s: expected a mapping, got %s", what, describe(n))
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode || v.ShortTag() == "!!null" {
			return nil, l.errAt(v, "%s.%s: expected a string, got %s", what, k.Value, describe(v))
		}
		out[flow.Printable(k.Value)] = flow.Printable(v.Value)
	}
	return out, nil
}

// text reads {en: ..., zh: ...}; both must be there and not empty.
func (l *loader) text(n *yaml.Node, what string) (flow.Text, error) {
	fields, _, err := l.fields(n, what, textKeys)
	if err != nil {
		return flow.Text{}, err
	}
	var t flow.Text
	for _, lang := range textKeys {
		f, ok := fields[lang]
		if !ok {
			return t, l.errAt(n, "%s: missing %s", what, lang)
		}
		s, err := l.str(f.val, what+"."+lang)
		if err != nil {
			return t, err
		}
		if strings.TrimSpace(s) == "" {
			return t, l.errAt(f.val, "%s: missing %s", what, lang)
		}
		if lang == "en" {
			t.En = strings.TrimSpace(s)
		} else {
			t.Zh = unfoldCJK(strings.TrimSpace(s))
		}
	}
	return t, nil
}

// name reads a scenario or step name: [a-z0-9-]+, starting and ending
// with a letter or digit.
func (l *loader) name(n *yaml.Node, what string) (string, error) {
	s, err := l.str(n, what)
	if err != nil {
		return "", err
	}
	if !nameRE.MatchString(s) {
		return "", l.errAt(n, "%s: %q is not a valid name (lowercase letters, digits and '-', starting and ending with a letter or digit)", what, s)
	}
	return s, nil
}

// objectName reads the name of an API object (a DNS subdomain).
func (l *loader) objectName(n *yaml.Node, what string) (string, error) {
	s, err := l.str(n, what)
	if err != nil {
		return "", err
	}
	if errs := validation.IsDNS1123Subdomain(s); len(errs) > 0 {
		return "", l.errAt(n, "%s: %q is not a valid object name: %s", what, s, errs[0])
	}
	return s, nil
}

// scenario reads the top-level mapping: metadata, cluster and steps,
// with the defaults of what it leaves out.
func (l *loader) scenario(root *yaml.Node) (*Scenario, error) {
	if root.Kind != yaml.MappingNode {
		// Not quoted: a file that is not a scenario at all is not shown.
		return nil, l.errAt(root, "scenario: expected a mapping (%s), got %s", strings.Join(scenarioKeys, ", "), kindOfNode(root))
	}
	fields, _, err := l.fields(root, "scenario", scenarioKeys)
	if err != nil {
		return nil, err
	}
	missing := func(k string) error {
		if _, ok := fields[k]; !ok {
			return l.errAt(root, "scenario: missing field %q", k)
		}
		return nil
	}
	s := &Scenario{File: l.file, Level: Levels[0], Cluster: ClusterSpec{
		Nodes: kubelet.DefaultNodes(cluster.DefaultNodeCount), Scheduler: true, Speed: DefaultSpeed, Topology: TopologySingle}}
	if err := missing("name"); err != nil {
		return nil, err
	}
	if s.Name, err = l.name(fields["name"].val, "name"); err != nil {
		return nil, err
	}
	if err := missing("title"); err != nil {
		return nil, err
	}
	if s.Title, err = l.text(fields["title"].val, "title"); err != nil {
		return nil, err
	}
	if err := missing("summary"); err != nil {
		return nil, err
	}
	if s.Summary, err = l.text(fields["summary"].val, "summary"); err != nil {
		return nil, err
	}
	if f, ok := fields["level"]; ok {
		if s.Level, err = l.oneOf(f.val, "level", Levels); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["cluster"]; ok {
		if err := l.cluster(f.val, &s.Cluster); err != nil {
			return nil, err
		}
	}
	if err := missing("steps"); err != nil {
		return nil, err
	}
	steps := fields["steps"].val
	if steps.Kind != yaml.SequenceNode {
		return nil, l.errAt(steps, "steps: expected a list, got %s", describe(steps))
	}
	if len(steps.Content) == 0 {
		return nil, l.errAt(steps, "steps: a scenario needs at least one step")
	}
	ids := map[string]bool{}
	for i, n := range steps.Content {
		st, err := l.step(n, i+1)
		if err != nil {
			return nil, err
		}
		if st.ID != "" {
			if ids[st.ID] {
				return nil, l.errAt(n, "step %d: id %q is used twice", i+1, st.ID)
			}
			ids[st.ID] = true
		}
		s.Steps = append(s.Steps, st)
	}
	s.customKinds = l.customKinds
	return s, nil
}

// cluster reads the cluster section into c, which holds the defaults.
func (l *loader) cluster(n *yaml.Node, c *ClusterSpec) error {
	fields, _, err := l.fields(n, "cluster", clusterKeys)
	if err != nil {
		return err
	}
	if f, ok := fields["nodes"]; ok {
		if f.val.Kind == yaml.SequenceNode {
			c.Nodes = nil
			seen := map[string]bool{}
			for _, nn := range f.val.Content {
				spec, err := l.node(nn, "cluster.nodes")
				if err != nil {
					return err
				}
				if seen[spec.Name] {
					return l.errAt(nn, "cluster.nodes: node %q is listed twice", spec.Name)
				}
				seen[spec.Name] = true
				c.Nodes = append(c.Nodes, spec)
			}
		} else {
			if f.val.Kind != yaml.ScalarNode || f.val.ShortTag() != "!!int" {
				return l.errAt(f.val, "cluster.nodes: expected a number of nodes or a list of nodes, got %s", describe(f.val))
			}
			count, err := l.integer(f.val, "cluster.nodes")
			if err != nil {
				return err
			}
			if count < 0 || count > 100 {
				return l.errAt(f.val, "cluster.nodes: %d nodes: use 0 to 100", count)
			}
			c.Nodes = kubelet.DefaultNodes(int(count))
		}
	}
	if f, ok := fields["scheduler"]; ok {
		if c.Scheduler, err = l.boolean(f.val, "cluster.scheduler"); err != nil {
			return err
		}
	}
	if f, ok := fields["speed"]; ok {
		if c.Speed, err = l.number(f.val, "cluster.speed"); err != nil {
			return err
		}
		if c.Speed < 0 {
			return l.errAt(f.val, "cluster.speed: %s is negative", f.val.Value)
		}
	}
	if f, ok := fields["topology"]; ok {
		if c.Topology, err = l.oneOf(f.val, "cluster.topology", Topologies); err != nil {
			return err
		}
	}
	return nil
}

// node reads a node: {name, cpu, memory, pods, labels, taints}.
func (l *loader) node(n *yaml.Node, what string) (kubelet.NodeSpec, error) {
	fields, _, err := l.fields(n, what, nodeKeys)
	if err != nil {
		return kubelet.NodeSpec{}, err
	}
	f, ok := fields["name"]
	if !ok {
		return kubelet.NodeSpec{}, l.errAt(n, "%s: missing field \"name\"", what)
	}
	name, err := l.objectName(f.val, what+".name")
	if err != nil {
		return kubelet.NodeSpec{}, err
	}
	spec := kubelet.DefaultNodeSpec(name)
	for _, q := range []struct {
		key string
		dst *resource.Quantity
	}{{"cpu", &spec.CPU}, {"memory", &spec.Memory}} {
		f, ok := fields[q.key]
		if !ok {
			continue
		}
		s, err := l.scalar(f.val, what+"."+q.key)
		if err != nil {
			return spec, err
		}
		v, err := resource.ParseQuantity(s)
		if err != nil {
			return spec, l.errAt(f.val, "%s.%s: %q is not a quantity (like 4, 500m, 8Gi)", what, q.key, s)
		}
		*q.dst = v
	}
	if f, ok := fields["pods"]; ok {
		if spec.Pods, err = l.integer(f.val, what+".pods"); err != nil {
			return spec, err
		}
	}
	if f, ok := fields["labels"]; ok {
		if spec.Labels, err = l.stringMap(f.val, what+".labels"); err != nil {
			return spec, err
		}
	}
	if f, ok := fields["taints"]; ok {
		if spec.Taints, err = l.taints(f.val, what+".taints"); err != nil {
			return spec, err
		}
	}
	return spec, nil
}

// taints reads a list of {key, value, effect}.
func (l *loader) taints(n *yaml.Node, what string) ([]corev1.Taint, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, l.errAt(n, "%s: expected a list, got %s", what, describe(n))
	}
	var taints []corev1.Taint
	for _, tn := range n.Content {
		fields, _, err := l.fields(tn, what, taintKeys)
		if err != nil {
			return nil, err
		}
		var t corev1.Taint
		kf, ok := fields["key"]
		if !ok {
			return nil, l.errAt(tn, "%s: missing field \"key\"", what)
		}
		if t.Key, err = l.str(kf.val, what+".key"); err != nil {
			return nil, err
		}
		if vf, ok := fields["value"]; ok {
			if t.Value, err = l.scalar(vf.val, what+".value"); err != nil {
				return nil, err
			}
		}
		ef, ok := fields["effect"]
		if !ok {
			return nil, l.errAt(tn, "%s: missing field \"effect\"", what)
		}
		effect, err := l.oneOf(ef.val, what+".effect", taintEffects)
		if err != nil {
			return nil, err
		}
		t.Effect = corev1.TaintEffect(effect)
		taints = append(taints, t)
	}
	return taints, nil
}

// step reads the step at index (from 1): its fields, its one action (a
// registered actionKind) and its expectations.
func (l *loader) step(n *yaml.Node, index int) (*Step, error) {
	what := fmt.Sprintf("step %d", index)
	fields, order, err := l.fields(n, what, stepKeys)
	if err != nil {
		return nil, err
	}
	st := &Step{Index: index, As: DefaultUser, Timeout: DefaultTimeout, Line: n.Line, Col: n.Column}
	if f, ok := fields["id"]; ok {
		if st.ID, err = l.name(f.val, "id"); err != nil {
			return nil, err
		}
	}
	f, ok := fields["narration"]
	if !ok {
		return nil, l.errAt(n, "%s: missing field \"narration\"", what)
	}
	if st.Narration, err = l.text(f.val, "narration"); err != nil {
		return nil, err
	}
	if f, ok := fields["question"]; ok {
		if st.Question, err = l.question(f.val); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["as"]; ok {
		if st.As, err = l.str(f.val, "as"); err != nil {
			return nil, err
		}
		if _, err := cluster.IdentityOf(st.As); err != nil {
			return nil, l.errAt(f.val, "as: unknown user %q (use admin, student, system:kube-scheduler or system:node:<node>)", st.As)
		}
	}
	if f, ok := fields["server"]; ok {
		if err := l.stepServer(f.val, st); err != nil {
			return nil, err
		}
	}
	var action string
	for _, k := range order {
		kind, ok := actionKindOf(k)
		if !ok {
			continue
		}
		if action != "" {
			return nil, l.errAt(fields[k].key, "%s: two actions, %s and %s (a step has at most one)", what, action, k)
		}
		action = k
		if st.Action, err = kind.parse(l, k, fields[k].val); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["wait"]; ok {
		if st.Wait, err = l.duration(f.val, "wait"); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["timeout"]; ok {
		if st.Timeout, err = l.duration(f.val, "timeout"); err != nil {
			return nil, err
		}
		if st.Timeout <= 0 {
			return nil, l.errAt(f.val, "timeout: must be more than 0")
		}
	}
	if f, ok := fields["expect"]; ok {
		if f.val.Kind != yaml.SequenceNode {
			return nil, l.errAt(f.val, "expect: expected a list, got %s", describe(f.val))
		}
		for _, en := range f.val.Content {
			e, err := l.expectation(en)
			if err != nil {
				return nil, err
			}
			st.Expect = append(st.Expect, e)
		}
	}
	return st, nil
}

// expectation reads one item of a step's expect list: a mapping with one
// key, a registered expectation's.
func (l *loader) expectation(n *yaml.Node) (Expectation, error) {
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		return nil, l.errAt(n, "expect: each item has exactly one key, one of %s", strings.Join(expectKeys(), ", "))
	}
	k, v := n.Content[0], n.Content[1]
	kind, ok := expectationKindOf(k.Value)
	if !ok {
		return nil, l.errAt(k, "unknown expectation %q (known: %s)", k.Value, strings.Join(expectKeys(), ", "))
	}
	return kind.parse(l, k.Value, v)
}

// blockPos maps positions inside the text of scalar n (line and column
// from 1) to positions in the file.
func (l *loader) blockPos(n *yaml.Node) func(line, col int) (int, int) {
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
		return func(int, int) (int, int) { return n.Line, n.Column }
	}
	indent := 0
	for i := n.Line; i < len(l.lines); i++ { // l.lines[n.Line] is the line after the indicator
		if t := strings.TrimLeft(l.lines[i], " "); t != "" {
			indent = len(l.lines[i]) - len(t)
			break
		}
	}
	return func(line, col int) (int, int) { return n.Line + line, indent + col }
}

// kindOfNode says what kind of value n is, without its value.
func kindOfNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode, yaml.AliasNode:
		return describe(n)
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "nothing"
	}
	return "a string"
}

// stepServer reads a step's server: the API server (from 1) of a
// cluster of topology ha its action's requests go to.
func (l *loader) stepServer(n *yaml.Node, st *Step) error {
	i, err := l.integer(n, "server")
	if err != nil {
		return err
	}
	if i < 1 || i > int64(cluster.DefaultHAConfig.APIServers) {
		return l.errAt(n, "server: %d: the API servers of a cluster of topology ha are 1 to %d", i, cluster.DefaultHAConfig.APIServers)
	}
	st.Server = int(i)
	return nil
}
