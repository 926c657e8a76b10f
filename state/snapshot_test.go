package state

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestNumbersKeepTheirType(t *testing.T) {
	floats := []float64{2.0, 0, math.Copysign(0, -1), -3, 0.1, 1e21, 1e20, 1e-7, 1e-6, 123456789.0,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 1 << 53, -1e300, math.Pi}
	ints := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1 << 53, 1e15}
	for _, f := range floats {
		b, err := appendFloat(nil, f)
		if err != nil {
			t.Fatal(err)
		}
		st, err := decodeState([]byte(`{"v":` + string(b) + `}`))
		if err != nil {
			t.Fatalf("%v written as %s: %v", f, b, err)
		}
		got, ok := st["v"].(float64)
		if !ok || got != f || math.Signbit(got) != math.Signbit(f) {
			t.Errorf("%v written as %s came back as %T %v", f, b, st["v"], st["v"])
		}
		// The text is a JSON number encoding/json reads as the same value.
		var back float64
		if err := json.Unmarshal(b, &back); err != nil || back != f {
			t.Errorf("%v written as %s: encoding/json reads %v, %v", f, b, back, err)
		}
	}
	if b, _ := appendFloat(nil, 2.0); string(b) != "2.0" {
		t.Errorf("2.0 written as %s", b)
	}
	for _, i := range ints {
		st, err := decodeState([]byte(`{"v":` + string(mustAppend(t, i)) + `}`))
		if err != nil || st["v"] != i {
			t.Errorf("%d came back as %T %v (%v)", i, st["v"], st["v"], err)
		}
	}
	// Numbers written by others: integers out of int64 range become floats.
	st, err := decodeState([]byte(`{"a":1e3,"b":99999999999999999999,"c":-0,"d":2.50}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": 1000.0, "b": 1e20, "c": int64(0), "d": 2.5}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("decoded %#v, want %#v", st, want)
	}
}

func mustAppend(t *testing.T, v any) []byte {
	t.Helper()
	b, err := appendValue(nil, v, 1)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestStringsMatchEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `"quoted"`, `back\slash`, "\x00\x01\x1f\x7f", "\n\r\t\b\f",
		"é 😀 \u2028\u2029", "<script>&</script>", strings.Repeat("ab", 1000)} {
		b, err := appendString(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		var back string
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("%q written as %s, read back %q (%v)", s, b, back, err)
		}
	}
	if _, err := appendString(nil, "\xff"); err == nil {
		t.Error("invalid UTF-8 written")
	}
}

func TestSnapshotIsDeterministic(t *testing.T) {
	id := testID()
	a, err := encodeSnapshot(id, richState())
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		b, _ := encodeSnapshot(id, richState())
		if string(a) != string(b) {
			t.Fatal("encoding differs between runs")
		}
	}
	// encoding/json agrees it is one valid object.
	var v map[string]any
	if err := json.Unmarshal(a, &v); err != nil {
		t.Fatal(err)
	}
	if v["version"] != 1.0 || v["script_id"] != "counter" {
		t.Errorf("envelope %v", v)
	}
	got, err := parseSnapshot(a, id)
	if err != nil || !reflect.DeepEqual(got, richState()) {
		t.Errorf("parse: %v, %#v", err, got)
	}
}

// FuzzDecodeSnapshot feeds any bytes to the snapshot decoder: it must
// return an error or a state, never panic; and a state it returns is
// JSON-like data that encodes and decodes back to itself.
func FuzzDecodeSnapshot(f *testing.F) {
	id := testID()
	good, _ := encodeSnapshot(id, richState())
	f.Add(good)
	f.Add([]byte(`{"version":1,"script_id":"x","kind":"k","source_sha256":"","manifest_sha256":"","state":{}}`))
	f.Add([]byte(`{"version":1,"script_id":"x","kind":"k","source_sha256":"","manifest_sha256":"","state":{"a":[1,2.0,1e400,"\ud800",null,{"b":true}]}}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"state":[]}`))
	f.Add([]byte(`[[[[[[[[[[`))
	f.Add([]byte(``))
	f.Add([]byte("{\"version\":1,\"state\":{\"\xff\":\"\xfe\"}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		snap, err := decodeEnvelope(data)
		if err != nil {
			return
		}
		st, err := parseSnapshot(data, snap.Identity)
		if err != nil {
			return
		}
		if err := Validate(st); err != nil {
			t.Fatalf("decoded state is not valid: %v", err)
		}
		enc, err := encodeSnapshot(snap.Identity, st)
		if err != nil {
			// Only the size can fail: a number may take more bytes
			// (1e5 becomes 100000.0), and the identity can be anything
			// but is decoded from JSON, so it is valid UTF-8.
			if strings.Contains(err.Error(), "limit") {
				return
			}
			t.Fatalf("decoded state does not encode: %v", err)
		}
		back, err := parseSnapshot(enc, snap.Identity)
		if err != nil {
			t.Fatalf("re-encoded snapshot does not decode: %v\n%s", err, enc)
		}
		if !reflect.DeepEqual(back, st) {
			t.Fatalf("round trip changed the state:\n%#v\n%#v", st, back)
		}
	})
}

// BenchmarkTransactSession is the cost of one session call that commits:
// lock, read, decode, encode, write, fsync, rename, fsync of the folder.
func BenchmarkTransactSession(b *testing.B) {
	s := newStore(b)
	id := testID()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := increment(ctx, s, Session, "bench-session", id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTransactSessionReadOnly is a session call that does not commit
// (or commits an unchanged state): no write, no fsync.
func BenchmarkTransactSessionReadOnly(b *testing.B) {
	s := newStore(b)
	id := testID()
	ctx := context.Background()
	if err := increment(ctx, s, Session, "bench-session", id); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		err := s.Transact(ctx, Session, "bench-session", id, func(cur map[string]any) (map[string]any, bool, error) {
			return cur, false, nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
