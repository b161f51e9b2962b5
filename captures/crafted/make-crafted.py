#!/usr/bin/python3
"""Build the crafted-*.pcap test captures and their *.expected.json files.

Usage:  /usr/bin/python3 captures/crafted/make-crafted.py [OUTDIR]
        (OUTDIR defaults to captures/, the parent of this script's directory)

The captures hold behaviour that no local Linux kernel produces (AccECN
handshake rows, reflectors, reserved flag combinations, fall-back SYNs, partial
and truncated handshakes, hostile bytes, flight and offload).  The package
scenarios/ builds them, one module per capture family; this script runs them
all.  Every packet is built with scapy (only to assemble headers and checksums)
and written with a tiny pcap writer of our own, so that the record lengths (caplen < orig_len) and timestamps are
exactly what we say.  Nothing is random except the hostile byte flips, which use
a fixed seed: rerunning the script produces byte-identical files.

The expected values are written from how each flow was built and from the RFC
rows named in each flow's "why" (RFC 3168 §6.1.1, RFC 9768 §3.1 Table 2), never
from tcpdiag's output.  See captures/crafted/README.md.
"""

import os
import sys

from scenarios.accuracy import build_accuracy
from scenarios.ecn_tables import ACCECN_V4, ACCECN_V6, build_accecn_table, build_classic_table
from scenarios.fallback import build_fallback
from scenarios.flight import build_flight
from scenarios.hostile import build_hostile
from scenarios.offload import build_offload
from scenarios.openflow import build_openflow
from scenarios.options import build_opts
from scenarios.partial import build_partial
from scenarios.truncated import build_truncated


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
        sys.exit("usage: make-crafted.py [OUTPUT_DIR]   (default: captures/)")
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(here)
    os.makedirs(outdir, exist_ok=True)
    build_accecn_table(outdir, **ACCECN_V4)
    build_classic_table(outdir)
    build_accecn_table(outdir, **ACCECN_V6)
    build_fallback(outdir)
    build_partial(outdir)
    build_truncated(outdir)
    build_hostile(outdir)
    build_opts(outdir)
    build_flight(outdir)
    build_offload(outdir)
    build_accuracy(outdir)
    build_openflow(outdir)


if __name__ == "__main__":
    main()
