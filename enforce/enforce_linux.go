package enforce

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"

	"github.com/agent-shell/agent-shell/internal/spawn"
)

// realPath is path with every symbolic link resolved, as the kernel names
// what opening it reaches: three system calls, where walking it a name at
// a time (filepath.EvalSymlinks) takes one per name.
func realPath(path string) (string, error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil || !filepath.IsAbs(real) {
		return filepath.EvalSymlinks(path) // no /proc
	}
	return real, nil
}

// LandlockABI is the Landlock ABI version of the running kernel, 0 when it
// has none (or it is disabled).
func LandlockABI() int {
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(abi)
}

// Probe finds out what this machine gives, by running `true` in a sandbox
// of an empty plan: the namespaces, the mounts and Landlock all for real.
func Probe() Level {
	l := Level{LandlockABI: LandlockABI()}
	if l.LandlockABI == 0 {
		l.Why = "the kernel has no Landlock (Linux 5.13 or later, with landlock in the lsm= list)"
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		truePath = "/bin/true"
	}
	c, err := Command(Plan{}, []string{truePath})
	if err == nil {
		var out strings.Builder
		c.Stderr = &out
		err = c.Run()
		if err != nil && out.Len() > 0 {
			err = errors.New(strings.TrimSpace(out.String()))
		}
	}
	if err != nil {
		if l.Why == "" {
			l.Why = "user namespaces cannot be made here: " + err.Error()
		}
		return l
	}
	l.Namespaces = true
	return l
}

// Cmd is a command that runs in the sandbox.
type Cmd struct {
	*exec.Cmd
	status *os.File // the read end of the sandbox's report
	plan   Plan
	fast   *fastCommand // how Spawn starts it without a first process of ours; nil: it cannot
}

// fastCommand is what a fast start (Spawn) needs, worked out beforehand.
type fastCommand struct {
	path     string    // the command's program
	argv     []string  // and arguments
	cwd      string    // entered again once the mounts are made
	writable []string  // Plan.Writable that lie under bound paths
	bound    []string  // the read-only paths
	remount  []uintptr // the flags that make each read-only
}

// Command returns the command that runs argv in a sandbox of plan. The
// caller sets its streams and may add to SysProcAttr (a process group, the
// terminal) and Env before Start; the command gets inherit as descriptors
// 3, 4, ... The sandbox's first process is this program again (Enter),
// which sets up the mounts and the ruleset, runs argv as its child and
// exits with argv's status.
func Command(plan Plan, argv []string, inherit ...*os.File) (*Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("no command to run")
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	plan.inherit = len(inherit)
	// Inside a sandbox already (npm's script-shell under agent-shell
	// exec), the protected paths are read-only mounts, which a nested one
	// keeps: it adds only its ruleset, in the namespaces it is in (where it
	// could not mount, and its /proc would not be its own).
	bound, _ := plan.Bound()
	plan.nested = len(bound) > 0 && allReadOnly(bound)
	c := exec.Command(self, append([]string{enterArg}, argv...)...)
	c.Args[0] = "agent-shell"
	c.Env = append(os.Environ(), planEnv+"="+encodePlan(plan))
	c.ExtraFiles = append([]*os.File{w}, inherit...)
	// Should agent-shell exec be killed, the sandbox goes with it: its
	// first process ending ends every process of its PID namespace.
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if !plan.nested {
		uid, gid := os.Getuid(), os.Getgid()
		c.SysProcAttr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID
		c.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		c.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	}
	cmd := &Cmd{Cmd: c, status: r, plan: plan}
	if fastArch && LandlockABI() >= 6 {
		cmd.fast, err = newFastCommand(plan, bound, argv)
		if err != nil {
			r.Close()
			w.Close()
			return nil, err
		}
	}
	return cmd, nil
}

// newFastCommand works out what a fast start of argv in plan needs. It is
// used only where Landlock keeps signals inside the sandbox (ABI 6): the
// command is then the child of agent-shell, in no PID namespace of its
// own, and Landlock is what keeps it from reaching processes outside
// (ptrace, /proc/PID/root and the like, which Landlock forbids at every
// ABI, and signals).
func newFastCommand(plan Plan, bound, argv []string) (*fastCommand, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, err
	}
	f := &fastCommand{path: path, argv: argv}
	if plan.nested {
		return f, nil
	}
	if f.cwd, err = os.Getwd(); err != nil {
		return nil, err
	}
	f.bound = bound
	for _, w := range plan.Writable {
		if _, err := os.Stat(w); err == nil && underAny(w, f.bound) {
			f.writable = append(f.writable, w)
		}
	}
	for _, b := range f.bound {
		flags, err := remountFlags(b)
		if err != nil {
			return nil, err
		}
		f.remount = append(f.remount, flags)
	}
	return f, nil
}

// Spawn starts the sandbox with files as its descriptors 0, 1, 2, ...
// (its streams, then Cmd's ExtraFiles) and sys's process group, terminal
// and parent-death signal, and returns the pid to wait for. Where it can,
// it starts the command itself, without a first process of ours (see
// fastStart); else the first process is agent-shell (Enter).
func (c *Cmd) Spawn(files []*os.File, sys *syscall.SysProcAttr) (int, error) {
	if c.fast == nil {
		return spawn.Start(c.Path, c.Args, c.Environ(), files, sys)
	}
	// Processes the command leaves behind become ours, for Finish to end,
	// as the end of a PID namespace's first process would.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return 0, err
	}
	// The command does not get the report's descriptor (ExtraFiles[0]):
	// its status is the one we wait for.
	if len(files) < 4 {
		return 0, errors.New("sandbox: Spawn is given the streams and ExtraFiles")
	}
	return c.fastStart(append(files[:3:3], files[4:]...), sys)
}

// Finish, after the sandbox's wait, ends what its command left running
// and returns the name of the signal that ended the command, if one did:
// sig, as the wait saw it, when the command was our child; else the first
// process's report.
func (c *Cmd) Finish(sig string) string {
	defer c.status.Close()
	if c.fast != nil {
		endStragglers()
		return sig
	}
	var buf [64]byte
	n, _ := c.status.Read(buf[:])
	return strings.TrimSpace(string(buf[:n]))
}

// endStragglers kills our children (the processes a sandboxed command
// left, which became ours) and theirs as they become ours, until none is
// left. The sandbox's end is the end of all of its processes.
func endStragglers() {
	for range 1000 {
		var ws unix.WaitStatus
		if _, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil); errors.Is(err, unix.ECHILD) {
			return // none at all, as is usual: no need to look for them
		}
		kids := children()
		if len(kids) == 0 {
			return
		}
		for _, k := range kids {
			unix.Kill(k, unix.SIGKILL)
		}
		for _, k := range kids {
			spawn.Wait(k)
		}
	}
}

// children are this process's children, as /proc lists them per thread.
func children() []int {
	tasks, _ := os.ReadDir("/proc/self/task")
	var kids []int
	for _, t := range tasks {
		b, _ := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				kids = append(kids, pid)
			}
		}
	}
	return kids
}

// Start starts the sandbox with os/exec and calls Started.
func (c *Cmd) Start() error {
	err := c.Cmd.Start()
	c.Started()
	return err
}

// Started, once the sandbox's start was tried (by Start, or by another
// start of Cmd's fields), lets go of the write end of its report and of
// the descriptors it passed on.
func (c *Cmd) Started() {
	for _, f := range c.ExtraFiles {
		f.Close()
	}
}

// Run starts the sandbox and waits for it.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

// Enter is the sandbox's first process, in its new namespaces: it makes the
// protected paths read-only, restricts itself with Landlock, then runs the
// command as its child (as the PID namespace's first process it must stay,
// to pass signals on and reap), and exits with its status: 128+N when a
// signal N ended it, whose name it reports on file descriptor 3.
func Enter() {
	status := os.NewFile(3, "status")
	syscall.CloseOnExec(3)
	argv := os.Args[2:]
	plan, err := decodePlan()
	if err == nil && len(argv) == 0 {
		err = errors.New("no command to run")
	}
	if err == nil {
		err = setup(plan)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "agent-shell: sandbox: %v\n", err)
		os.Exit(126)
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "agent-shell: %v\n", err)
		os.Exit(127)
	}
	files := []*os.File{os.Stdin, os.Stdout, os.Stderr}
	for i := range plan.inherit {
		files = append(files, os.NewFile(uintptr(4+i), "inherited"))
	}
	// The command is in this process's group, which the terminal and
	// agent-shell signal as a whole: passing a signal on would deliver it
	// twice (a second Ctrl-C forces what the first asks). Caught here only
	// because the first process of a PID namespace is not stopped by a
	// signal it does not handle; the command starts with the defaults.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	child, err := spawn.Start(path, argv, os.Environ(), files, nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agent-shell: %v\n", err)
		os.Exit(126)
	}
	for _, f := range files[3:] {
		f.Close() // the command's now: the recorder sees the end of its relay when the command's processes are gone
	}
	for {
		pid, ws, err := spawn.Wait(-1)
		if err != nil {
			os.Exit(126)
		}
		if pid != child {
			continue // an orphan of the command, reaped
		}
		code, sig := spawn.Status(ws)
		status.WriteString(sig)
		os.Exit(code)
	}
}

// setup makes the mounts and applies the ruleset, in that order: once
// restricted, a process may not mount.
func setup(plan Plan) error {
	bound, _ := plan.Bound()
	if plan.nested {
		if !allReadOnly(bound) {
			return errors.New("a nested sandbox whose protected paths are not read-only")
		}
		return restrict(plan)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mounts private: %v", err)
	}
	// Only the sandbox's processes in /proc: /proc/PID/root of one outside
	// would reach its mounts, where nothing is read-only.
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %v", err)
	}
	// The writable folders inside read-only ones first, each its own
	// mount, so that the read-only binds above them carry them along.
	for _, w := range plan.Writable {
		if _, err := os.Stat(w); err != nil || !underAny(w, bound) {
			continue
		}
		if err := unix.Mount(w, w, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind %s: %v", w, err)
		}
	}
	for _, p := range bound {
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %v", p, err)
		}
		if err := readOnly(p); err != nil {
			return fmt.Errorf("make %s read-only: %v", p, err)
		}
	}
	// The working directory is still the one from before the mounts: a
	// relative path from it would reach under them. Enter it again.
	if cwd, err := os.Getwd(); err == nil {
		if err := os.Chdir(cwd); err != nil {
			return fmt.Errorf("enter %s again: %v", cwd, err)
		}
	}
	return restrict(plan)
}

// underAny reports whether p lies under (or is) one of dirs.
func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if within(p, d) {
			return true
		}
	}
	return false
}

// allReadOnly reports whether every path is on a read-only mount.
func allReadOnly(paths []string) bool {
	for _, p := range paths {
		var st unix.Statfs_t
		if unix.Statfs(p, &st) != nil || st.Flags&unix.ST_RDONLY == 0 {
			return false
		}
	}
	return true
}

// readOnly makes the mount at p read-only, and not the mounts under it.
func readOnly(p string) error {
	err := unix.MountSetattr(unix.AT_FDCWD, p, 0, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
	if !errors.Is(err, unix.ENOSYS) {
		return err
	}
	// Before Linux 5.12: a remount.
	flags, err := remountFlags(p)
	if err != nil {
		return err
	}
	return unix.Mount("", p, "", flags, "")
}

// remountFlags are the flags of a remount that makes the bind mount at p
// read-only, keeping the flags a user namespace may not clear.
func remountFlags(p string) (uintptr, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(p, &st); err != nil {
		return 0, err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, f := range []struct{ st, ms uintptr }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	return flags, nil
}

// devices are the device files a command may write where writes are kept
// to some folders.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx"}

// errNoLandlock: the sandbox is not made without it.
var errNoLandlock = errors.New("the kernel has no Landlock, without which the mounts could be undone")

// restrict applies the Landlock ruleset of plan to this process and what
// it starts.
func restrict(plan Plan) error {
	if LandlockABI() == 0 {
		return errNoLandlock
	}
	cfg, rules := ruleset(plan)
	return cfg.Restrict(rules...)
}

// rulesetFD is the Landlock ruleset of plan, for a process to restrict
// itself with (with the flags) before it execs.
func rulesetFD(plan Plan) (int, uint32, error) {
	cfg, rules := ruleset(plan)
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err == nil && fd < 0 {
		err = errNoLandlock
	}
	return fd, flags, err
}

// ruleset is the Landlock configuration and rules of plan.
func ruleset(plan Plan) (landlock.Config, []landlock.Rule) {
	cfg := landlock.V11.BestEffort()
	if !plan.DenyNetwork {
		cfg.HandledAccessNet = 0
	}
	var rules []landlock.Rule
	if len(plan.Write) == 0 {
		rules = append(rules, landlock.RWDirs("/").WithRefer().WithIoctlDev())
	} else {
		rules = append(rules,
			landlock.RODirs("/"),
			landlock.RWDirs(append(append([]string{}, plan.Write...), plan.Writable...)...).WithRefer().WithIoctlDev().IgnoreIfMissing(),
			landlock.RWDirs("/dev/pts", "/dev/shm").WithIoctlDev().IgnoreIfMissing(),
			landlock.RWFiles(devices...).WithIoctlDev().IgnoreIfMissing())
	}
	return cfg, rules
}
