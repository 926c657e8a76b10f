package telemetry

import (
	"bytes"
	"io"
	"os"
	"strconv"
)

// Process is one process above another.
type Process struct {
	PID  int
	Name string // its command name, as the kernel keeps it (at most 15 bytes)
	// Marker is the agent marker set in its environment (see AgentMarker)
	// and Actor the agent it names; "" when none is, or when the
	// environment cannot be read.
	Marker, Actor string
}

const (
	maxAncestors    = 64      // processes walked up
	maxEnvironBytes = 1 << 20 // bytes of one process's environment read
)

// Ancestors lists the processes above pid, its parent first, up to the
// first process of the system (pid 1) included; agents are the markers
// known, as for AgentMarker.
func Ancestors(pid int, agents []AgentEnv) []Process {
	var out []Process
	ppid, _, ok := readStat(pid)
	for ok && ppid > 0 && len(out) < maxAncestors {
		var p Process
		p.PID = ppid
		ppid, p.Name, ok = readStat(p.PID)
		p.Marker, p.Actor = AgentMarker(readEnviron(p.PID), agents)
		out = append(out, p)
	}
	return out
}

// readStat reads a process's parent and command name from /proc/PID/stat:
// "PID (NAME) STATE PPID ...", where NAME may itself hold spaces and
// parentheses.
func readStat(pid int) (ppid int, name string, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return 0, "", false
	}
	fields := bytes.Fields(data[end+1:])
	if len(fields) < 2 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(string(fields[1]))
	return ppid, string(data[open+1 : end]), err == nil
}

// readEnviron returns a getenv over a process's environment, as it was
// when the process started; it finds nothing when that cannot be read.
func readEnviron(pid int) func(string) string {
	env := map[string]string{}
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/environ")
	if err == nil {
		data, _ := io.ReadAll(io.LimitReader(f, maxEnvironBytes))
		f.Close()
		for _, kv := range bytes.Split(data, []byte{0}) {
			if k, v, ok := bytes.Cut(kv, []byte{'='}); ok {
				env[string(k)] = string(v)
			}
		}
	}
	return func(k string) string { return env[k] }
}
