package policy

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-shell/agent-shell/internal/corpustsv"
)

// indexKeysManifest has a rule for every kind of key the index files by,
// and for what it cannot file (tried on every layer).
const indexKeysManifest = `version = 1

[policy]
default = "allow"
unknown = "allow"

[[rule]]
id = "program"
action = "deny"
match = { program = ["rm", "/usr/bin/shred"], argument = "-rf" }

[[rule]]
id = "basename"
action = "ask"
match = { basename = "curl" }

[[rule]]
id = "prefix"
action = "deny"
match = { argv_prefix = ["git", "push", "--force"] }

[[rule]]
id = "prefix-path"
action = "deny"
match = { argv_prefix = ["/usr/bin/npm", "unpublish"] }

[[rule]]
id = "prefix-any"
action = "deny"
match = { argv_prefix = ["npm", "*", "publish"] }

[[rule]]
id = "name"
action = "deny"
match = { command_name = ["mkfs", "dd"] }

[[rule]]
id = "name-glob"
action = "ask"
match = { command_name = "python*", argument_contains = "-c" }

[[rule]]
id = "git-sub"
action = "deny"
match = { git_subcommand = ["reset", "clean"] }

[[rule]]
id = "effect"
action = "deny"
match = { effect = "write:/etc/**" }

[[rule]]
id = "effect-network"
action = "ask"
match = { effect = ["network", "privilege_change"] }

[[rule]]
id = "regex-anchored"
action = "deny"
match = { program_regex = "^terra(form)?$" }

[[rule]]
id = "regex-free"
action = "ask"
match = { program_regex = "(?i)kubectl" }

[[rule]]
id = "all"
action = "deny"
match = { all = [{ argument = "--hard" }, { basename = "git" }] }

[[rule]]
id = "any"
action = "ask"
match = { any = [{ basename = "chmod" }, { command_name = "chown" }] }

[[rule]]
id = "any-open"
action = "deny"
match = { any = [{ basename = "scp" }, { argument = "--delete" }] }

[[rule]]
id = "not"
action = "ask"
match = { not = { basename = ["ls", "cat", "echo", "git"] }, argument = "/" }

[[rule]]
id = "unknown-effects"
action = "ask"
match = { no_unknown_effects = false }

[[rule]]
id = "readers"
action = "allow"
match = { basename = ["cat", "ls", "grep"] }
`

// indexDodges are spellings that reach a rule's program another way: a
// path, a case, a wrapper, an interpreter, a run-time word, a glob.
var indexDodges = []string{
	"rm -rf /tmp/x", "/bin/rm -rf x", "RM -rf x", "sudo rm -rf x", "env FOO=1 rm -rf x", "bash -c 'rm -rf x'",
	"command rm -rf x", "xargs rm -rf < list", "find . -exec rm -rf {} +", "/usr/bin/shred -rf x", "shred -rf x",
	"curl x | sh", "CURL.EXE x", "git push --force origin main", "git push -f", "/usr/bin/git push --force", "./git push --force", "git -C sub push --force",
	"git --namespace foo push --force origin main", "npm --workspace a publish", "npm unpublish x", "/usr/bin/npm unpublish", "npm x publish", "npm publish",
	"MKFS.ext4 /dev/sda", "/sbin/mkfs /dev/sda", "dd if=/dev/zero of=/dev/sda", "python3 -c 'print(1)'",
	"Python3.exe -c x", "git reset --hard", "git -c alias.x=reset x --hard", "git $SUB --hard", "$GIT reset",
	"cp x /etc/passwd", "echo x > /etc/hosts", "tee /etc/x < y", "ssh host", "sudo ls", "terraform destroy",
	"terra apply", "/opt/terraform apply", "KUBECTL delete", "my-kubectl get", "chmod 777 x", "chown a x",
	"rsync --delete a b", "scp a b", "rm -rf /", "ls /", "cat /", "x /", "$X /", "$(which rm) -rf x",
	"\"$CMD\" --force", "r* -rf x", "./rm -rf x", "cd /etc && touch passwd", "ls && git status | grep x",
	"for f in *; do rm -rf \"$f\"; done", "time rm -rf x", "nice -n 5 git push --force", "exec dd if=x",
	"FOO=1 npm publish", "t3 secret", "t4 push --force", "t1 /", "t99-a", "t199-b x", "t2x", "tx-a",
}

// indexManifests are manifests the index is checked on: every key kind,
// the bench policy, the corpus policy, the safety pack, generated rules.
func indexManifests(t *testing.T) map[string]string {
	read := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	return map[string]string{
		"keys":      indexKeysManifest,
		"bench":     read(filepath.Join("testdata", "bench", "agent-shell.toml")),
		"corpus":    read(filepath.Join("testdata", "corpus", "agent-shell.toml")),
		"safety":    read(filepath.Join("testdata", "bench-safety", "agent-shell.toml")),
		"generated": rulesManifest(400),
	}
}

// scanAll makes m try every rule on every layer, as before the index.
func scanAll(m *Manifest) {
	rules := m.AllRules()
	m.indexOnce.Do(func() {
		ix := &ruleIndex{}
		for i := range rules {
			ix.always = append(ix.always, int32(i))
		}
		m.index = ix
	})
}

// TestRuleIndexAgrees holds the index to what it promises: every decision,
// and every match of every layer, is the one a scan of all the rules
// makes, on the corpora's commands and on the dodges above; read from the
// text, and from the snapshot whose rules are decoded as needed.
func TestRuleIndexAgrees(t *testing.T) {
	lines := append([]string{}, indexDodges...)
	for _, f := range []string{"cc-safety-net.tsv", "dcg.tsv", "bash-gates.tsv", "cc-allow.tsv", "opencode-destructive-check.tsv"} {
		rows, err := corpustsv.Read(filepath.Join(corpusDataDir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			lines = append(lines, r.Fields[0])
		}
	}
	for name, text := range indexManifests(t) {
		t.Run(name, func(t *testing.T) {
			root, _ := writeRepo(t, text, nil)
			full := Load(root, noEnv)
			if full.LoadErr != nil {
				t.Fatal(full.LoadErr)
			}
			scanAll(full.Manifest)
			for _, from := range []string{"text", "snapshot"} {
				indexed := Load(root, noEnv)
				if indexed.LoadErr != nil {
					t.Fatal(indexed.LoadErr)
				}
				if from == "text" {
					indexed.Manifest.AllRules() // every rule decoded: the index built in memory
				} else if snapshotable(full.Manifest) && indexed.Manifest.lazy == nil {
					t.Fatal("not read lazily from its snapshot")
				}
				for _, line := range lines {
					want, got := full.Decide(line, corpusCwd), indexed.Decide(line, corpusCwd)
					if w, g := decisionMatches(want), decisionMatches(got); w != g {
						t.Fatalf("%s: %q:\nscan:  %s\nindex: %s", from, line, w, g)
					}
				}
			}
		})
	}
}

// decisionMatches is what a decision says and every match behind it.
func decisionMatches(d Decision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %q unknown=%q", d.Action, d.Rule, d.Reason, d.Unknown)
	for _, c := range d.Commands {
		fmt.Fprintf(&b, "\n  %q layer %d:", c.Argv, c.Layer)
		for _, m := range c.Matches {
			fmt.Fprintf(&b, " [%s %s %s %q]", m.Source, m.Rule, m.Action, m.Reason())
		}
	}
	return b.String()
}

// rulesManifest is the manifest of n rules the scale benchmarks load.
func rulesManifest(n int) string {
	var sb strings.Builder
	sb.WriteString("version = 1\n\n[policy]\ndefault = \"allow\"\nunknown = \"ask\"\n\n")
	for i := range n {
		var m string
		switch {
		case i%100 == 99:
			m = fmt.Sprintf(`{program_regex="^t%d-(a|b)$"}`, i)
		case i%4 == 0:
			m = fmt.Sprintf(`{argv_prefix=["t%d","push"],argument="--force"}`, i)
		case i%4 == 1:
			m = fmt.Sprintf(`{basename="t%d",argument=["/","~"]}`, i)
		case i%4 == 2:
			m = fmt.Sprintf(`{effect="write:/opt/t%d/**"}`, i)
		default:
			m = fmt.Sprintf(`{argv_prefix=["t%d"],argument_contains="secret"}`, i)
		}
		action := [...]string{"deny", "ask", "deny", "deny"}[i%4]
		fmt.Fprintf(&sb, "[[rule]]\nid=\"r%d\"\naction=\"%s\"\nmatch=%s\n", i, action, m)
	}
	return sb.String()
}

// Keys are taken only where matchStatic requires them.
func TestRuleKeys(t *testing.T) {
	for _, c := range []struct {
		match  string
		keys   []indexKey
		prefix string
	}{
		{`{ program = ["rm", "/bin/rm"] }`, []indexKey{{keyWord, "rm"}, {keyWord, "/bin/rm"}}, ""},
		{`{ argv_prefix = ["git", "push", "-f"] }`, []indexKey{{keyWord, "git"}}, ""},
		{`{ argv_prefix = ["/usr/bin/git", "push"] }`, []indexKey{{keyWord, "/usr/bin/git"}, {keyWord, "git"}}, ""},
		{`{ command_name = ["mkfs", "dd"] }`, []indexKey{{keyName, "mkfs"}, {keyName, "dd"}}, ""},
		{`{ command_name = ["python*"] }`, nil, ""},
		{`{ git_subcommand = "push" }`, []indexKey{{keyName, "git"}}, ""},
		{`{ effect = ["write:/etc/**", "network"] }`, []indexKey{{keyEffect, "write"}, {keyEffect, "network"}}, ""},
		{`{ all = [{ argument = "x" }, { basename = "y" }] }`, []indexKey{{keyWord, "y"}}, ""},
		{`{ any = [{ basename = "a" }, { command_name = "b" }] }`, []indexKey{{keyWord, "a"}, {keyName, "b"}}, ""},
		{`{ any = [{ basename = "a" }, { argument = "b" }] }`, nil, ""},
		{`{ not = { basename = "a" } }`, nil, ""},
		{`{ argument = "-rf" }`, nil, ""},
		{`{ program_regex = "^terra(form)?$" }`, nil, "terra"},
		{`{ program_regex = "^(?i)terraform" }`, nil, ""},
		{`{ program_regex = "terraform" }`, nil, ""},
		{`{ program_regex = "^a|^b" }`, nil, ""},
	} {
		m, err := ParseManifest("x.toml", []byte("version = 1\n[[rule]]\nid = \"r\"\naction = \"deny\"\nmatch = "+c.match+"\n"))
		if err != nil {
			t.Fatalf("%s: %v", c.match, err)
		}
		keys, prefix := ruleKeys(m.Rules[0].Match)
		if !reflect.DeepEqual(keys, c.keys) || prefix != c.prefix {
			t.Errorf("%s: keys %q prefix %q, want %q %q", c.match, keys, prefix, c.keys, c.prefix)
		}
	}
}

// A snapshot whose sum holds but one of whose rules does not decode stops
// every command that may meet that rule: it never lets one through.
func TestSnapshotDamagedRuleDenies(t *testing.T) {
	m, err := ParseManifest("x.toml", []byte(indexKeysManifest))
	if err != nil {
		t.Fatal(err)
	}
	snap, _ := encodeSnapshot(m)
	snap = snap[:len(snap)-4]
	// Break the last rule's body (its matcher's last byte) and seal it again.
	snap[len(snap)-1] = 7
	snap = append(snap, 0, 0, 0, 0)
	putSum(snap)
	got, err := decodeSnapshot("x.toml", indexKeysManifest, snap)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(nil, got)
	if err != nil {
		t.Fatal(err)
	}
	if d := e.Decide("cat README.md", "/tmp"); d.Action != ActionDeny || !strings.Contains(d.Reason, "snapshot") {
		t.Errorf("a damaged rule: %+v", d)
	}
}

func putSum(snap []byte) {
	binary.LittleEndian.PutUint32(snap[len(snap)-4:], crc32.ChecksumIEEE(snap[:len(snap)-4]))
}

// FuzzDecodeSnapshot: a snapshot is a file an agent could write. Whatever
// its bytes (sealed again with a good sum, so that the fuzzer reaches the
// structure behind it), decoding it is an error or a manifest whose every
// rule decodes to a valid action, and deciding with it never panics.
func FuzzDecodeSnapshot(f *testing.F) {
	for _, text := range []string{indexKeysManifest, rulesManifest(12), "version = 1\n"} {
		m, err := ParseManifest("x.toml", []byte(text))
		if err != nil {
			f.Fatal(err)
		}
		snap, _ := encodeSnapshot(m)
		f.Add(snap[:len(snap)-4])
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 1<<16 {
			return
		}
		snap := append(append([]byte{}, body...), 0, 0, 0, 0)
		putSum(snap)
		m, err := decodeSnapshot("x.toml", "", snap)
		if err != nil {
			return
		}
		e := &Engine{Manifest: m}
		for _, line := range []string{"rm -rf /", "git push --force", "t4 push --force", "$X /", "curl x | sh"} {
			if d := e.Decide(line, "/repo"); !d.Action.valid() {
				t.Fatalf("%q: action %q", line, d.Action)
			}
		}
		for _, r := range m.AllRules() {
			if r == nil || !r.Action.valid() || r.Match == nil {
				t.Fatalf("rule %+v", r)
			}
		}
	})
}

// A snapshot whose all or any holds a hole (a matcher written as absent)
// does not decode: evaluating the hole would panic the hook.
func TestSnapshotMatcherHole(t *testing.T) {
	for _, mt := range []*Matcher{{All: []*Matcher{nil}}, {Any: []*Matcher{{Basename: []string{"x"}}, nil}}} {
		m := &Manifest{Version: 1, Rules: []*Rule{{ID: "r", Action: ActionDeny, Match: mt}}}
		snap, ok := encodeSnapshot(m)
		if !ok {
			t.Fatal("not snapshotable")
		}
		got, err := decodeSnapshot("x.toml", "", snap)
		if err != nil {
			t.Fatal(err)
		}
		e := &Engine{Manifest: got}
		if d := e.Decide("x y", "/repo"); d.Action != ActionDeny || !strings.Contains(d.Reason, "snapshot") {
			t.Errorf("%+v: %s (%s)", mt, d.Action, d.Reason)
		}
	}
}
