"""Driving xiw_genl.py (the scenarios' own client of the xiw generic
netlink family, written from the uapi header alone) in the guest."""
import json
import os

from conftest import TOP

GENL = os.path.join(TOP, "tests", "integration", "xiw_genl.py")


def genl(vm, *args, user=None, userns=False):
    """xiw_genl.py's JSON answer to args, run as user (a uid) if given,
    and with userns in a user and network namespace of its own (unshare
    -Urn: root there, with every capability over that namespace only)."""
    return genl_many(vm, [args], user=user, userns=userns)[0]


def genl_many(vm, requests, user=None, userns=False):
    """genl() of each request (a tuple of args), in one guest process."""
    prefix = f"setpriv --reuid={user} --regid={user} --clear-groups " \
        if user else ""
    if userns:
        prefix += "unshare -Urn "
    text = " -- ".join(" ".join(str(a) for a in args) for args in requests)
    out = vm.run(f"{prefix}python3 -S {GENL} {text}").out.splitlines()
    assert len(out) == len(requests), out
    return [json.loads(line) for line in out]
