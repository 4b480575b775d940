"""rdma_cm's own tracepoint (rdma_cma:cm_event_handler) as the witness of
which connection events reached the ULPs: one line per event per cm_id."""
import collections
import re

TRACING = "/sys/kernel/tracing"
LINE = re.compile(r"cm\.id=(\d+) src=(\S+) dst=(\S+) .* ([A-Z_]+) "
                  r"\((\d+)/(-?\d+)\)")


def start(vm, events="rdma_cma/cm_event_handler"):
    """Clear the buffer and record events (a path under events/: one
    event, or a whole system; or a tuple of such paths). The event is
    enabled once and never
    disabled, and comm recording is off: every enable or disable live-patches
    kernel text (recording comms hooks sched_switch inside __schedule), and
    under multi-threaded TCG a vCPU can still run a stale int3 after the
    patch is done, an "Oops: int3" that killed a CI run. tracing_on and
    clearing the buffer patch nothing."""
    paths = (events,) if isinstance(events, str) else events
    enable = "".join(f"echo 1 > {TRACING}/events/{p}/enable; "
                     for p in paths)
    vm.run(f"mountpoint -q {TRACING} || mount -t tracefs nodev {TRACING}; "
           f"echo 0 > {TRACING}/tracing_on; echo > {TRACING}/trace; "
           f"echo 0 > {TRACING}/options/record-cmd; "
           f"echo 4096 > {TRACING}/buffer_size_kb; "
           f"{enable}echo 1 > {TRACING}/tracing_on")


def parse(out):
    events = collections.defaultdict(list)
    for m in LINE.finditer(out):
        events[(int(m.group(1)), m.group(2), m.group(3))].append(m.group(4))
    return events


def wait_for(vm, event, count, tries=100):
    """Wait until `count` events named `event` were delivered (bounded by
    guest round trips, not time); fail showing everything seen."""
    for _ in range(tries):
        events = parse(vm.run(f"cat {TRACING}/trace").out)
        if sum(ev.count(event) for ev in events.values()) >= count:
            return
        vm.run("sleep 0.1")
    raise AssertionError(f"fewer than {count} {event}: {dict(events)}")


def stop(vm):
    """Every event delivered since start(): {(cm_id, src, dst): [event
    name, ...]}. Restrack numbers ids per device, so the addresses tell
    two devices' ids apart."""
    return parse(read_and_clear(vm))


def read_and_clear(vm):
    """Stop recording; what was recorded, the buffer emptied."""
    out = vm.run(f"echo 0 > {TRACING}/tracing_on; cat {TRACING}/trace; "
                 f"echo > {TRACING}/trace").out
    assert "LOST" not in out, "trace buffer overflowed"
    return out


def assert_exactly_once(events):
    """Every connection that was established was disconnected exactly
    once, and nothing was delivered twice or after the end."""
    established = 0
    for cm_id, evs in events.items():
        if "ESTABLISHED" not in evs:
            continue
        established += 1
        assert evs.count("ESTABLISHED") == 1, (cm_id, evs)
        assert evs.count("DISCONNECTED") == 1, (cm_id, evs)
        assert evs[-1] in ("DISCONNECTED", "TIMEWAIT_EXIT"), (cm_id, evs)
    return established
