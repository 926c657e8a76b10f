package policy

import (
	"errors"
	"io/fs"
	"reflect"
	"testing"

	"github.com/agent-shell/agent-shell/scripts"
)

// FuzzParsePackFile: parsing pack.toml never panics, a refusal is a
// located *ManifestError, and an accepted pack has a valid name, a version
// and options whose defaults it accepts; it then loads on its own (without
// panicking) as pack add would.
func FuzzParsePackFile(f *testing.F) {
	safety, ok := scripts.Pack("safety")
	if !ok {
		f.Fatal("no built-in safety pack")
	}
	data, err := fs.ReadFile(safety, PackFileName)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(teamPack["pack.toml"]))
	for _, seed := range []string{
		"name = \"x\"\nversion = \"1\"\n",
		"name = \"x\"\nversion = \"1\"\n[options.n]\ntype = \"int\"\ndefault = 3\n[options.b]\ntype = \"bool\"\ndefault = false\n[options.l]\ntype = \"strings\"\ndefault = [\"a\"]\n[[rule]]\nid = \"r\"\naction = \"deny\"\nwhen = { n = [1, 3], b = false }\nmatch = { basename = \"rm\" }\n",
		"name = \"x\"\nversion = \"1\"\n[[script]]\nid = \"s\"\nkind = \"shell_matcher\"\nsource = \"def on_event(ctx, state):\\n    return Match.no()\\n\"\n[[rule]]\nid = \"r\"\naction = \"ask\"\nmatch = { script = \"s\" }\nexamples = { not_match = [\"ls\"] }\n",
		"name = \"x\"\nversion = \"1\"\n[[script]]\nid = \"s\"\nkind = \"shell_matcher\"\nsrc = \"../up.star\"\n",
		"name = \"agent-shell\"\nversion = \"1\"\n",
		"name = \"-x\"\nversion = \"1\"\n",
		"name = \"x\"\n",
		"name = \"x\"\nversion = \"1\"\n[options.level]\ntype = \"string\"\ndefault = \"lax\"\nallowed = [\"standard\"]\n",
		"name = \"x\"\nversion = \"1\"\n[options.level]\ntype = \"int\"\ndefault = 1\nallowed = [\"a\"]\n",
		"name = \"x\"\nversion = \"1\"\n[options.\"a.b\"]\ntype = \"bool\"\ndefault = true\n",
		"name = \"x\"\nversion = \"1\"\n[options.l]\ntype = \"strings\"\ndefault = []\n[[rule]]\nid = \"r\"\naction = \"deny\"\nwhen = { l = \"a\" }\nmatch = { basename = \"rm\" }\n",
		"name = \"x\"\nversion = \"1\"\n[[rule]]\nid = \"r\"\naction = \"maybe\"\nmatch = { basename = \"rm\" }\n",
		"name = \"x\"\nversion = \"1\"\nunknown = 1\n",
		"name = 1\n",
		"[[rule]\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, err := ParsePackFile(PackFileName, data)
		if err != nil {
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("ParsePackFile: %T %v, want a *ManifestError", err, err)
			}
			return
		}
		if !validPackName(pf.Name) {
			t.Fatalf("accepted the pack name %q", pf.Name)
		}
		if pf.Version == "" {
			t.Fatal("accepted a pack without a version")
		}
		for name, o := range pf.Options {
			if _, err := o.value(o.Default); err != nil {
				t.Fatalf("option %q: its accepted default %v does not check: %v", name, o.Default, err)
			}
		}
		options, err := pf.resolveOptions(nil)
		if err != nil {
			t.Fatalf("the defaults do not resolve: %v", err)
		}
		for _, r := range pf.Rules {
			ruleApplies(r, options)
		}
		m, err := LoadPackFiles("fuzz", PackFiles{PackFileName: data})
		if err != nil {
			return
		}
		if ps := m.LoadedPacks(); len(ps) != 1 || ps[0].File.Name != pf.Name {
			t.Fatalf("LoadPackFiles loaded %d packs", len(ps))
		}
		NewEngine(nil, m)
	})
}

// FuzzParseLock: parsing a lock file never panics, and an accepted lock
// encodes and parses back to the same lock.
func FuzzParseLock(f *testing.F) {
	files := PackFiles{"pack.toml": []byte("name = \"team\"\nversion = \"1\"\n"), "rules/x.star": []byte("X = 1\n")}
	lock := &Lock{Version: 1, Packs: []*LockEntry{
		EntryFor("team", "git+file:///srv/team.git", "v1", "0123456789abcdef0123456789abcdef01234567", files),
		EntryFor("a-b_c", "/abs/folder", "", "", PackFiles{"p": nil}),
	}}
	data, err := lock.Encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	e := EntryFor("team", "git+file:///srv/team.git", "v1", "", files)
	for _, seed := range []string{
		"version = 1\n",
		"version = 2\n",
		"version = 1\n[[pack]]\nname = \"x\"\nsource = \"s\"\ntree = \"" + e.Tree + "\"\n[pack.files]\n\"a\" = \"" + e.Files["pack.toml"] + "\"\n",
		"version = 1\n[[pack]]\nname = \"x\"\nsource = \"s\"\ntree = \"" + e.Tree + "\"\n[pack.files]\n\"../a\" = \"" + e.Files["pack.toml"] + "\"\n",
		"version = 1\n[[pack]]\nname = \"x\"\nsource = \"s\"\ntree = \"" + e.Tree + "\"\n[pack.files]\n\"a\" = \"zz\"\n",
		"version = 1\n[[pack]]\nname = \"x\"\nsource = \"s\"\ntree = \"" + e.Tree + "\"\n",
		"version = 1\n[[pack]]\nname = \"x\"\nsource = \"\"\n",
		"version = 1\n[[pack]]\nname = \"X\"\n[[pack]]\nname = \"X\"\n",
		"version = 1\n[[pack]]\nname = \"x\"\nsource = \"s\"\nrev = \"\\u0001\\\"'\"\ntree = \"" + e.Tree + "\"\nfiles = { \"a b/\\u00e9\" = \"" + e.Files["pack.toml"] + "\" }\n",
		"version = 1\nextra = true\n",
		"version = \"1\"\n",
		"[[pack\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseLock(data)
		if err != nil {
			return
		}
		enc, err := l.Encode()
		if err != nil {
			t.Fatalf("an accepted lock does not encode: %v", err)
		}
		back, err := ParseLock(enc)
		if err != nil {
			t.Fatalf("the encoded lock does not parse: %v\n%s", err, enc)
		}
		if len(l.Packs) == 0 && len(back.Packs) == 0 {
			l.Packs, back.Packs = nil, nil // no packs: "pack = []" reads back empty, not nil
		}
		if !reflect.DeepEqual(l, back) {
			t.Fatalf("the lock changed in a round trip:\n%#v\n%#v\n%s", l, back, enc)
		}
	})
}
