#!/usr/bin/python3
"""Command agent inside the xiw test VM.

Reads one JSON request per line from the virtio-serial port named
"xiw.agent" and answers each with one JSON line:
  request  {"id": N, "cmd": "shell text", "timeout": seconds}
  answer   {"id": N, "rc": exit status, "out": stdout, "err": stderr}
rc is -1 with err "timeout" when the command outlived its timeout (its
process group is killed; the answer comes KILL_GRACE seconds later at
most, even when a process of it cannot die). The first line sent is {"ready": true}.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

# The agent is PID 1 in the guest: processes that tests start in the
# background are re-parented to it when their shell exits, and must be
# reaped, or they linger as zombies that "kill -0" still finds. The lock
# keeps the reaper away from the running command's own child.
LOCK = threading.Lock()
CURRENT = {"pid": None}
# What must stay open as long as the agent runs (see pin_timestamps()).
KEEP = []
# How long a timed-out command's processes get to die after SIGKILL.
KILL_GRACE = 10
# <asm-generic/socket.h>; Python's socket module does not name it.
SO_TIMESTAMP = 29


def reaper():
    while True:
        time.sleep(0.1)
        with LOCK:
            while True:
                try:
                    info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG |
                                     os.WNOWAIT)
                except ChildProcessError:
                    break
                if info is None or info.si_pid == CURRENT["pid"]:
                    break
                try:
                    os.waitpid(info.si_pid, 0)
                except ChildProcessError:
                    pass


def find_port(name):
    base = "/sys/class/virtio-ports"
    for port in os.listdir(base):
        try:
            with open(os.path.join(base, port, "name")) as f:
                if f.read().strip() == name:
                    return "/dev/" + port
        except OSError:
            continue
    raise SystemExit("guest_agent: no virtio port named " + name)


def run(req):
    timeout = req.get("timeout", 60)
    with LOCK:
        proc = subprocess.Popen(["/bin/sh", "-c", req["cmd"]],
                                stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        CURRENT["pid"] = proc.pid
    try:
        out, err = proc.communicate(timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        try:
            out, err = proc.communicate(timeout=KILL_GRACE)
            err = err + b"\ntimeout"
        except subprocess.TimeoutExpired:
            # SIGKILL did not end it: a process blocked in the kernel (or
            # one that left the group still holds the pipes). Answer all
            # the same, so that the host can read the kernel log and
            # reboot the guest rather than wait on this agent for ever.
            out = b""
            err = b"timeout\nits processes outlived SIGKILL: blocked in the kernel?"
        rc = -1
    with LOCK:
        CURRENT["pid"] = None
    return {"id": req.get("id"), "rc": rc,
            "out": out.decode(errors="replace"),
            "err": err.decode(errors="replace")}


def pin_timestamps():
    """A socket that asks for receive timestamps, kept for the agent's
    life: the kernel's netstamp_needed static key then stays on. Each
    capture (dumpcap) used to switch it on and, once its socket closed,
    off again, and under TCG a CPU running through the receive path while
    the kernel patches that branch has panicked the guest (an int3 in
    __netif_receive_skb_core)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMP, 1)
    return s


def main():
    threading.Thread(target=reaper, daemon=True).start()
    KEEP.append(pin_timestamps())
    path = find_port("xiw.agent")
    fd = os.open(path, os.O_RDWR)
    rx = os.fdopen(fd, "rb", buffering=0)
    tx = os.fdopen(os.dup(fd), "wb", buffering=0)

    def send(obj):
        # A virtio-serial write may take only part of a large buffer.
        data = memoryview(json.dumps(obj).encode() + b"\n")
        while data:
            n = tx.write(data)
            data = data[n or 0:]

    send({"ready": True})
    buf = b""
    while True:
        chunk = rx.read(65536)
        if not chunk:
            # Host side not connected (yet, or any more): poll gently.
            time.sleep(0.05)
            continue
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            if not line.strip():
                continue
            try:
                req = json.loads(line)
            except ValueError as e:
                send({"id": None, "rc": -2, "out": "", "err": str(e)})
                continue
            send(run(req))


if __name__ == "__main__":
    sys.exit(main())
