# SPDX-License-Identifier: MIT
"""Library behind tools/vm/scenic-vm: boots one or two guests in QEMU (TCG), runs a job in
each, collects the serial logs and returns the job's exit status. Python 3 stdlib only.

Used by the scenic-vm command and by selftests/run-vm-tests. Guarantees: every QEMU runs in its
own process group with a hard time limit and is killed (SIGTERM, then SIGKILL, by process group)
on timeout, on error, on Ctrl-C or SIGTERM of the caller; the host side uses only 127.0.0.1.
"""

import datetime
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
MAX_NODES = 2  # a dgram pair is point to point; more nodes need a switch (DESIGN.md 4)
_ANSI = re.compile(r"\x1b(\[[0-9;?]*[A-Za-z]|[()][A-Z0-9]|[=>c])")
READY = "SCENIC-VM-READY"
_END_RE = re.compile(r"^SCENIC-VM-END node=\d+ status=(\d+)$")
# With run(inject=True) a guest line "SCENIC-WIRE-INJECT count=N hex=BYTES" makes the runner send
# BYTES N times as datagrams into that node's end of the wire (frames no guest kernel can send,
# e.g. shorter than an Ethernet header). Never 0 bytes: QEMU's dgram backend reads that as EOF.
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
    def __init__(self, status, nodes, log_dir, message):
        self.status = status
        self.nodes = nodes
        self.log_dir = log_dir
        self.message = message


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


def build_image(quiet=True, kver=None):
    cmd = [os.path.join(HERE, "mkimage")] + (["-q"] if quiet else [])
    if kver:
        cmd += ["--kver", kver]
    r = subprocess.run(cmd)
    if r.returncode != 0:
        raise VMError("image build failed (tools/vm/mkimage)")


def build_guest_prog(src, deps=(), libs=("-libverbs",)):
    """Builds a guest test program from one C file on the host (the guest's libraries are the
    host's), as build/<folder of src>/<name>, when missing or older than src or deps; returns
    its path. Raises VMError when gcc fails."""
    name = os.path.splitext(os.path.basename(src))[0]
    prog = os.path.join(REPO, "build", os.path.basename(os.path.dirname(src)), name)
    if (not os.path.exists(prog) or
            os.path.getmtime(prog) < max(os.path.getmtime(f) for f in (src, *deps))):
        os.makedirs(os.path.dirname(prog), exist_ok=True)
        r = subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Wshadow", "-Werror",
                            "-o", prog, src, *libs])
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


def _qemu_cmd(qemu, kernel, initrd, node, nnodes, ports, opts):
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
        # Node i sends to the other node's port; a single node sends to a free port nobody uses.
        local = ports[node.num - 1]
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


def _reader(node, echo, prefix, lock, inject=False):
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
            if echo:
                with lock:
                    sys.stdout.write(prefix + line + "\n")
                    sys.stdout.flush()


class Terminated(BaseException):
    """Raised in the main thread on SIGTERM/SIGHUP while run() is active (QEMUs are killed)."""


def _on_signal(signum, frame):
    raise Terminated(signum)


def run(nodes, timeout=300, name=None, qemu=None, echo=True, build=True,
        selftests_dir=os.path.join(REPO, "selftests"), log=None, extra_files=(), inject=False,
        **opts):
    """Boots the nodes, waits for every job to end (or the time limit), returns a Result.

    Status: the first non-zero job status among the nodes, else 0; 124 when a node did not end
    within `timeout` seconds; 125 when a QEMU exited without the end marker (QEMU error, kernel
    panic). `log` is a function taking one message line (default: print to stderr).
    `extra_files`: [(guest path, host path)] added to the job's cpio. `inject`: honour
    SCENIC-WIRE-INJECT lines from the guests (see _INJECT_RE).
    """
    say = log or (lambda m: print("scenic-vm: " + m, file=sys.stderr, flush=True))
    if not 1 <= len(nodes) <= MAX_NODES:
        raise VMError(f"1 to {MAX_NODES} nodes (a dgram pair is point to point)")
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
        for part in (os.path.join(BUILD, "initramfs.cpio.zst"), jobcpio):
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
    try:
        ports = _free_udp_ports(2)
        for n in nodes:
            n.kmsg_path = os.path.join(log_dir, f"node{n.num}.kmsg")
            cmd = _qemu_cmd(qemu, kernel, initrd, n, len(nodes), ports, opts)
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
            t = threading.Thread(target=_reader, args=(n, echo, prefix, lock, inject),
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
    for m in msgs:
        say(m)
    return Result(status, nodes, log_dir, "; ".join(msgs))
