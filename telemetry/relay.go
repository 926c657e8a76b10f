package telemetry

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// RelayEnv names the file descriptor over which an agent-shell inside the
// sandbox (agent-shell exec) records: the events folder is read-only there,
// so that nothing in the sandbox can change or delete what is recorded, and
// agent-shell exec, outside, appends what arrives. A process in the sandbox
// can add events this way, never change one.
const RelayEnv = "AGENTSHELL_RECORD_FD"

// maxRelayed bounds one relayed event.
const maxRelayed = 4 << 20

// NewRelayPair makes the two ends of a relay: the sandbox's, to pass on as
// a descriptor, and the recorder's, to Serve.
func NewRelayPair() (sandbox, recorder *os.File, err error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("relay: %w", err)
	}
	for _, fd := range fds {
		_ = syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_SNDBUF, maxRelayed)
		_ = syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUF, maxRelayed)
	}
	return os.NewFile(uintptr(fds[0]), "relay"), os.NewFile(uintptr(fds[1]), "relay"), nil
}

// Relay sends events to the recorder outside the sandbox, one message each.
type Relay struct{ fd int }

// OpenRelay is the relay RelayEnv names, when it names a socket.
func OpenRelay(getenv func(string) string) (*Relay, bool) {
	v := getenv(RelayEnv)
	if v == "" {
		return nil, false
	}
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 0 {
		return nil, false
	}
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return nil, false
	}
	return &Relay{fd: fd}, true
}

// Send redacts e and sends it. An event too large for one message goes
// without its input and meta, saying so.
func (r *Relay) Send(e *Event) error {
	redactEvent(e)
	msg := e.AppendJSON(nil)
	if len(msg) > maxRelayed/2 {
		small := *e
		small.Input, small.Meta = nil, nil
		small.Error = fmt.Sprintf("relayed without its input and meta: %d bytes", len(msg))
		msg = small.AppendJSON(nil)
	}
	_, err := syscall.Write(r.fd, msg)
	return err
}

// atEnd reports, after a read of nothing, whether that was the end: every
// sender has closed its end and no message with anything in it is left.
func atEnd(f *os.File) bool {
	fds := []unix.PollFd{{Fd: int32(f.Fd()), Events: unix.POLLRDHUP}}
	n, err := unix.Poll(fds, 0)
	if err != nil || n == 0 || fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP) == 0 {
		return err != nil
	}
	queued, err := unix.IoctlGetInt(int(f.Fd()), unix.SIOCINQ)
	return err != nil || queued == 0
}

// ServeRelay reads relayed events until every sender has closed its end,
// and hands each to add; a message that is not an event is handed on as a
// shim_error saying so, never dropped unsaid.
func ServeRelay(f *os.File, add func(*Event)) {
	buf := make([]byte, maxRelayed)
	fd := int(f.Fd())
	for {
		// Not f.Read, which turns an empty message into io.EOF.
		n, err := syscall.Read(fd, buf)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if n == 0 && err == nil && !atEnd(f) {
			// An empty message, which reads as the end would: a sender
			// could otherwise stop the relay for the messages after it.
			add(&Event{Event: EventShimError, Error: "an empty relayed message"})
			continue
		}
		if n == 0 || err != nil {
			return
		}
		var e Event
		if err := json.Unmarshal(buf[:n], &e); err != nil || e.Event == "" {
			add(&Event{Event: EventShimError, Error: fmt.Sprintf("a relayed message that is not an event (%d bytes)", n)})
			continue
		}
		e.Seq, e.PrevSHA256 = 0, "" // the recorder's to set
		add(&e)
	}
}
