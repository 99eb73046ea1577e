//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// The namespace path, in two stages of the helper:
//
//	stage 1 (hew's network): starts stage 2 in a new user and network
//	        namespace, receives from it a listening socket bound to
//	        127.0.0.1:PORT *inside* the namespace, and forwards every
//	        connection accepted on it to the proxy at 127.0.0.1:PORT
//	        outside. It waits for stage 2 and exits with its status.
//	stage 2 (inside): brings loopback up, binds that socket, hands it over
//	        the inherited unix socket (fd 3), drops its capabilities, applies
//	        Landlock and execs the command.
//
// Inside there is no route anywhere and no DNS server: the only way out is
// the proxy, which checks each destination.

// nsAttr is how stage 2 is started: its own user namespace (the user's
// uid and gid mapped to themselves) and network namespace, with
// CAP_NET_ADMIN kept across exec just long enough to bring loopback up.
func nsAttr() *syscall.SysProcAttr {
	uid, gid := os.Getuid(), os.Getgid()
	return &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		GidMappingsEnableSetgroups: false,
		AmbientCaps:                []uintptr{unix.CAP_NET_ADMIN},
		Pdeathsig:                  syscall.SIGKILL,
	}
}

var (
	nsOnce sync.Once
	nsOK   bool
	nsWhy  string
)

// NamespaceAvailable reports whether this machine lets hew put a command
// in its own user and network namespace (probed once, by starting a
// program that way).
func NamespaceAvailable() (bool, string) {
	nsOnce.Do(func() { nsOK, nsWhy = probeNamespace() })
	return nsOK, nsWhy
}

func probeNamespace() (bool, string) {
	// Any small program will do: what is probed is that the kernel lets
	// this user make the namespaces (stage 2 fails closed, saying why, if
	// loopback then cannot come up). Not hew itself, so that a test binary
	// standing in for hew never runs its tests again inside the probe.
	prog, err := exec.LookPath("true")
	if err != nil {
		return false, "no `true` program to probe user namespaces with"
	}
	cmd := exec.Command(prog)
	cmd.SysProcAttr = nsAttr()
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := err.Error()
		if len(out) > 0 {
			msg += ": " + string(out)
		}
		return false, "unprivileged user namespaces are unavailable (" + msg + ")"
	}
	return true, "user namespace, loopback only, bridged to the proxy"
}

// bridge is stage 1.
func bridge(h helperArgs) int {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fail126("socketpair: %v", err)
	}
	parent, child := os.NewFile(uintptr(fds[0]), "bridge"), os.NewFile(uintptr(fds[1]), "bridge-child")
	exe, err := os.Executable()
	if err != nil {
		return fail126("locating the hew binary: %v", err)
	}
	args := []string{HelperArg, stage2Arg}
	for _, d := range h.rw {
		args = append(args, "--rw", d)
	}
	args = append(args, "--net", string(NetProxy), "--proxy-port", strconv.Itoa(h.proxyPort), "--netns", "--")
	cmd := exec.Command(exe, append(args, h.argv...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{child}
	cmd.SysProcAttr = nsAttr()
	// Signals for the process group reach stage 2 directly; stage 1 stays
	// to report its status.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		return fail126("starting the command in its own network namespace: %v", err)
	}
	child.Close()
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	// When stage 2 fails before handing the socket over, it says why and
	// exits 126; there is nothing to forward then.
	if ln, err := receiveListener(parent); err == nil {
		go forward(ln, h.proxyPort)
	}
	parent.Close()
	err = cmd.Wait()
	signal.Stop(sigs)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	if err != nil {
		return fail126("%v", err)
	}
	return 0
}

func fail126(format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "hew sandbox: "+format+"; refusing to run the command\n", a...)
	return 126
}

// receiveListener reads the listening socket stage 2 sends.
func receiveListener(f *os.File) (net.Listener, error) {
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := unix.Recvmsg(int(f.Fd()), buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return nil, err
	}
	if n == 0 || oobn == 0 {
		return nil, io.EOF
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, fmt.Errorf("bad control message: %v", err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return nil, fmt.Errorf("bad rights: %v", err)
	}
	lf := os.NewFile(uintptr(fds[0]), "inner-listener")
	defer lf.Close()
	return net.FileListener(lf)
}

// forward relays each connection accepted inside the namespace to the
// proxy outside.
func forward(ln net.Listener, port int) {
	target := "127.0.0.1:" + strconv.Itoa(port)
	d := net.Dialer{}
	d.SetMultipathTCP(false)
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			up, err := d.Dial("tcp4", target)
			if err != nil {
				return
			}
			defer up.Close()
			done := make(chan struct{})
			go func() {
				_, _ = io.Copy(up, c)
				if tc, ok := up.(*net.TCPConn); ok {
					_ = tc.CloseWrite()
				}
				close(done)
			}()
			_, _ = io.Copy(c, up)
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.CloseWrite()
			}
			<-done
		}()
	}
}

// enterStage2 runs inside the namespaces: loopback up, the bridge socket
// bound and handed to stage 1, capabilities dropped.
func enterStage2(h helperArgs) error {
	if err := loopbackUp(); err != nil {
		return err
	}
	ctl := os.NewFile(3, "bridge-child")
	if ctl == nil {
		return errors.New("no bridge socket (fd 3)")
	}
	defer ctl.Close()
	lc := net.ListenConfig{}
	lc.SetMultipathTCP(false)
	ln, err := lc.Listen(context.Background(), "tcp4", "127.0.0.1:"+strconv.Itoa(h.proxyPort))
	if err != nil {
		return fmt.Errorf("binding the proxy port inside: %w", err)
	}
	lf, err := ln.(*net.TCPListener).File()
	ln.Close()
	if err != nil {
		return err
	}
	defer lf.Close()
	if err := unix.Sendmsg(int(ctl.Fd()), []byte{1}, unix.UnixRights(int(lf.Fd())), nil, 0); err != nil {
		return fmt.Errorf("handing the socket to the bridge: %w", err)
	}
	// The command keeps no capability, not even in its own namespace.
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("dropping capabilities: %w", err)
	}
	return nil
}

// loopbackUp sets the "lo" interface up in the current network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("reading loopback flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bringing loopback up: %w", err)
	}
	return nil
}
