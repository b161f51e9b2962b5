#!/usr/bin/python3
"""Captures derived from lab captures by cutting them, for what a capture point
sees when tcpdump starts late: the same real-kernel packets without their
handshake. The expected values come from the source scenario's configuration
and from counting the kept packets with tshark's own fields (never tcpdiag's).

    captures/lab/derive.py            # writes captures/lab-<name>.pcap + .expected.json
"""
import json
import os
import subprocess
import sys

CAPTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# name: (source capture, the one tcp.stream kept or None for all, first frame kept, story)
DERIVED = {
    "ecn-ce-cubic-midflow": (
        "lab-ecn-ce-cubic-client.pcap", None, 10,
        "lab-ecn-ce-cubic-client.pcap (client tcp_ecn=1, server tcp_ecn=2, one 300 kB CUBIC download, "
        "the router marks CE at random, p=0.05, on the server's ECT packets; captured at the client) "
        "from frame 10 on (editcap -r): the handshake and the first data are cut, as when tcpdump "
        "starts mid-transfer"),
    # issue 19: the early-marking AQM's CUBIC ECN flow, whose cuts come at the end of
    # slow start (the server's TCP_INFO: 66 -> 46 -> 32 segments at two CWRs)
    "early-cubic-midflow": (
        "lab-early-cubic-2-of-10-client.pcap", 2, 10,
        "stream 2 of lab-early-cubic-2-of-10-client.pcap (one of the client's two ECN connections to a "
        "CUBIC server behind a 40 Mbit/s FIFO that marks CE above 4 ms of queue; captured at the client) "
        "from its frame 10 on (tshark -Y tcp.stream==2, then editcap -r): the handshake is cut, the "
        "end of slow start and both CWRs are kept"),
}


def count(pcap, display_filter):
    out = subprocess.run(["tshark", "-r", pcap, "-Y", display_filter, "-T", "fields", "-e", "frame.number"],
                         capture_output=True, text=True, check=True).stdout
    return len(out.split())


def expected(name, pcap):
    ce = count(pcap, "tcp.len > 0 && ip.dsfield.ecn == 3")
    cwr = count(pcap, "tcp.len > 0 && tcp.flags.cwr == 1")
    ect = count(pcap, "tcp.len > 0 && ip.dsfield.ecn == 2")
    why = (f"no SYN or SYN-ACK kept, so roles, the ECN outcome, the window scale and the capture point "
           f"are unknown; the kept server data is ECT(0) ({ect} segments) and CE ({ce}), and {cwr} data "
           f"segments carry CWR (tshark: ip.dsfield.ecn, tcp.flags.cwr): classic ECN in use, so the "
           f"congestion signals are read without the handshake; the sender is CUBIC, which cuts its "
           f"window on each echo (RFC 3168, RFC 9438): loss-like; every segment carries timestamps "
           f"(Linux), so the flight is measured from what the data echoes; the diagnosis abstains "
           f"(docs/diagnosis.md: no handshake, so no window scale); no host was silenced")
    return {
        "capture": f"lab-{name}.pcap",
        "made_by": "captures/lab/derive.py",
        "story": DERIVED[name][3],
        "flow_count": 1,
        "flows": [{
            "select": {"tcp.stream": 0},
            "why": why,
            "expect": {
                "tcpdiag.flow.roles": "unknown",
                "tcpdiag.ecn.outcome": "unknown",
                "tcpdiag.cc.feedback": "classic",
                "tcpdiag.cc.ce": ce,
                "tcpdiag.cc.cwr": cwr,
                "tcpdiag.cc.reaction": "loss-like",
                "tcpdiag.cc.unobserved": "handshake not captured: classic ECN taken from the ECT, ECE and CWR seen",
                "tcpdiag.diag.cause": "unknown",
                "tcpdiag.host.stall": None,
            },
        }],
    }


def main():
    for name, (source, stream, first, _story) in DERIVED.items():
        pcap = os.path.join(CAPTURES, f"lab-{name}.pcap")
        source = os.path.join(CAPTURES, source)
        if stream is not None:
            one = pcap + ".stream"
            subprocess.run(["tshark", "-r", source, "-Y", f"tcp.stream == {stream}", "-w", one],
                           check=True, capture_output=True)
            source = one
        last = count(source, "frame")           # editcap 4.0 takes no open range
        subprocess.run(["editcap", "-r", source, pcap, f"{first}-{last}"], check=True)
        if stream is not None:
            os.remove(source)
        with open(os.path.join(CAPTURES, f"lab-{name}.expected.json"), "w") as f:
            json.dump(expected(name, pcap), f, indent=2)
            f.write("\n")
        print(f"{name}: from {source}, frames {first}-{last} ({os.path.getsize(pcap)} B)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
