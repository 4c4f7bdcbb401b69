# SPDX-License-Identifier: MIT
"""Library behind tools/vm/scenic-vm: boots 1..8 guests in QEMU (TCG), runs a job in each,
collects the serial logs and returns the job's exit status. Python 3 stdlib only.

Wiring (docs/cluster.md 3.3 and 4.1): one node sends to an unused port, two nodes are a direct
dgram pair, three or more (or two with switch=True) are wired through scenic-switch
(tools/switch/), started before the QEMUs and stopped after them.

Used by the scenic-vm command and by selftests/run-vm-tests. Guarantees: every QEMU runs in its
own process group with a hard time limit and is killed (SIGTERM, then SIGKILL, by process group)
on timeout, on error, on Ctrl-C or SIGTERM of the caller; the host side uses only 127.0.0.1.
"""

import datetime
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import newc  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
# SCENIC_VM_DIR: another image directory, e.g. one built from the .debs (tools/vm/mkimage)
BUILD = os.environ.get("SCENIC_VM_DIR") or os.path.join(REPO, "build", "vm")
DEFAULT_QEMU = os.path.join(REPO, "build", "qemu", "qemu-system-x86_64")
# SCENIC_SWITCH: another scenic-switch binary (default: the one `make model` builds)
DEFAULT_SWITCH = os.path.join(REPO, "build", "cmake", "tools", "switch", "scenic-switch")
MAX_NODES = 8  # scenic-switch ports (docs/cluster.md 3)
SWITCH_READY_S = 10.0  # limit for the switch's READY line
_SWITCH_READY_RE = re.compile(r"^SCENIC-SWITCH-READY ports=((?:\d+:\d+,?)+)")
MEM_CHECK_NODES = 4  # from this many nodes, the guests' total memory is checked (cluster.md 4.1)
_ANSI = re.compile(r"\x1b(\[[0-9;?]*[A-Za-z]|[()][A-Z0-9]|[=>c])")
READY = "SCENIC-VM-READY"
_END_RE = re.compile(r"^SCENIC-VM-END node=\d+ status=(\d+)$")
# With run(inject=True) a guest line "SCENIC-WIRE-INJECT count=N hex=BYTES" makes the runner send
# BYTES N times as datagrams into that node's end of the wire (frames no guest kernel can send,
# e.g. shorter than an Ethernet header). Never 0 bytes: QEMU's dgram backend reads that as EOF.
# With run(switch_cmds=True) a guest line "SCENIC-SWITCH CMD" sends CMD to the switch's control
# socket (only these commands: a guest cannot stop the switch); the answer goes to the node's log.
_SWITCH_CMD_RE = re.compile(r"^SCENIC-SWITCH ((?:set|mark|reset|stats)(?: [ -~]{1,1000})?)$")
_INJECT_RE = re.compile(r"^SCENIC-WIRE-INJECT count=(\d{1,4}) hex=((?:[0-9a-fA-F]{2}){1,9216})$")


_live = set()  # every QEMU Popen not yet reaped, for kill_all()
_live_lock = threading.Lock()
_stopping = threading.Event()  # set by kill_all(): no new QEMU starts, running runs end


def kill_all():
    """Kills every QEMU started by this process and stops run() calls in other threads from
    starting new ones (for callers running run() in threads; final: call once, at the end)."""
    with _live_lock:
        _stopping.set()
        procs = list(_live)
    for p in procs:
        _kill(p)


class VMError(Exception):
    pass


# Busybox sh runs its own applet for these names whatever PATH says (DESIGN.md 10). Functions
# win over applets, so the job's top-level shell gets the real tools under their plain names;
# scripts started from it (sh x.sh) do not inherit them and must use full paths.
_SHADOWED = {"ip": "/usr/sbin/ip", "ping": "/usr/bin/ping", "ping6": "/usr/bin/ping",
             "modprobe": "/usr/sbin/modprobe", "insmod": "/usr/sbin/insmod",
             "rmmod": "/usr/sbin/rmmod", "lsmod": "/usr/sbin/lsmod",
             "depmod": "/usr/sbin/depmod", "modinfo": "/usr/sbin/modinfo"}
_SHADOW_FUNCS = "".join(f'{k}() {{ {v} "$@"; }}\n' for k, v in _SHADOWED.items())


class Node:
    """One guest: its number (1-based), NIC model, extra device properties and job."""

    def __init__(self, num, cmd, nic="scenic", props=""):
        if nic not in ("scenic", "virtio", "none"):
            raise VMError(f"node{num}: unknown NIC '{nic}' (scenic, virtio, none)")
        self.num = num
        self.cmd = cmd
        self.nic = nic
        self.props = props.strip(",")
        # filled in by run()
        self.port = None  # host UDP port of this node's end of the wire
        self.proc = None
        self.log_path = None
        self.kmsg_path = os.devnull  # the guest's kernel log (second serial port)
        self.t_start = None
        self.t_ready = None
        self.guest_ready = None
        self.status = None
        self.t_end = None
        self.last_line = ""
        self.exit_code = None

    @property
    def mac(self):
        return f"52:54:00:5c:00:{self.num:02x}"


class Result:
    def __init__(self, status, nodes, log_dir, message, switch=None):
        self.status = status
        self.nodes = nodes
        self.log_dir = log_dir
        self.message = message
        self.switch = switch  # the switch's final stats (switch.json), None without a switch


def _free_udp_ports(n):
    socks, ports = [], []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return ports


def build_image(quiet=True, kver=None, pyverbs=False):
    cmd = [os.path.join(HERE, "mkimage")] + (["-q"] if quiet else []) + \
        (["--pyverbs"] if pyverbs else [])
    if kver:
        cmd += ["--kver", kver]
    r = subprocess.run(cmd)
    if r.returncode != 0:
        raise VMError("image build failed (tools/vm/mkimage)")


def build_guest_prog(src, deps=(), libs=("-libverbs",)):
    """Builds a guest test program from one C file on the host (the guest's libraries are the
    host's), as build/<folder of src>/<name>, when missing or older than src or deps; returns
    its path. The kernel's kselftest.h is on the include path (the selftests' programs report
    through it; selftests/ksft/fetch-framework). Raises VMError when gcc fails."""
    name = os.path.splitext(os.path.basename(src))[0]
    prog = os.path.join(REPO, "build", os.path.basename(os.path.dirname(src)), name)
    if (not os.path.exists(prog) or
            os.path.getmtime(prog) < max(os.path.getmtime(f) for f in (src, *deps))):
        os.makedirs(os.path.dirname(prog), exist_ok=True)
        fw = subprocess.run([os.path.join(REPO, "selftests", "ksft", "fetch-framework")],
                            capture_output=True, text=True)
        if fw.returncode != 0:
            raise VMError(f"cannot build {name}: no kselftest framework: {fw.stderr.strip()}")
        r = subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Wshadow", "-Werror",
                            "-I" + fw.stdout.strip(), "-o", prog, src, *libs])
        if r.returncode != 0:
            raise VMError(f"cannot build {name}")
    return prog


def image_kver():
    try:
        with open(os.path.join(BUILD, "kver")) as f:
            return f.read().strip()
    except OSError:
        raise VMError("no image: run tools/vm/mkimage")


def _job_cpio(path, nodes, selftests_dir, extra_files=()):
    with open(path, "wb") as out:
        w = newc.CpioWriter(out)
        for guest_path, host_path in extra_files:  # e.g. test helpers built on the host
            w.add_host_file(guest_path.lstrip("/"), host_path)
        w.add_dir("job")
        for n in nodes:
            script = ("#!/bin/sh\n# job of node%d, written by tools/vm/scenic-vm\n"
                      "export PATH=/usr/sbin:/usr/bin:/sbin:/bin\n%s\n%s\n"
                      % (n.num, _SHADOW_FUNCS, n.cmd))
            w.add_file(f"job/node{n.num}.sh", script.encode(), 0o755)
        if selftests_dir and os.path.isdir(selftests_dir):
            for root, dirs, files in os.walk(selftests_dir):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                rel = os.path.relpath(root, selftests_dir)
                base = "selftests" if rel == "." else "selftests/" + rel
                w.add_dir(base)
                for f in sorted(files):
                    w.add_host_file(f"{base}/{f}", os.path.join(root, f))
        w.close()


def _qemu_cmd(qemu, kernel, initrd, node, nnodes, ports, opts, remote_port=None):
    # iomem=relaxed: selftests read BAR0 with devmem while the driver holds it. The rest only
    # shortens the boot in TCG (no EDD probe, no crypto self-tests, no TSC watchdog).
    append = ["console=ttyS0,115200", "panic=-1", "loglevel=4", "iomem=relaxed",
              "mitigations=off", "edd=off", "cryptomgr.notests", "tsc=reliable",
              # TCG on a busy host: the IO-APIC timer check can panic the boot ("IO-APIC +
              # timer doesn't work!", seen with 4 VMs on 2 cores); KVM guests skip it too
              "no_timer_check",
              f"scenicvm.node={node.num}", f"scenicvm.nodes={nnodes}"]
    if opts.get("mtu"):
        append.append(f"scenicvm.mtu={opts['mtu']}")
    if opts.get("rxe"):
        append.append("scenicvm.rxe=1")
    if opts.get("modules"):
        append.append("scenicvm.modules=" + ",".join(opts["modules"]))
    if opts.get("noload"):
        append.append("scenicvm.noload=1")
    if opts.get("dmesg"):
        append.append("scenicvm.dmesg=1")
    append += opts.get("append", [])
    append += os.environ.get("SCENIC_VM_APPEND", "").split()  # e.g. tools/vm/debug-kernel-test
    cmd = [qemu, "-name", f"node{node.num},debug-threads=on",  # vCPU threads: "CPU 0/TCG"
           "-machine", "q35", "-cpu", "max", "-m", str(opts.get("mem", 1024)),
           "-smp", "1", "-nographic", "-vga", "none", "-no-reboot", "-nic", "none",
           # ttyS0: console and monitor on stdio (what -nographic gives alone); ttyS1: the
           # guest's kernel log (guest/init), kept in a file even when the guest hangs
           "-serial", "mon:stdio", "-serial", "file:" + node.kmsg_path,
           "-L", "/usr/share/seabios", "-L", "/usr/share/qemu",
           "-kernel", kernel, "-initrd", initrd, "-append", " ".join(append)]
    if node.nic != "none":
        # Node i sends to the other node's port, or to its switch port (remote_port); a single
        # node sends to a free port nobody uses.
        local = ports[node.num - 1]
        if remote_port is not None:
            remote = remote_port
        else:
            remote = ports[node.num % len(ports)] if nnodes > 1 else ports[1]
        cmd += ["-netdev", f"dgram,id=n0,local.type=inet,local.host=127.0.0.1,"
                           f"local.port={local},remote.type=inet,remote.host=127.0.0.1,"
                           f"remote.port={remote}"]
        if node.nic == "scenic":
            dev = f"scenic,netdev=n0,mac={node.mac}"
        else:
            dev = f"virtio-net-pci,romfile=,netdev=n0,mac={node.mac}"
        if node.props:
            dev += "," + node.props
        cmd += ["-device", dev]
    cmd += opts.get("qemu_args", [])
    # Even a SIGKILLed runner leaves no QEMU: the kernel kills it when its parent dies.
    setpriv = "/usr/bin/setpriv"
    if os.access(setpriv, os.X_OK):
        cmd = [setpriv, "--pdeathsig", "KILL", "--"] + cmd
    return cmd


def _renice_vcpus(pid, nice, wait_s=10.0):
    """Gives the vCPU threads of QEMU `pid` the nice value `nice` (the other threads keep theirs).

    On a host with fewer cores than busy threads, a guest that busy-polls (perftest) keeps its
    vCPU runnable all the time, and QEMU's main loop, which runs the card's model and the wire,
    waited for the scheduler's tick (ms) for its turn. A real NIC does its work beside the host's
    cores, not in their time slices. True when at least one vCPU thread was found.
    """
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        found = False
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return False
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/comm") as f:
                    if f.read().startswith("CPU "):
                        os.setpriority(os.PRIO_PROCESS, int(tid), nice)
                        found = True
            except OSError:
                pass
        if found:
            return True
        time.sleep(0.05)
    return False


def _kill(proc):
    """Kills a QEMU by its process group: SIGTERM, then SIGKILL after 3 s."""
    if proc is None or proc.poll() is not None:
        return
    for sig, grace in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def _inject(node, line):
    m = _INJECT_RE.match(line)
    if not m or node.port is None:
        return
    data = bytes.fromhex(m.group(2))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _ in range(int(m.group(1))):
            s.sendto(data, ("127.0.0.1", node.port))
            time.sleep(0.002)


def _switch_command(sock_path, cmd):
    """Sends one command line to the switch's control socket, returns its answer line."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(5)
            s.connect(sock_path)
            s.sendall(cmd.encode() + b"\n")
            buf = b""
            while not buf.endswith(b"\n") and len(buf) < 1 << 20:
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
            return buf.decode("utf-8", "replace").strip()
    except OSError as e:
        return f"error: {e}"


def _reader(node, echo, prefix, lock, inject=False, switch_sock=None):
    with open(node.log_path, "w", encoding="utf-8", errors="replace") as log:
        for raw in iter(node.proc.stdout.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\r\n").replace("\r", "")
            line = _ANSI.sub("", line)  # SeaBIOS clears the screen
            log.write(line + "\n")
            log.flush()
            if line.strip():
                node.last_line = line
            if READY in line and node.t_ready is None:
                node.t_ready = time.monotonic() - node.t_start
                for f in line.split():
                    if f.startswith("t="):
                        node.guest_ready = f[2:]
            elif _END_RE.match(line):
                node.status = int(_END_RE.match(line).group(1))
                node.t_end = time.monotonic()
            elif inject and line.startswith("SCENIC-WIRE-INJECT"):
                _inject(node, line)
            elif switch_sock and _SWITCH_CMD_RE.match(line):
                answer = _switch_command(switch_sock, _SWITCH_CMD_RE.match(line).group(1))
                log.write(f"SCENIC-SWITCH-ANSWER {answer}\n")
                log.flush()
            if echo:
                with lock:
                    sys.stdout.write(prefix + line + "\n")
                    sys.stdout.flush()


def _mem_available_mib():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def check_memory(nnodes, mem_mib, say):
    """From MEM_CHECK_NODES nodes: prints the guests' total and refuses (VMError) a total above
    75% of MemAvailable, before anything starts (docs/cluster.md 4.1)."""
    if nnodes < MEM_CHECK_NODES:
        return
    total = nnodes * mem_mib
    avail = _mem_available_mib()
    if avail is None:
        say(f"guest memory: {nnodes} x {mem_mib} MiB = {total} MiB (MemAvailable unknown)")
        return
    say(f"guest memory: {nnodes} x {mem_mib} MiB = {total} MiB of {avail} MiB available")
    if total > avail * 3 // 4:
        raise VMError(f"{nnodes} guests of {mem_mib} MiB need {total} MiB, more than 75% of "
                      f"MemAvailable ({avail} MiB): use a smaller --mem or fewer nodes")


def _switch_cmd(binary, ports, log_dir, switch_opts):
    cmd = [binary, "--ports", str(len(ports))]
    for i, p in enumerate(ports, 1):
        cmd += ["--peer", f"{i}={p}"]
    cmd += ["--series", os.path.join(log_dir, "switch.csv"),
            "--control", os.path.join(log_dir, "switch.sock"),
            "--stats-json", os.path.join(log_dir, "switch.json"),
            "--fault-log", os.path.join(log_dir, "switch.faults")]
    cmd += list(switch_opts)  # last: the caller's options win
    setpriv = "/usr/bin/setpriv"
    if os.access(setpriv, os.X_OK):
        cmd = [setpriv, "--pdeathsig", "KILL", "--"] + cmd
    return cmd


def _start_switch(binary, ports, log_dir, switch_opts, say):
    """Starts scenic-switch in its own process group (stdout and stderr in switch.log), waits
    for its READY line (SWITCH_READY_S), returns (Popen, [switch port of node 1..n])."""
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise VMError(f"no scenic-switch at {binary}: run `make model` (or set SCENIC_SWITCH)")
    cmd = _switch_cmd(binary, ports, log_dir, switch_opts)
    with open(os.path.join(log_dir, "switch.cmd"), "w") as f:
        f.write(shlex.join(cmd) + "\n")
    log_path = os.path.join(log_dir, "switch.log")
    with open(log_path, "wb") as log:
        with _live_lock:
            if _stopping.is_set():
                raise VMError("stopped (kill_all)")
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
            _live.add(proc)
    try:
        # The switch paces frames: it gets the CPU before the vCPUs when the host is busy.
        os.setpriority(os.PRIO_PROCESS, proc.pid, -5)
    except OSError:
        say("switch: cannot set nice -5 (not allowed): it runs at the default priority")
    deadline = time.monotonic() + SWITCH_READY_S
    while True:
        with open(log_path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = _SWITCH_READY_RE.match(line.strip())
                if m:
                    pmap = dict(x.split(":") for x in m.group(1).strip(",").split(","))
                    try:
                        return proc, [int(pmap[str(i)]) for i in range(1, len(ports) + 1)]
                    except (KeyError, ValueError):
                        _kill(proc)
                        raise VMError(f"switch: READY line without every port: {line.strip()}")
        if proc.poll() is not None:
            raise VMError(f"scenic-switch exited ({proc.returncode}) before READY: "
                          f"{_tail(log_path)}")
        if time.monotonic() > deadline:
            _kill(proc)
            raise VMError(f"scenic-switch not READY within {SWITCH_READY_S:.0f} s: "
                          f"{_tail(log_path)}")
        time.sleep(0.05)


def _tail(path, n=3):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return " | ".join(line.strip() for line in f.read().splitlines()[-n:])
    except OSError:
        return "(no log)"


def _fmt_rate(opts):
    rate = "default"
    for i, o in enumerate(opts):
        if o.startswith("--rate="):
            rate = o[7:]
        elif o == "--rate" and i + 1 < len(opts):
            rate = opts[i + 1]
    return rate


def switch_summary(stats, switch_opts):
    """The one-line summary of a switch run from its switch.json."""
    ports = stats.get("ports", {})
    tot = {k: sum(p.get(k, 0) for p in ports.values())
           for k in ("ecn_marked", "drop_tail", "drop_red", "drop_headroom", "drop_fault",
                     "host_rx_drops", "foreign", "runt", "giant")}
    p99 = max((p.get("late_p99_ns", 0) for p in ports.values()), default=0)
    drops = tot["drop_tail"] + tot["drop_red"] + tot["drop_headroom"] + tot["drop_fault"]
    return (f"switch: {len(ports)} ports, rate {_fmt_rate(switch_opts)}, marks "
            f"{tot['ecn_marked']}, drops {drops}, host_rx_drops {tot['host_rx_drops']}, "
            f"foreign {tot['foreign']}, runt {tot['runt']}, giant {tot['giant']}, "
            f"lateness p99 {p99 / 1e6:.1f} ms")


class Terminated(BaseException):
    """Raised in the main thread on SIGTERM/SIGHUP while run() is active (QEMUs are killed)."""


def _on_signal(signum, frame):
    raise Terminated(signum)


def run(nodes, timeout=300, name=None, qemu=None, echo=True, build=True,
        selftests_dir=os.path.join(REPO, "selftests"), log=None, extra_files=(), inject=False,
        switch=False, switch_opts=(), switch_cmds=False, layers=(), **opts):
    """Boots the nodes, waits for every job to end (or the time limit), returns a Result.

    Status: the first non-zero job status among the nodes, else 0; 124 when a node did not end
    within `timeout` seconds; 125 when a QEMU exited without the end marker (QEMU error, kernel
    panic). `log` is a function taking one message line (default: print to stderr).
    `extra_files`: [(guest path, host path)] added to the job's cpio. `layers`: more
    compressed cpio archives (host paths) unpacked after the image, before the job (e.g. the
    pyverbs layer of `mkimage --pyverbs`). `inject`: honour
    SCENIC-WIRE-INJECT lines from the guests (see _INJECT_RE). `switch`: wire two nodes
    through scenic-switch too (3..8 nodes always are); `switch_opts`: extra scenic-switch
    arguments; `switch_cmds`: honour SCENIC-SWITCH lines (see _SWITCH_CMD_RE). A switch that dies during the run ends it with status 125. Result.switch holds
    the switch's final counters (switch.json).
    """
    say = log or (lambda m: print("scenic-vm: " + m, file=sys.stderr, flush=True))
    if not 1 <= len(nodes) <= MAX_NODES:
        raise VMError(f"1 to {MAX_NODES} nodes")
    use_switch = len(nodes) >= 3 or (switch and len(nodes) == 2)
    if switch and len(nodes) == 1:
        raise VMError("a switch needs at least 2 nodes")
    switch_opts = list(switch_opts)
    if switch_opts and not use_switch:
        raise VMError("switch options without a switch (use 3+ nodes, or --switch with 2)")
    sw_bin = os.environ.get("SCENIC_SWITCH") or DEFAULT_SWITCH
    if use_switch and not (os.path.isfile(sw_bin) and os.access(sw_bin, os.X_OK)):
        raise VMError(f"no scenic-switch at {sw_bin}: run `make model` (or set SCENIC_SWITCH)")
    check_memory(len(nodes), opts.get("mem", 1024), say)
    qemu = qemu or os.environ.get("SCENIC_QEMU") or DEFAULT_QEMU
    if not (os.path.isfile(qemu) and os.access(qemu, os.X_OK)):
        raise VMError(f"no QEMU at {qemu}: build it (qemu-device/) or pass --qemu / SCENIC_QEMU")
    if build:
        build_image(kver=opts.get("kver"))
    kver = image_kver()
    kernel = opts.get("kernel")
    if not kernel:
        try:
            with open(os.path.join(BUILD, "kernel")) as f:
                kernel = f.read().strip()
        except OSError:
            kernel = f"/boot/vmlinuz-{kver}"
    if not os.path.exists(kernel):
        raise VMError(f"{kernel} missing")
    name = name or datetime.datetime.now().strftime("%Y%m%d-%H%M%S-") + str(os.getpid())
    log_dir = os.path.join(BUILD, "logs", name)
    os.makedirs(log_dir, exist_ok=True)
    latest = os.path.join(BUILD, "logs", "latest")
    try:
        if os.path.islink(latest):
            os.unlink(latest)
        os.symlink(name, latest)
    except OSError:
        pass

    initrd = os.path.join(log_dir, "initrd.img")
    jobcpio = initrd + ".job"
    _job_cpio(jobcpio, nodes, selftests_dir, extra_files)
    with open(initrd, "wb") as out:
        for part in (os.path.join(BUILD, "initramfs.cpio.zst"), *layers, jobcpio):
            with open(part, "rb") as f:
                out.write(f.read())
    os.unlink(jobcpio)

    # Signal handlers can only be set from the main thread; threaded callers use kill_all().
    old = {}
    if threading.current_thread() is threading.main_thread():
        old = {s: signal.signal(s, _on_signal) for s in (signal.SIGTERM, signal.SIGHUP)}
    lock = threading.Lock()
    threads = []
    timed_out = []
    sw_proc, sw_ports, sw_died = None, None, None
    try:
        ports = _free_udp_ports(max(2, len(nodes)) if use_switch else 2)
        if use_switch:
            sw_proc, sw_ports = _start_switch(sw_bin, ports[:len(nodes)], log_dir, switch_opts,
                                              say)
        for n in nodes:
            n.kmsg_path = os.path.join(log_dir, f"node{n.num}.kmsg")
            cmd = _qemu_cmd(qemu, kernel, initrd, n, len(nodes), ports, opts,
                            sw_ports[n.num - 1] if sw_ports else None)
            n.port = ports[n.num - 1]
            n.log_path = os.path.join(log_dir, f"node{n.num}.log")
            with open(os.path.join(log_dir, f"node{n.num}.cmd"), "w") as f:
                f.write(shlex.join(cmd) + "\n")
            n.t_start = time.monotonic()
            with _live_lock:
                if _stopping.is_set():
                    raise VMError("stopped (kill_all)")
                if opts.get("interactive") and n.num == 1:
                    # The console is the user's terminal (-nographic: serial and monitor on
                    # stdio, Ctrl-A X quits); no log, no markers: the run ends with this QEMU.
                    n.proc = subprocess.Popen(cmd, start_new_session=True)
                    _live.add(n.proc)
                    continue
                n.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, start_new_session=True)
                _live.add(n.proc)
            if opts.get("vcpu_nice") is not None and not _renice_vcpus(n.proc.pid,
                                                                       opts["vcpu_nice"]):
                say(f"node{n.num}: no vCPU thread found to renice")
            prefix = f"node{n.num}| " if len(nodes) > 1 else ""
            ctl = os.path.join(log_dir, "switch.sock") if sw_proc and switch_cmds else None
            t = threading.Thread(target=_reader, args=(n, echo, prefix, lock, inject, ctl),
                                 daemon=True)
            t.start()
            threads.append(t)
        deadline = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            alive = [n for n in nodes if n.proc.poll() is None]
            if not alive:
                break
            if opts.get("interactive") and nodes[0].proc.poll() is not None:
                for n in alive:
                    _kill(n.proc)
                break
            if _stopping.is_set():
                for n in alive:
                    _kill(n.proc)
                break
            if sw_proc is not None and sw_proc.poll() is not None:
                sw_died = (f"scenic-switch exited ({sw_proc.returncode}) during the run: "
                           f"{_tail(os.path.join(log_dir, 'switch.log'))}")
                say(sw_died)
                for n in alive:
                    _kill(n.proc)
                break
            for n in alive:
                # powered off after its end marker but QEMU hangs: stop it
                if n.t_end is not None and now - n.t_end > 15:
                    say(f"node{n.num}: QEMU still running 15 s after the end marker: killing it")
                    _kill(n.proc)
            if now > deadline:
                for n in alive:
                    timed_out.append(n)
                    _kill(n.proc)
                break
            time.sleep(0.1)
    finally:
        for n in nodes:
            _kill(n.proc)
            with _live_lock:
                _live.discard(n.proc)
        if sw_proc is not None:  # after the QEMUs: switch.json covers the whole run
            _kill(sw_proc)
            with _live_lock:
                _live.discard(sw_proc)
        for t in threads:
            t.join(timeout=5)
        for s, h in old.items():
            signal.signal(s, h)
        try:
            os.unlink(initrd)
        except OSError:
            pass

    status, msgs = 0, []
    for n in nodes:
        n.exit_code = n.proc.returncode if n.proc else None
        rel = os.path.relpath(n.log_path, REPO)
        ready = f"ready in {n.t_ready:.1f} s (guest {n.guest_ready} s)" if n.t_ready else \
            "never ready"
        if opts.get("interactive"):
            msgs.append(f"node{n.num}: " + ("interactive session ended" if n.num == 1 else
                                            f"stopped with node 1 ({ready})"))
        elif n in timed_out:
            msgs.append(f"node{n.num}: TIMEOUT after {timeout} s ({ready}); last line: "
                        f"{n.last_line.strip()[:160]!r}; log {rel}, kernel log "
                        f"{os.path.relpath(n.kmsg_path, REPO)}")
            status = status or 124
        elif n.status is None:
            msgs.append(f"node{n.num}: QEMU exited ({n.exit_code}) without the end marker "
                        f"({ready}); last line: {n.last_line.strip()[:160]!r}; log {rel}")
            status = status or 125
        else:
            msgs.append(f"node{n.num}: {ready}, job status {n.status}, log {rel}")
            status = status or n.status
    sw_stats = None
    if sw_proc is not None:
        if sw_died:
            msgs.append(sw_died)
            status = 125
        try:
            with open(os.path.join(log_dir, "switch.json")) as f:
                sw_stats = json.load(f)
            msgs.append(switch_summary(sw_stats, switch_opts))
        except (OSError, ValueError) as e:
            msgs.append(f"switch: no switch.json ({e}); log "
                        f"{os.path.relpath(os.path.join(log_dir, 'switch.log'), REPO)}")
            status = status or 125
    for m in msgs:
        say(m)
    return Result(status, nodes, log_dir, "; ".join(msgs), sw_stats)
