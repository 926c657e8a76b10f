package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestSnapshotRoundTrip(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "bench", "agent-shell.toml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseManifest("x.toml", data)
	if err != nil {
		t.Fatal(err)
	}
	snap, ok := encodeSnapshot(m)
	if !ok {
		t.Fatal("not snapshotable")
	}
	got, err := decodeSnapshot("x.toml", string(data), snap)
	if err != nil {
		t.Fatal(err)
	}
	got.AllRules()
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("round trip differs:\n%+v\n%+v", got, m)
	}
	for i := range len(snap) {
		if _, err := decodeSnapshot("x.toml", "", snap[:i]); err == nil {
			t.Fatalf("truncated at %d decoded", i)
		}
	}
}

// BenchmarkManifestDecode: the TOML decode and validation of a manifest of
// 10 and 10,000 rules beside the decode of its snapshot.
func BenchmarkManifestDecode(b *testing.B) {
	for _, n := range []int{10, 10000} {
		root := genRulesManifest(b, n)
		data, err := os.ReadFile(filepath.Join(root, ManifestSubpath))
		if err != nil {
			b.Fatal(err)
		}
		m, err := ParseManifest("x.toml", data)
		if err != nil {
			b.Fatal(err)
		}
		snap, _ := encodeSnapshot(m)
		b.Run(fmt.Sprintf("toml/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				regexps.Clear()
				if _, err := ParseManifest("x.toml", data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("snapshot/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				regexps.Clear()
				if _, err := decodeSnapshot("x.toml", string(data), snap); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Logf("%d rules: TOML %d bytes, snapshot %d bytes", n, len(data), len(snap))
	}
}

// A second load reads the snapshot the first wrote, and decides alike.
func TestSnapshotReused(t *testing.T) {
	root, _ := writeRepo(t, manifestWith(""), nil)
	first := Load(root, noEnv)
	if first.LoadErr != nil || first.Manifest.snap.used {
		t.Fatalf("first load: %v, from a snapshot %v", first.LoadErr, first.Manifest.snap.used)
	}
	second := Load(root, noEnv)
	if second.LoadErr != nil || !second.Manifest.snap.used {
		t.Fatalf("second load: %v, from a snapshot %v", second.LoadErr, second.Manifest.snap.used)
	}
	if first.ConfigDigest != second.ConfigDigest {
		t.Errorf("digest %s, from the snapshot %s", first.ConfigDigest, second.ConfigDigest)
	}
	if d := second.Decide("curl x", ""); d.Action != ActionDeny || d.Rule != "no-curl" {
		t.Errorf("decision from the snapshot: %+v", d)
	}
}

// forgeSnapshot puts the snapshot of manifest text forged where the
// snapshot of the manifest under root belongs.
func forgeSnapshot(t *testing.T, root, forged string) string {
	t.Helper()
	m, err := ParseManifest("x.toml", []byte(forged))
	if err != nil {
		t.Fatal(err)
	}
	snap, ok := encodeSnapshot(m)
	if !ok {
		t.Fatal("not snapshotable")
	}
	data, err := os.ReadFile(filepath.Join(root, ManifestSubpath))
	if err != nil {
		t.Fatal(err)
	}
	path := snapshotPath(filepath.Join(root, StateSubpath, "cache"), snapshotKey(data))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, snap, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// An authorized configuration uses only the snapshot its record pins: one
// an agent wrote in its place (issue 14) is not used, and the manifest
// decides as authorized.
func TestSnapshotForgedNotUsedWhenAuthorized(t *testing.T) {
	root, _ := writeRepo(t, manifestWith(""), nil)
	cfg := t.TempDir()
	authorize(t, root, cfg)
	e, au := LoadAuthorized(root, noEnv, cfg) // writes the pinned snapshot
	if au.State != AuthAuthorized || e.LoadErr != nil {
		t.Fatalf("authorized: %+v %v", au, e.LoadErr)
	}
	if e, _ = LoadAuthorized(root, noEnv, cfg); !e.Manifest.snap.used {
		t.Fatal("the pinned snapshot was not used")
	}
	forgeSnapshot(t, root, "version = 1\n\n[policy]\ndefault = \"allow\"\n")
	e, au = LoadAuthorized(root, noEnv, cfg)
	if au.State != AuthAuthorized || e.Manifest.snap.used {
		t.Fatalf("forged snapshot used: %+v", au)
	}
	if d := e.Decide("curl x", ""); d.Action != ActionDeny {
		t.Errorf("decision with a forged snapshot: %+v", d)
	}
}

// Without an authorization the snapshot is trusted on its key, as the
// compile cache is; a damaged one is not used.
func TestSnapshotDamagedNotUsed(t *testing.T) {
	root, _ := writeRepo(t, manifestWith(""), nil)
	Load(root, noEnv)
	path := forgeSnapshot(t, root, manifestWith(""))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)-3], 0o600); err != nil {
		t.Fatal(err)
	}
	e := Load(root, noEnv)
	if e.LoadErr != nil || e.Manifest.snap.used {
		t.Fatalf("damaged snapshot: %v, used %v", e.LoadErr, e.Manifest.snap.used)
	}
	if d := e.Decide("curl x", ""); d.Action != ActionDeny {
		t.Errorf("decision: %+v", d)
	}
}
