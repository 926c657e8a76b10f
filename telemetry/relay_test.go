package telemetry

import (
	"os"
	"strconv"
	"syscall"
	"testing"
)

// relayed sends msgs over a relay and returns what the recorder's side
// hands on.
func relayed(t testing.TB, msgs ...[]byte) []*Event {
	sandbox, recorder, err := NewRelayPair()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if _, err := syscall.Write(int(sandbox.Fd()), m); err != nil {
			t.Fatal(err)
		}
	}
	sandbox.Close()
	var got []*Event
	ServeRelay(recorder, func(e *Event) { got = append(got, e) })
	recorder.Close()
	return got
}

// Every message is handed on, in order: an event as it was sent (its chain
// fields left to the recorder), anything else as a shim_error, an empty
// message too, and the relay goes on after each.
func TestRelay(t *testing.T) {
	sandbox, _, err := NewRelayPair()
	if err != nil {
		t.Fatal(err)
	}
	sandbox.Close()
	e := &Event{SessionID: "s1", Event: EventScriptEnd, Command: "npm test", ExitCode: 3, Seq: 9, PrevSHA256: "x"}
	got := relayed(t, e.AppendJSON(nil), []byte("not json"), nil, []byte(`{"event":""}`), e.AppendJSON(nil))
	if len(got) != 5 {
		t.Fatalf("%d events handed on, want 5", len(got))
	}
	for i, want := range []string{EventScriptEnd, EventShimError, EventShimError, EventShimError, EventScriptEnd} {
		if got[i].Event != want {
			t.Errorf("message %d: %s, want %s", i, got[i].Event, want)
		}
	}
	if g := got[0]; g.SessionID != "s1" || g.ExitCode != 3 || g.Command != "npm test" || g.Seq != 0 || g.PrevSHA256 != "" {
		t.Errorf("relayed event %+v", g)
	}
}

// OpenRelay takes only a socket.
func TestOpenRelayNeedsASocket(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, v := range []string{"", "x", "-1", "99999", strconv.Itoa(int(f.Fd()))} {
		if _, ok := OpenRelay(func(string) string { return v }); ok {
			t.Errorf("%s=%q: a relay", RelayEnv, v)
		}
	}
	sandbox, _, err := NewRelayPair()
	if err != nil {
		t.Fatal(err)
	}
	defer sandbox.Close()
	if _, ok := OpenRelay(func(string) string { return strconv.Itoa(int(sandbox.Fd())) }); !ok {
		t.Error("a socket is not taken as a relay")
	}
}

// FuzzRelay: whatever a process in the sandbox sends, each message is
// handed on as one event, never dropped, never a panic.
func FuzzRelay(f *testing.F) {
	f.Add((&Event{SessionID: "s", Event: EventPolicyDecision, Command: "ls"}).AppendJSON(nil))
	f.Add([]byte(`{"event":"x","seq":"1"}`))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, msg []byte) {
		// Empty messages at the very end carry nothing and read as the
		// end: they may be handed on or not; any other message is, once.
		got := relayed(t, msg, msg)
		if len(got) != 2 && len(msg) > 0 {
			t.Fatalf("%d events for two messages", len(got))
		}
	})
}
