package kubelet

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// program is one program (or shell builtin) of kubesim's model: it runs
// with its arguments, writing to in and setting in.status.
type program func(in *interp, args []string)

// programs are the programs kubesim plays, by name (a path's last
// element: /bin/echo is echo). They behave as BusyBox's do (the shell
// builtins as its ash's), error messages included.
var programs map[string]program

func init() {
	programs = map[string]program{
		"echo":     echo,
		"printf":   printf,
		"sleep":    sleep,
		"exit":     exit,
		"true":     func(in *interp, _ []string) { in.status = 0 },
		":":        func(in *interp, _ []string) { in.status = 0 },
		"false":    func(in *interp, _ []string) { in.status = 1 },
		"date":     date,
		"hostname": func(in *interp, _ []string) { in.writeln(in.e.hostname); in.status = 0 },
		"set":      set,
		"tail":     tail,
		"wget":     wget,
		"curl":     curl,
		"nc":       nc,
	}
}

// echo writes its arguments: -n leaves out the newline, -e reads the
// backslash escapes (\n, \t, \\, \c ends the output).
func echo(in *interp, args []string) {
	newline, escapes := true, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
		for _, f := range args[0][1:] {
			switch f {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	s := strings.Join(args, " ")
	if escapes {
		var stop bool
		if s, stop = unescape(s); stop {
			newline = false
		}
	}
	if newline {
		s += "\n"
	}
	in.write(s)
	in.status = 0
}

// unescape reads the backslash escapes of echo -e and printf; stop: a
// \c ended the text.
func unescape(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\':
			b.WriteByte('\\')
		case 'c':
			return b.String(), true
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String(), false
}

// printf writes its format with its arguments (%s, %d, %i, %c, %x, %%,
// and the escapes of echo -e), again for each further set of arguments,
// as printf(1) does.
func printf(in *interp, args []string) {
	if len(args) == 0 {
		in.writeln("printf: usage: printf FORMAT [ARGUMENT...]")
		in.status = 1
		return
	}
	format, args := args[0], args[1:]
	in.status = 0
	for {
		used := 0
		var b strings.Builder
		for i := 0; i < len(format); i++ {
			c := format[i]
			if c != '%' || i+1 == len(format) {
				b.WriteByte(c)
				continue
			}
			i++
			verb := format[i]
			if verb == '%' {
				b.WriteByte('%')
				continue
			}
			arg := ""
			if used < len(args) {
				arg = args[used]
			}
			used++
			b.WriteString(in.printfVerb(verb, arg))
		}
		s, stop := unescape(b.String())
		in.write(s)
		args = args[min(used, len(args)):]
		if stop || used == 0 || len(args) == 0 {
			return
		}
	}
}

// printfVerb formats one argument.
func (in *interp) printfVerb(verb byte, arg string) string {
	switch verb {
	case 'd', 'i', 'x':
		if arg == "" {
			arg = "0"
		}
		n, err := strconv.ParseInt(arg, 0, 64)
		if err != nil {
			in.writeln(fmt.Sprintf("printf: invalid number '%s'", arg))
			in.status = 1
		}
		if verb == 'x' {
			return strconv.FormatInt(n, 16)
		}
		return strconv.FormatInt(n, 10)
	case 'c':
		if arg == "" {
			return ""
		}
		return arg[:1]
	}
	return arg
}

// sleep waits the sum of its arguments (seconds, or with a suffix s, m,
// h, d; "inf" or "infinity": for ever). Its time is divided by the
// kubelet's speed like every simulated delay.
func sleep(in *interp, args []string) {
	if len(args) == 0 {
		in.writeln("sleep: missing operand") // BusyBox prints its usage
		in.status = 1
		return
	}
	var total time.Duration
	for _, a := range args {
		d, err := sleepDuration(a)
		if err != nil {
			in.writeln(fmt.Sprintf("sleep: invalid number '%s'", a))
			in.status = 1
			return
		}
		if d < 0 {
			in.runForever()
			return
		}
		total += d
	}
	in.t += total
	in.status = 0
}

// sleepDuration reads one argument of sleep; negative: infinity.
func sleepDuration(a string) (time.Duration, error) {
	if a == "inf" || a == "infinity" {
		return -1, nil
	}
	unit := time.Second
	switch {
	case strings.HasSuffix(a, "s"):
		a = strings.TrimSuffix(a, "s")
	case strings.HasSuffix(a, "m"):
		a, unit = strings.TrimSuffix(a, "m"), time.Minute
	case strings.HasSuffix(a, "h"):
		a, unit = strings.TrimSuffix(a, "h"), time.Hour
	case strings.HasSuffix(a, "d"):
		a, unit = strings.TrimSuffix(a, "d"), 24*time.Hour
	}
	f, err := strconv.ParseFloat(a, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || f*float64(unit) > math.MaxInt64/2 {
		return 0, fmt.Errorf("invalid number")
	}
	return time.Duration(f * float64(unit)), nil
}

// exit ends the shell with code N (default: the last command's).
func exit(in *interp, args []string) {
	if len(args) > 0 {
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 0 {
			in.writeln(fmt.Sprintf("sh: exit: Illegal number: %s", args[0]))
			in.status = 2
		} else {
			in.status = int32(n & 0xff)
		}
	}
	in.exited = true
}

// date writes the time as BusyBox's date does without a format.
func date(in *interp, args []string) {
	if len(args) > 1 || len(args) == 1 && args[0] != "-u" {
		in.notSimulated(fmt.Sprintf("%q", "date "+strings.Join(args, " ")))
		return
	}
	in.writeln(in.e.start.Add(in.e.scale(in.t)).UTC().Format("Mon Jan _2 15:04:05 MST 2006"))
	in.status = 0
}

// set -e makes a failure end the shell, set -x writes each command
// before it runs it; other options change nothing kubesim shows.
func set(in *interp, args []string) {
	for i, a := range args {
		if len(a) > 1 && (a[0] == '-' || a[0] == '+') {
			on := a[0] == '-'
			for _, f := range a[1:] {
				switch f {
				case 'e':
					in.errexit = on
				case 'x':
					in.xtrace = on
				case 'o':
					if i+1 < len(args) && args[i+1] == "errexit" {
						in.errexit = on
					}
				}
			}
		}
	}
	in.status = 0
}

// tail -f of a file waits for ever, for lines that never come: the
// usual way to keep a container running.
func tail(in *interp, args []string) {
	for _, a := range args {
		if a == "-f" || a == "-F" {
			in.runForever()
			return
		}
	}
	in.notSimulated(fmt.Sprintf("%q", "tail "+strings.Join(args, " ")))
}
