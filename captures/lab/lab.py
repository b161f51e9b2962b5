#!/usr/bin/python3
"""tcpdiag capture lab: real Linux TCP stacks in network namespaces.

    sudo captures/lab/lab.py SCENARIO     # one scenario -> captures/lab-SCENARIO*.pcap
    sudo captures/lab/lab.py --list       # scenario names
    captures/lab/lab.py --rewrite-diag    # diagnosis expectations into the committed expected files
    sudo captures/lab/lab.py clean        # remove namespaces left by a killed run
    sudo captures/lab/make-all            # every scenario

Topology (see README.md):

  client ns            wire ns (delay lines)               router ns              server ns
  c-eth0 ==veth== w-c <-D_c-> w-rc ==veth== r-eth0 | r-eth1 ==veth== w-rs <-D_s-> w-s ==veth== s-eth0

offload-* wire the server straight to the router (r-eth1 ==veth== s-eth0, TSO/GSO on
s-eth0 as configured) and keep only the client-side delay line.

Each run builds the topology, applies the scenario's sysctls and router rules,
captures with tcpdump at the scenario's capture points, tears everything down
(also on error or Ctrl-C), derives the expected results from the configuration
and the kernels' own reports (generator TCP_INFO, router rule counters), checks
the pcaps against that ground truth with tshark's standard TCP/IP fields, and only
then writes captures/lab-*.pcap and lab-*.expected.json.
"""
import collections
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import ccid
import early
import timebudget
import mech
import think
import reductions
from diagnosis_truth import add_diag, per_conn

LAB = os.path.dirname(os.path.abspath(__file__))
CAPTURES = os.path.dirname(LAB)
LOGS = os.path.join(LAB, "logs")
PY = "/usr/bin/python3"

NS_CLIENT, NS_ROUTER, NS_SERVER, NS_WIRE = "tdlab-client", "tdlab-router", "tdlab-server", "tdlab-wire"
ALL_NS = [NS_CLIENT, NS_ROUTER, NS_SERVER, NS_WIRE]
MTU = 1500
PORT = 5001
SNAPLEN = 128
MIDFLOW_WAIT = 0.5      # s between connect() returning and tcpdump starting (midflow)

ADDR = {
    4: dict(client="10.77.1.2", router_c="10.77.1.1", router_s="10.77.2.1", server="10.77.2.2", plen=24),
    6: dict(client="fd77:1::2", router_c="fd77:1::1", router_s="fd77:2::1", server="fd77:2::2", plen=64),
}
# Linux announces MSS = MTU - IP header - TCP header (no options counted):
# 1500 - 20 - 20 = 1460 for IPv4, 1500 - 40 - 20 = 1440 for IPv6.
MSS = {4: MTU - 40, 6: MTU - 60}

# Capture points: namespace, interface, and whether the point is downstream of the
# router's server->client rules (marker/bleacher on FORWARD, i.e. before r-eth0's
# egress tap) for server->client packets.
CAPTURE_POINTS = {
    "client": (NS_CLIENT, "c-eth0", True),
    "router": (NS_ROUTER, "r-eth0", True),
    "server": (NS_SERVER, "s-eth0", False),
}

# ----------------------------------------------------------------------------------
# Scenarios. Keys: story, client_ecn (per connection: int or list), server_ecn, cc,
# bytes, delay (client side, server side one-way ms), ip, captures {suffix: point},
# router rules (mark = CE probability, bleach, blackhole), pace (B/s), midflow,
# bottleneck_kbit / bottleneck_latency_ms (tbf on r-eth0) and bottleneck_drops (whether
# the run must see tbf drops and retransmissions), flight (see flight-* below), shaper
# and the cc-* keys (see cc-* below).
# ----------------------------------------------------------------------------------
ONE_OF_N = 20
OPTS_N = 6             # opts-client-mixed: connections 2, 4, 6 offer no wscale/sack/ts
OPTS_SYSCTLS = ("net.ipv4.tcp_window_scaling", "net.ipv4.tcp_sack", "net.ipv4.tcp_timestamps")
WINDOW_CEILING = 65535  # the largest window a 16-bit field holds without scaling
ECN_INDEX = 6          # the 7th connection requests ECN
FLIGHT_CAPTURES = {"-server": "server", "-client": "client"}
FLIGHT_BULK = 4_000_000
FLIGHT_SNDBUF = 16384           # SO_SNDBUF of flight-sndbuf (see README: why this value)
FLIGHT_PACE = 5_000_000         # flight-sndbuf: SO_MAX_PACING_RATE (B/s), far above sndbuf / RTT
FLIGHT_RCVBUF = 16384           # SO_RCVBUF of flight-rwnd
FLIGHT_KBIT = 10_000            # flight-cwnd bottleneck
FLIGHT_TBF_LATENCY_MS = 20
TBF_BURST = "16kb"
FLIGHT_BURST = (32_000, 0.25)   # flight-app: bytes per write, pause after it (s)
FLIGHT_APP_BYTES = 20 * FLIGHT_BURST[0]
CC_RATE_MBIT = 10               # cc-*-random: the server->client shaper (a FIFO that never drops)
# cc-*-step: shaper with a step CE marker. K must exceed the 2-3 back-to-back frames an
# unpaced sender bursts per ACK (at 8 Mbit/s a frame takes 1.5 ms), or every burst is
# marked and the window collapses; CUBIC's sawtooth then has room below BDP + K.
CC_STEP = dict(rate_mbit=8, mark_sojourn_ms=5)
CC_STEP_DELAY = (2, 2)          # a short path: a small BDP keeps the sawtooth short
CC_LOSS = dict(rate_mbit=4, queue_limit=5, drops=True)   # cc-cubic-loss: a short dropping FIFO
CC_MIN_REDUCTIONS = 15          # CUBIC+ECN flows: kernel reductions needed
CC_MIN_RECOVERIES = 5           # cc-cubic-loss: Recovery/Loss episodes needed
COLLAPSE_CWND, COLLAPSE_RTTS = 4, 10    # cc-cubic-ecn-collapse: cwnd <= 4 for >= 10 RTTs
OFFLOAD_N = 3                   # offload-on/-off: sequential downloads
OFFLOAD_BYTES = 4_000_000       # each; slow start alone then spans > 8 round trips of 20 ms
SUSTAINED_RTTS = 8              # docs/offload.md: mss-capped needs that many round trips of data
OFFLOAD_DELAY = (10, 0)         # offload-*: the server has no delay line (see build)
GRO_FLUSH_US = 200              # offload-on/-off: the client's gro_flush_timeout (see set_offloads)
IRTT_SLACK_MS = 25              # userspace forwarding and scheduling on top of the configured RTT
STALL_N = 6                     # host-stall*: concurrent downloads from the one server
STALL_BYTES = 800_000           # each
STALL_PACE = 200_000            # host-stall: B/s per flow; 1.5 s of data before the drop, 2.5 s after
STALL = dict(after=1.5, seconds=4.0)    # host-stall: drop starts this long after the last connect
# host-stall-control: 16 kB bursts 120 ms apart (the application is each flow's limit),
# and one pause as long as the drop, at the first burst boundary Ti s after the flow's
# first write. Flow 5 pauses 4.5 s after flow 0 (0.5 s more than a pause; the flows
# start ~42 ms apart, which only adds to it), so flow 0 is sending again before flow 5
# stops and at every moment some flow is sending.
STALL_BURST = (16_000, 0.12)
STALL_PAUSE_AT = [round(0.4 + 0.9 * i, 1) for i in range(STALL_N)]
STALL_ALLOWANCE = 0.05          # s: tap and delay-line timing (see stall_bounds)
TIMER_SLACK = 1 / 8             # a timer-wheel timer fires up to this share of its timeout late
# host-stall-late-syn*: one more connection, a short exchange (unpaced) whose connect()
# starts this long before the drop's rule is deleted: its SYN's answer is dropped, and
# its 1 s SYN retry comes after the lift (the control: the same moment, no drop).
STALL_LATE = dict(bytes=10_000, before_lift=0.6,
                  at=STALL["after"] + STALL["seconds"] - 0.6)   # s after the last other connect
CONTROL_GAP_MAX = 0.2           # host-stall-control: the server is never silent longer (s)
CONTROL_BUSY_MAX = 1 / 3        # ... and each flow's kernel busy_time is at most this share of it
# port-reuse: every connection from one client port; how each ends decides what holds the
# address/port pair when the next SYN comes (peer.py CLOSES). Sizes all differ, so a
# stream's bytes say which connection it is.
REUSE = dict(port=32000, gap=0.3,
             bytes=[100_000, 300_000, 200_000, 500_000, 400_000, 600_000],
             closes=["server-fin", "server-fin", "client-rst", "client-fin",
                     "server-fin-client-rst", "server-fin"])
# port-reuse-ipv6: the same over IPv6, three connections, one of each way a pair is held.
REUSE6 = dict(port=32000, gap=0.3, bytes=[150_000, 350_000, 250_000, 450_000],
              closes=["server-fin", "client-fin", "client-rst", "server-fin"])
# What the next connect() from the same port meets after each way of ending.
REUSE_MEETS = {"server-fin": "server-time-wait", "server-fin-client-rst": "nothing",
               "client-rst": "nothing", "client-fin": "client-time-wait"}
REUSE_SYSCTLS = ("net.ipv4.tcp_tw_reuse", "net.ipv4.tcp_tw_reuse_delay", "net.ipv4.tcp_timestamps")
TW_ISN_STEP = 65535 + 2         # net/ipv4/tcp_minisocks.c: a SYN a TIME_WAIT accepts gets ISN snd_nxt + this

# ecn-two-servers: the client's ECN lottery across a CUBIC and a BBR server. The ECN
# flows to the CUBIC server (connections 2, 6, 10) collapse under the marks; those to
# the BBR server (5, 9) do not, though 3 of the client's 5 ECN flows are slow.
TWO_SERVERS_N = 16
TWO_SERVERS_ECN = (2, 5, 6, 9, 10)

SCENARIOS = {
    "no-ecn": dict(
        story="client tcp_ecn=0, server tcp_ecn=2; one 300 kB CUBIC download; no added delay",
        client_ecn=0, server_ecn=2, cc="cubic", bytes=300_000, delay=(0, 0),
        captures={"": "client"}),
    "ecn-ce-cubic": dict(
        story="client tcp_ecn=1, server tcp_ecn=2; one 300 kB CUBIC download; 10 ms one-way "
              "delay each side of the router; the router marks CE at random (p=0.05) on "
              "server->client ECT packets; captured at the client, the router's client-facing "
              "interface and the server in the same run",
        client_ecn=1, server_ecn=2, cc="cubic", bytes=300_000, delay=(10, 10), mark=0.05,
        captures={"-client": "client", "-router": "router", "-server": "server"}),
    "ecn-ce-bbr": dict(
        story="as ecn-ce-cubic with a BBR sender; captured at the client",
        client_ecn=1, server_ecn=2, cc="bbr", bytes=300_000, delay=(10, 10), mark=0.05,
        captures={"": "client"}),
    "ecn-1-of-n": dict(
        story=f"one client makes {ONE_OF_N} sequential 150 kB CUBIC downloads; tcp_ecn=1 only for "
              f"connection {ECN_INDEX + 1}, 0 for the others; server tcp_ecn=2; 10 ms each side; "
              "the router marks CE (p=0.25) on ECT packets, so only the ECN flow sees marks",
        client_ecn=[1 if i == ECN_INDEX else 0 for i in range(ONE_OF_N)], server_ecn=2,
        cc="cubic", bytes=150_000, delay=(10, 10), mark=0.25, captures={"": "client"}),
    "ecn-two-servers": dict(
        story=f"one client makes {TWO_SERVERS_N} sequential 150 kB downloads from two servers "
              "(two addresses of the server host, one process): even connections from "
              "10.77.2.2, whose sockets run CUBIC, odd ones from 10.77.2.3, running BBR; "
              "tcp_ecn=1 for 3 connections to the CUBIC server and 2 to the BBR server, 0 for "
              "the others; server tcp_ecn=2; 10 ms each side; the router marks CE (p=0.25) "
              "on ECT packets, so only the ECN flows see marks",
        client_ecn=[1 if i in TWO_SERVERS_ECN else 0 for i in range(TWO_SERVERS_N)], server_ecn=2,
        servers=["10.77.2.2" if i % 2 == 0 else "10.77.2.3" for i in range(TWO_SERVERS_N)],
        cc=["cubic" if i % 2 == 0 else "bbr" for i in range(TWO_SERVERS_N)],
        bytes=150_000, delay=(10, 10), mark=0.25, captures={"": "client"}),
    "ecn-declined": dict(
        story="client tcp_ecn=1, server tcp_ecn=0; one 300 kB CUBIC download; no added delay",
        client_ecn=1, server_ecn=0, cc="cubic", bytes=300_000, delay=(0, 0),
        captures={"": "client"}),
    "ecn-blackhole": dict(
        story="client tcp_ecn=1 (tcp_ecn_fallback=1), server tcp_ecn=2; the router drops SYNs "
              "carrying ECE+CWR; Linux retries the SYN without them after 1 s; 200 kB CUBIC "
              "download; 10 ms each side",
        client_ecn=1, server_ecn=2, cc="cubic", bytes=200_000, delay=(10, 10), blackhole=True,
        captures={"": "client"}),
    "ecn-bleached": dict(
        story="client tcp_ecn=1, server tcp_ecn=2 (ECN negotiated); the router rewrites every "
              "server->client packet to Not-ECT; 300 kB CUBIC download; 10 ms each side; "
              "captured at the receiver (client)",
        client_ecn=1, server_ecn=2, cc="cubic", bytes=300_000, delay=(10, 10), bleach=True,
        captures={"": "client"}),
    "ipv6": dict(
        story="classic ECN over IPv6 (net.ipv4.tcp_ecn governs IPv6 too): client tcp_ecn=1, "
              "server tcp_ecn=2; 300 kB CUBIC download; 10 ms each side; the router marks CE "
              "(p=0.05, ip6tables TOS target) on server->client ECT packets",
        client_ecn=1, server_ecn=2, cc="cubic", bytes=300_000, delay=(10, 10), mark=0.05, ip=6,
        captures={"": "client"}),
    "midflow": dict(
        story="client tcp_ecn=1, server tcp_ecn=2; a 400 kB CUBIC download paced at 150 kB/s; "
              "10 ms each side; tcpdump at the client starts 0.5 s after connect() returned, "
              "mid-transfer, so the capture has no handshake",
        client_ecn=1, server_ecn=2, cc="cubic", bytes=400_000, delay=(10, 10), pace=150_000,
        midflow=True, captures={"": "client"}),
    # client_opts / server_opts: the value of tcp_window_scaling, tcp_sack and
    # tcp_timestamps (client: per connection, written by the client before connect()).
    "opts-client-mixed": dict(
        story=f"one client makes {OPTS_N} sequential 3 MB CUBIC downloads; the client namespace "
              "has tcp_window_scaling, tcp_sack and tcp_timestamps = 1 for connections 1, 3, 5 "
              "and = 0 for 2, 4, 6 (rewritten before each connect); server all 1; tcp_ecn 0 / 2; "
              "10 ms delay line each side of the router (each adds 2 x 10 ms to a round trip: 40 ms), no bottleneck",
        client_ecn=[0] * OPTS_N, server_ecn=2, client_opts=[1 - i % 2 for i in range(OPTS_N)],
        server_opts=1, cc="cubic", bytes=3_000_000, delay=(10, 10), captures={"": "client"}),
    "opts-server-omits": dict(
        story="client tcp_window_scaling, tcp_sack, tcp_timestamps = 1; the server namespace has "
              "all three = 0; one 2 MB CUBIC download; tcp_ecn 0 / 2; 10 ms delay line each side "
              "of the router (each adds 2 x 10 ms to a round trip: 40 ms), no bottleneck",
        client_ecn=0, server_ecn=2, client_opts=[1], server_opts=0, cc="cubic",
        bytes=2_000_000, delay=(10, 10), captures={"": "client"}),
    # flight-*: one download each, tcp_ecn 0 / 2, 10 ms each side (40 ms RTT), captured at
    # the sender (server) and the receiver (client) in one run. The server polls TCP_INFO
    # every ~1 ms; `flight` lists the kernel verdicts (peer.py flight_verdict) the
    # scenario accepts. sndbuf: the server's SO_SNDBUF; rcvbuf: the client's SO_RCVBUF;
    # burst: (bytes, pause s) of an application-limited writer.
    "flight-healthy": dict(
        story=f"one {FLIGHT_BULK // 1_000_000} MB CUBIC download, nothing limiting on purpose "
              "(default buffers, no bottleneck); tcp_ecn 0 / 2; 10 ms delay line each side "
              "of the router (40 ms RTT)",
        client_ecn=0, server_ecn=2, cc="cubic", bytes=FLIGHT_BULK, delay=(10, 10),
        flight=("cwnd", "rwnd", "app"), captures=FLIGHT_CAPTURES),
    "flight-healthy-bbr": dict(
        story=f"as flight-healthy with a BBR sender: one {FLIGHT_BULK // 1_000_000} MB download, "
              "default buffers; a 20 Mbit/s tbf on the router's client-facing interface with a "
              "queue too long to drop (latency 300 ms, it dropped nothing) gives BBR a rate to "
              "find, so the transfer reaches its flat ProbeBW cwnd instead of ending in startup",
        client_ecn=0, server_ecn=2, cc="bbr", bytes=FLIGHT_BULK, delay=(10, 10),
        bottleneck_kbit=20_000, bottleneck_latency_ms=300, bottleneck_drops=False,
        flight=("cwnd", "rwnd", "app"), captures=FLIGHT_CAPTURES),
    "flight-sndbuf": dict(
        story=f"one 3 MB CUBIC download; the server sets SO_SNDBUF={FLIGHT_SNDBUF} on the "
              "accepted socket before writing (Linux doubles it and stops autotuning), so the "
              "send buffer bounds what can be in flight, and SO_MAX_PACING_RATE="
              f"{FLIGHT_PACE} B/s (far above what that flight carries per 40 ms round trip) "
              "so that the stack, not the ACK clock, sends the last queued bytes while the "
              "writer is blocked; tcp_ecn 0 / 2; 10 ms each side",
        client_ecn=0, server_ecn=2, cc="cubic", bytes=3_000_000, delay=(10, 10),
        sndbuf=FLIGHT_SNDBUF, pace=FLIGHT_PACE, flight=("sender",), captures=FLIGHT_CAPTURES),
    "flight-rwnd": dict(
        story=f"one 1 MB CUBIC download; the client sets SO_RCVBUF={FLIGHT_RCVBUF} before "
              "connect(), which clamps the window it offers from the SYN on; tcp_ecn 0 / 2; "
              "10 ms each side",
        client_ecn=0, server_ecn=2, cc="cubic", bytes=1_000_000, delay=(10, 10),
        rcvbuf=FLIGHT_RCVBUF, flight=("rwnd",), captures=FLIGHT_CAPTURES),
    "flight-cwnd": dict(
        story=f"one 2 MB CUBIC download through a {FLIGHT_KBIT // 1000} Mbit/s tbf bottleneck on "
              f"the router's client-facing interface (burst {TBF_BURST}, latency "
              f"{FLIGHT_TBF_LATENCY_MS} ms: a short queue that drops); tcp_ecn 0 / 2; "
              "10 ms each side",
        client_ecn=0, server_ecn=2, cc="cubic", bytes=2_000_000, delay=(10, 10),
        bottleneck_kbit=FLIGHT_KBIT, bottleneck_latency_ms=FLIGHT_TBF_LATENCY_MS,
        bottleneck_drops=True,
        flight=("cwnd",), captures=FLIGHT_CAPTURES),
    "flight-app": dict(
        story=f"the server writes {FLIGHT_BURST[0] // 1000} kB, sleeps {FLIGHT_BURST[1]:g} s, "
              f"and again, {FLIGHT_APP_BYTES // FLIGHT_BURST[0]} times (CUBIC): an application "
              "with nothing to send most of the time; tcp_ecn 0 / 2; 10 ms each side",
        client_ecn=0, server_ecn=2, cc="cubic", bytes=FLIGHT_APP_BYTES, delay=(10, 10),
        burst=FLIGHT_BURST, flight=("app",), captures=FLIGHT_CAPTURES),
    # cc-*: how the sender's congestion window reacts to CE echoes and to loss (tcpdiag
    # issue 4). One download each, captured at the server and the client in one run; the
    # server polls TCP_INFO (reductions.py turns the samples into the kernel's reduction
    # episodes). shaper: the server-side delay line's server->client bottleneck
    # (delayline.py --rate-mbit, --queue-limit, --mark-sojourn-ms; drops: whether it
    # must drop); reaction: the cc.reaction the kernel's samples must confirm;
    # min_reductions / min_recoveries: real reductions needed (any kind / by Recovery or Loss);
    # collapse: cwnd must sit at <= COLLAPSE_CWND for >= COLLAPSE_RTTS round trips.
    "cc-cubic-ecn-random": dict(
        story="client tcp_ecn=1, server tcp_ecn=2; one 1.5 MB CUBIC download through a "
              f"{CC_RATE_MBIT} Mbit/s server->client FIFO (delay line, no limit); the router "
              "marks CE at random (p=0.03) on server->client ECT packets; 10 ms each side",
        client_ecn=1, server_ecn=2, cc="cubic", bytes=1_500_000, delay=(10, 10), mark=0.03,
        shaper=dict(rate_mbit=CC_RATE_MBIT), reaction="loss-like",
        min_reductions=CC_MIN_REDUCTIONS, captures=FLIGHT_CAPTURES),
    "cc-bbr-ecn-random": dict(
        story="as cc-cubic-ecn-random with a BBR sender (2 MB, router CE marking p=0.03, "
              f"{CC_RATE_MBIT} Mbit/s FIFO, 10 ms each side)",
        client_ecn=1, server_ecn=2, cc="bbr", bytes=2_000_000, delay=(10, 10), mark=0.03,
        shaper=dict(rate_mbit=CC_RATE_MBIT), reaction="none", captures=FLIGHT_CAPTURES),
    "cc-cubic-ecn-step": dict(
        story="client tcp_ecn=1, server tcp_ecn=2; one 2 MB CUBIC download through a "
              f"{CC_STEP['rate_mbit']} Mbit/s server->client FIFO in the server-side delay line "
              f"that marks CE on every ECT frame queued longer than {CC_STEP['mark_sojourn_ms']} "
              f"ms (a step AQM); {CC_STEP_DELAY[0]} ms each side",
        client_ecn=1, server_ecn=2, cc="cubic", bytes=2_000_000, delay=CC_STEP_DELAY,
        shaper=CC_STEP, reaction="loss-like", min_reductions=CC_MIN_REDUCTIONS,
        captures=FLIGHT_CAPTURES),
    "cc-bbr-ecn-step": dict(
        story="as cc-cubic-ecn-step with a BBR sender and 1 MB",
        client_ecn=1, server_ecn=2, cc="bbr", bytes=1_000_000, delay=CC_STEP_DELAY,
        shaper=CC_STEP, reaction="none", captures=FLIGHT_CAPTURES),
    "cc-cubic-loss": dict(
        story="client tcp_ecn=0, server tcp_ecn=2 (no ECN); one 2.5 MB CUBIC download through a "
              f"{CC_LOSS['rate_mbit']} Mbit/s server->client FIFO in the server-side delay line "
              f"that holds at most {CC_LOSS['queue_limit']} frames and drops the rest; 10 ms each side",
        client_ecn=0, server_ecn=2, cc="cubic", bytes=2_500_000, delay=(10, 10),
        shaper=CC_LOSS, reaction="loss-like", min_recoveries=CC_MIN_RECOVERIES,
        captures=FLIGHT_CAPTURES),
    "cc-cubic-ecn-collapse": dict(
        story="client tcp_ecn=1, server tcp_ecn=2; one 1 MB CUBIC download; the router marks "
              "CE at random on 30 % of the server->client ECT packets; 10 ms each side (20 ms "
              "one way), no bottleneck: the window collapses to its floor while marks keep coming",
        client_ecn=1, server_ecn=2, cc="cubic", bytes=1_000_000, delay=(10, 10), mark=0.3,
        reaction="loss-like", min_reductions=CC_MIN_REDUCTIONS, collapse=True,
        captures=FLIGHT_CAPTURES),
    # offload-*: segmentation offload (tcpdiag issue 5). The server is wired straight to
    # the router (no server-side delay line, so its veth may carry GSO super-packets);
    # offload: tso = TSO/GSO on s-eth0, client_gro = GRO on c-eth0 with this
    # gro_flush_timeout in us (0: GRO off). The router forwards
    # onto the client side, whose offloads stay off, so the kernel segments there in
    # software before the client-side delay line (10 ms each way: a 20 ms round trip,
    # all of it between the router and the client). Captured at the server and the
    # client in one run; the server polls TCP_INFO.
    "offload-on": dict(
        story=f"the server's veth has TSO/GSO and tx checksum on; {OFFLOAD_N} sequential "
              f"{OFFLOAD_BYTES // 1_000_000} MB "
              "CUBIC downloads; tcp_ecn 0 / 2; the client's veth has GRO on; server wired "
              "straight to the router, 10 ms delay line each way between router and client",
        client_ecn=[0] * OFFLOAD_N, server_ecn=2, cc="cubic", bytes=OFFLOAD_BYTES,
        delay=OFFLOAD_DELAY, offload=dict(tso=True, client_gro=GRO_FLUSH_US), captures=FLIGHT_CAPTURES),
    "offload-off": dict(
        story="as offload-on with TSO and GSO off on the server's veth (ethtool -K s-eth0 tso "
              "off gso off): the server hands its veth single segments",
        client_ecn=[0] * OFFLOAD_N, server_ecn=2, cc="cubic", bytes=OFFLOAD_BYTES,
        delay=OFFLOAD_DELAY, offload=dict(tso=False, client_gro=GRO_FLUSH_US), captures=FLIGHT_CAPTURES),
    "offload-ecn-mixed": dict(
        story="the server's veth has TSO/GSO on; one client makes three sequential 2 MB CUBIC "
              "downloads with tcp_ecn 0, 1, 0 (server 2); the router marks CE at random on 30 % "
              "of the server->client ECT packets (GSO packets before its egress segments them), "
              "so only the ECN flow is marked and its window collapses; the client's veth has "
              "GRO off; server wired straight to the router, 10 ms each way router to client",
        client_ecn=[0, 1, 0], server_ecn=2, cc="cubic", bytes=2_000_000, delay=OFFLOAD_DELAY,
        mark=0.3, offload=dict(tso=True, client_gro=0), captures=FLIGHT_CAPTURES),
    # host-stall*: one host falls silent (tcpdiag's host-stall cause). parallel: the client
    # connects one after another and then reads every connection at once, the server
    # serves each in its own thread. stall: the server namespace drops everything it
    # sends (iptables OUTPUT DROP, before tcpdump's tap) for `seconds`, `after` s after the
    # last connect() returned. long_pause: (seconds, [Ti]): the i-th writer sleeps once.
    # diag_cause: the tcpdiag.diag.cause every flow must get.
    "host-stall": dict(
        story=f"{STALL_N} concurrent {STALL_BYTES // 1000} kB CUBIC downloads from one server, "
              f"each paced at {STALL_PACE // 1000} kB/s (SO_MAX_PACING_RATE); tcp_ecn 0 / 2; 10 ms "
              f"delay line each side of the router (40 ms RTT); {STALL['after']:g} s after the last "
              f"connect the server's namespace drops everything it sends (iptables-legacy -A OUTPUT "
              f"-j DROP) for {STALL['seconds']:g} s: the host falls silent mid-transfer, and its "
              "flows come back at their backed-off retransmission timers",
        client_ecn=[0] * STALL_N, server_ecn=2, cc="cubic", bytes=STALL_BYTES, delay=(10, 10),
        pace=STALL_PACE, parallel=True, stall=STALL, diag_cause="host-stall",
        captures=FLIGHT_CAPTURES),
    "host-stall-control": dict(
        story=f"the control of host-stall: the same {STALL_N} concurrent {STALL_BYTES // 1000} kB "
              f"CUBIC downloads (tcp_ecn 0 / 2, 10 ms each side), no drop; each server writer "
              f"sends {STALL_BURST[0] // 1000} kB bursts {STALL_BURST[1]:g} s apart and pauses "
              f"once for {STALL['seconds']:g} s, {', '.join(map(str, STALL_PAUSE_AT))} s after its "
              "first write: every flow falls silent as long as host-stall's, never all at once",
        client_ecn=[0] * STALL_N, server_ecn=2, cc="cubic", bytes=STALL_BYTES, delay=(10, 10),
        burst=STALL_BURST, parallel=True, long_pause=(STALL["seconds"], STALL_PAUSE_AT),
        diag_cause="app-limited", captures=FLIGHT_CAPTURES),
    # late: one more connection (the last, in connect order), `bytes` unpaced, whose
    # connect() starts `before_lift` s before the drop's rule is deleted (the control:
    # at the same moment after the last connect, without a drop).
    "host-stall-late-syn": dict(
        story=f"host-stall's {STALL_N} paced {STALL_BYTES // 1000} kB downloads and its "
              f"{STALL['seconds']:g} s drop {STALL['after']:g} s after the last connect; one more "
              f"connection, a {STALL_LATE['bytes'] // 1000} kB download (unpaced), connects "
              f"{STALL_LATE['before_lift']:g} s before the rule is deleted: the server's SYN-ACK "
              "is dropped, the client's SYN retry 1 s later is answered; tcp_ecn 0 / 2; 10 ms "
              "delay line each side of the router (40 ms RTT)",
        client_ecn=[0] * (STALL_N + 1), server_ecn=2, cc="cubic", bytes=STALL_BYTES,
        delay=(10, 10), pace=STALL_PACE, parallel=True, stall=STALL, late=STALL_LATE,
        diag_cause="host-stall", captures=FLIGHT_CAPTURES),
    # The control's downloads are twice as long: without a drop host-stall's would end
    # 4 s after they started, before the late connection; these are still sending then.
    "host-stall-late-syn-control": dict(
        story=f"the control of host-stall-late-syn: {STALL_N} downloads paced as there, of "
              f"{2 * STALL_BYTES // 1000} kB so that they are still sending when the same "
              f"{STALL_LATE['bytes'] // 1000} kB download connects at the same moment "
              f"({STALL_LATE['at']:g} s after the last other connect); no drop; tcp_ecn 0 / 2; "
              "10 ms each side",
        client_ecn=[0] * (STALL_N + 1), server_ecn=2, cc="cubic", bytes=2 * STALL_BYTES,
        delay=(10, 10), pace=STALL_PACE, parallel=True, late=STALL_LATE,
        captures=FLIGHT_CAPTURES),
    # reuse: the client makes every connection from REUSE["port"] (peer.py --bind-port),
    # ending each as REUSE["closes"] says; bytes may be a list (one per connection).
    "port-reuse": dict(
        story=f"one client makes {len(REUSE['bytes'])} sequential CUBIC downloads of "
              f"{', '.join(str(b // 1000) for b in REUSE['bytes'])} kB, every one from the same "
              f"address and port ({REUSE['port']}, SO_REUSEADDR + bind before connect) to the "
              f"same server port; they end in turn {', '.join(REUSE['closes'])} (peer.py CLOSES), "
              "so the next SYN meets the server's TIME_WAIT socket (accepted: the SYN's sequence "
              "number is above the one it remembers), nothing, or the client's own TIME_WAIT "
              "(connect() refused with EADDRNOTAVAIL under tcp_tw_reuse=2, taken over with "
              f"tcp_tw_reuse=1 after tcp_tw_reuse_delay); {REUSE['gap']:g} s between connections; "
              "tcp_ecn 0 / 2; 10 ms delay line each side of the router (40 ms RTT), no bottleneck",
        client_ecn=[0] * len(REUSE["bytes"]), server_ecn=2, cc="cubic", bytes=REUSE["bytes"],
        delay=(10, 10), reuse=REUSE, captures={"": "client"}),
    "port-reuse-ipv6": dict(
        story=f"as port-reuse over IPv6 (fd77:1::2 port {REUSE6['port']} to fd77:2::2 port 5001): "
              f"{len(REUSE6['bytes'])} sequential CUBIC downloads of "
              f"{', '.join(str(b // 1000) for b in REUSE6['bytes'])} kB from the one client port, "
              f"ended {', '.join(REUSE6['closes'])}; {REUSE6['gap']:g} s between connections; "
              "tcp_ecn 0 / 2; 10 ms delay line each side of the router (40 ms RTT)",
        client_ecn=[0] * len(REUSE6["bytes"]), server_ecn=2, cc="cubic", bytes=REUSE6["bytes"],
        delay=(10, 10), ip=6, reuse=REUSE6, captures={"": "client"}),
    # crossing: the path is long enough (server side) that the SYN-ACK reaches the client
    # after its 1 s SYN retry; the run fails unless the client's capture shows it so.
    "syn-retry-crossing": dict(
        story="one 100 kB CUBIC download over a long path: 10 ms delay line on the client "
              "side of the router, 600 ms on the server side (a 1.22 s round trip), so the "
              "SYN-ACK reaches the client after its SYN retry (Linux: 1 s), which crosses it; "
              "tcp_ecn 0 / 2; captured at the client, the router and the server in one run",
        client_ecn=0, server_ecn=2, cc="cubic", bytes=100_000, delay=(10, 600), crossing=True,
        captures={"-client": "client", "-router": "router", "-server": "server"}),
}
# cc-id-* and cc-bbr-step-2-of-10 (tcpdiag issue 12): see ccid.py. cc may be a list (one
# per connection); cc_id: the kernel's samples give each flow's algorithm and reaction.
SCENARIOS.update(ccid.SCENARIOS)
# early-*: the ECN lottery behind an AQM that marks early (tcpdiag issue 19): see early.py.
SCENARIOS.update(early.SCENARIOS)
# tb-*: where the time went (tcpdiag issue 29), request/response runs whose captures and
# expected files go to captures/lab/next/: see timebudget.py, which runs them itself.
SCENARIOS.update(timebudget.SCENARIOS)
# mech-*: the TCP mechanisms behind everyday slow transfers (tcpdiag issue 30), each beside
# a control; captures and expected files go to captures/lab/mech/: see mech.py.
SCENARIOS.update(mech.SCENARIOS)
# think-*: think time, the close and outages (tcpdiag issue 37), each beside a control;
# captures and expected files go to captures/lab/think/: see think.py.
SCENARIOS.update(think.SCENARIOS)


# ----------------------------------------------------------------------------------
# Processes and namespaces
# ----------------------------------------------------------------------------------
STARTED = []            # Popen objects this run started, stopped in reverse order


def run(*cmd, ns=None, check=True, out=False):
    if ns:
        cmd = ("ip", "netns", "exec", ns) + cmd
    r = subprocess.run(cmd, check=check, text=True,
                       stdout=subprocess.PIPE if out else subprocess.DEVNULL,
                       stderr=None if check else subprocess.DEVNULL)
    return r.stdout


def start(*cmd, ns, **kw):
    # `ip netns exec` execs the command, so the Popen pid is the program's pid.
    p = subprocess.Popen(("ip", "netns", "exec", ns) + cmd, **kw)
    STARTED.append(p)
    return p


def stop(p, sig=signal.SIGTERM, timeout=5):
    if p.poll() is None:
        p.send_signal(sig)
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def sysctl(ns, key, value=None):
    path = "/proc/sys/" + key.replace(".", "/")
    if value is None:
        return run("cat", path, ns=ns, out=True).strip()
    run("sh", "-c", f"echo {value} > {path}", ns=ns)


def existing_namespaces():
    names = run("ip", "netns", "list", out=True).split("\n")
    return [n.split()[0] for n in names if n.split() and n.split()[0] in ALL_NS]


def teardown():
    for p in reversed(STARTED):
        stop(p)
    STARTED.clear()
    for ns in existing_namespaces():
        # Anything still inside one of the lab's namespaces was started by the lab
        # (e.g. by a run that was killed): end it by pid, then delete the namespace.
        for pid in run("ip", "netns", "pids", ns, out=True, check=False).split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
        run("ip", "netns", "del", ns, check=False)


def wait_for(predicate, what, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.01)


def veth(a, ns_a, b, ns_b):
    run("ip", "link", "add", a, "netns", ns_a, "mtu", str(MTU), "type", "veth",
        "peer", "name", b, "netns", ns_b, "mtu", str(MTU))
    for ns, dev in ((ns_a, a), (ns_b, b)):
        # No offloads: frames on the wire stay <= MTU (the delay line cannot send
        # larger ones) and carry complete checksums (AF_PACKET copies raw bytes).
        run("ethtool", "-K", dev, "tx", "off", "tso", "off", "gso", "off", "gro", "off", ns=ns)
        run("ip", "link", "set", dev, "up", ns=ns)


def build(cfg, tmp):
    teardown()                                  # leftovers of an earlier, killed run
    for ns in ALL_NS:
        run("ip", "netns", "add", ns)
        run("ip", "link", "set", "lo", "up", ns=ns)
    sysctl(NS_WIRE, "net.ipv6.conf.all.disable_ipv6", 1)      # the wire is not a host
    sysctl(NS_WIRE, "net.ipv6.conf.default.disable_ipv6", 1)
    for ns in (NS_CLIENT, NS_ROUTER, NS_SERVER):
        sysctl(ns, "net.ipv6.conf.all.accept_dad", 0)        # addresses usable at once
        sysctl(ns, "net.ipv6.conf.default.accept_dad", 0)
    for ns in (NS_CLIENT, NS_SERVER):
        # Every connection starts fresh: no cached ssthresh/RTT from the previous one.
        sysctl(ns, "net.ipv4.tcp_no_metrics_save", 1)
    sysctl(NS_ROUTER, "net.ipv4.ip_forward", 1)
    sysctl(NS_ROUTER, "net.ipv6.conf.all.forwarding", 1)

    veth("c-eth0", NS_CLIENT, "w-c", NS_WIRE)
    veth("r-eth0", NS_ROUTER, "w-rc", NS_WIRE)
    if "offload" in cfg:
        veth("s-eth0", NS_SERVER, "r-eth1", NS_ROUTER)
        set_offloads(cfg["offload"])
    else:
        veth("r-eth1", NS_ROUTER, "w-rs", NS_WIRE)
        veth("s-eth0", NS_SERVER, "w-s", NS_WIRE)
    for _, a, b, _, _ in delay_lines(cfg):
        for dev in (a, b):
            run("ip", "link", "set", dev, "promisc", "on", ns=NS_WIRE)

    for v in (4, 6):
        a = ADDR[v]
        fam = "-4" if v == 4 else "-6"
        run("ip", fam, "addr", "add", f"{a['client']}/{a['plen']}", "dev", "c-eth0", ns=NS_CLIENT)
        run("ip", fam, "addr", "add", f"{a['router_c']}/{a['plen']}", "dev", "r-eth0", ns=NS_ROUTER)
        run("ip", fam, "addr", "add", f"{a['router_s']}/{a['plen']}", "dev", "r-eth1", ns=NS_ROUTER)
        run("ip", fam, "addr", "add", f"{a['server']}/{a['plen']}", "dev", "s-eth0", ns=NS_SERVER)
        if v == cfg.get("ip", 4):
            for extra in sorted(set(server_addrs(cfg)) - {a["server"]}):
                # Another server on the same host: an address of its own, as a second
                # machine would have; the router reaches it through the same link.
                run("ip", fam, "addr", "add", f"{extra}/{a['plen']}", "dev", "s-eth0", ns=NS_SERVER)
        run("ip", fam, "route", "add", "default", "via", a["router_c"], ns=NS_CLIENT)
        run("ip", fam, "route", "add", "default", "via", a["router_s"], ns=NS_SERVER)

    if cfg.get("bottleneck_kbit"):
        # tbf's queue holds rate x latency + burst bytes; beyond that it drops.
        run("tc", "qdisc", "add", "dev", "r-eth0", "root", "tbf", "rate",
            f"{cfg['bottleneck_kbit']}kbit", "burst", TBF_BURST, "latency",
            f"{cfg.get('bottleneck_latency_ms', 100)}ms", ns=NS_ROUTER)

    for name, a, b, d, shaper in delay_lines(cfg):
        ready = os.path.join(tmp, f"delayline-{name}.ready")
        start(PY, os.path.join(LAB, "delayline.py"), "--a", a, "--b", b, "--delay-ms", str(d),
              "--stats", os.path.join(tmp, f"delayline-{name}.json"), "--ready", ready,
              *shaper_args(shaper), ns=NS_WIRE)
        wait_for(lambda: os.path.exists(ready), "delay line")


def delay_lines(cfg):
    """(name, a, b, one-way ms, shaper) of each delay line. In both lines --b faces the
    server, so b -> a is server -> client; the shaper sits in the server-side one:
    upstream of the router, so every capture point but the server's is downstream of its
    marks, as of the router's. offload-* have no server-side line: AF_PACKET cannot
    forward the server's GSO packets, which are larger than the MTU."""
    dc, ds = cfg["delay"]
    lines = [("c", "w-c", "w-rc", dc, {})]
    if "offload" not in cfg:
        lines.append(("s", "w-rs", "w-s", ds, cfg.get("shaper", {})))
    return lines


# (namespace, interface) of the offload-* topology, and the features read back from them
OFFLOAD_DEVS = ((NS_SERVER, "s-eth0"), (NS_ROUTER, "r-eth1"), (NS_ROUTER, "r-eth0"), (NS_CLIENT, "c-eth0"))
OFFLOAD_FEATURES = ("tx-checksumming", "scatter-gather", "tcp-segmentation-offload",
                    "generic-segmentation-offload", "generic-receive-offload", "rx-gro-list")


def set_offloads(o):
    """offload-*: TSO/GSO on the server's veth (with the tx checksum and scatter-gather
    they depend on) or not, GRO on the client's. r-eth1 needs nothing: a veth hands its
    peer the sender's skbs whole, GSO packets included. The router's r-eth0 keeps every
    offload off, so forwarding segments GSO packets in software (and completes their
    checksums) before the client-side delay line."""
    tso = "on" if o["tso"] else "off"
    run("ethtool", "-K", "s-eth0", "tx", "on", "sg", "on", "tso", tso, "gso", tso, ns=NS_SERVER)
    if o["client_gro"]:
        # GRO on a veth runs in the receiver's NAPI poll, which here handles one frame at
        # a time (the delay line sends them one by one) and flushes at its end, so
        # nothing merges. gro_flush_timeout keeps GRO packets across polls (merging the
        # frames that arrive within it), as a NIC's interrupt coalescing would.
        run("ethtool", "-K", "c-eth0", "gro", "on", ns=NS_CLIENT)
        run("sh", "-c", f"echo {o['client_gro'] * 1000} > /sys/class/net/c-eth0/gro_flush_timeout",
            ns=NS_CLIENT)


def offload_features():
    """{interface: {feature: "on"/"off"}} as ethtool -k reads them back."""
    out = {}
    for ns, dev in OFFLOAD_DEVS:
        lines = run("ethtool", "-k", dev, ns=ns, out=True).splitlines()
        pairs = (line.split(":", 1) for line in lines if ":" in line)
        out[dev] = {k.strip(): v.split()[0] for k, v in pairs if k.strip() in OFFLOAD_FEATURES}
    out["c-eth0"]["gro_flush_timeout_ns"] = int(
        run("cat", "/sys/class/net/c-eth0/gro_flush_timeout", ns=NS_CLIENT, out=True))
    return out


def shaper_args(shaper):
    """delayline.py's options for a server->client bottleneck (frames from --b to --a)."""
    flags = {"rate_mbit": "--rate-mbit", "queue_limit": "--queue-limit",
             "mark_sojourn_ms": "--mark-sojourn-ms", "sojourn_log": "--sojourn-log",
             "reorder_share": "--reorder-share", "reorder_ms": "--reorder-ms"}
    return [x for key, flag in flags.items() if key in shaper for x in (flag, str(shaper[key]))]


def router_rules(cfg):
    """Server->client rules sit on FORWARD from r-eth1 to r-eth0 (mangle), so a
    capture on r-eth0 or at the client is downstream of them, one at the server is not."""
    v = cfg.get("ip", 4)
    ipt = "iptables-legacy" if v == 4 else "ip6tables-legacy"
    s2c = ("-i", "r-eth1", "-o", "r-eth0", "-p", "tcp")
    rules = []
    if cfg.get("mark"):
        # Only ECT packets are marked (as an AQM would); Not-ECT packets pass untouched.
        # ip6tables has no ECN target; its TOS target sets the two ECN bits the same way.
        target = ("-j", "ECN", "--ecn-ip-ect", "3") if v == 4 else ("-j", "TOS", "--set-tos", "0x03/0x03")
        for ect in ("1", "2"):
            rules.append(("mark", (ipt, "-t", "mangle", "-A", "FORWARD") + s2c +
                          ("-m", "ecn", "--ecn-ip-ect", ect, "-m", "statistic", "--mode", "random",
                           "--probability", str(cfg["mark"])) + target))
    if cfg.get("bleach"):
        target = ("-j", "ECN", "--ecn-ip-ect", "0") if v == 4 else ("-j", "TOS", "--set-tos", "0x00/0x03")
        rules.append(("bleach", (ipt, "-t", "mangle", "-A", "FORWARD") + s2c + target))
    if cfg.get("blackhole"):
        rules.append(("blackhole", (ipt, "-A", "FORWARD", "-i", "r-eth0", "-o", "r-eth1", "-p", "tcp",
                                    "--syn", "-m", "ecn", "--ecn-tcp-ece", "--ecn-tcp-cwr", "-j", "DROP")))
    for _, cmd in rules:
        run(*cmd, ns=NS_ROUTER)
    return [(kind, " ".join(cmd)) for kind, cmd in rules]


def rule_counters(cfg):
    """Packets that hit each kind of rule, as the router's kernel counted them."""
    v = cfg.get("ip", 4)
    save = "iptables-legacy-save" if v == 4 else "ip6tables-legacy-save"
    counts = {"mark": 0, "bleach": 0, "blackhole": 0}
    for line in run(save, "-c", ns=NS_ROUTER, out=True).splitlines():
        if not line.startswith("[") or "-A FORWARD" not in line:
            continue
        pkts = int(line[1:line.index(":")])
        if "--set-tos 0x03/0x03" in line or "--ecn-ip-ect 3" in line:
            counts["mark"] += pkts
        elif "DROP" in line:
            counts["blackhole"] += pkts
        else:
            counts["bleach"] += pkts
    return counts


# ----------------------------------------------------------------------------------
# One run
# ----------------------------------------------------------------------------------
def start_tcpdump(point, path):
    ns, dev, _ = CAPTURE_POINTS[point]
    p = start("tcpdump", "-i", dev, "-s", str(SNAPLEN), "--immediate-mode", "-U", "-Z", "root", "-w", path, "tcp",
              ns=ns, stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()                  # "listening on ..." once capturing
    if "listening on" not in line:
        raise RuntimeError(f"tcpdump on {dev}: {line.strip()}")
    return p


def stop_tcpdump(p):
    stop(p, signal.SIGINT)
    tail = p.stderr.read()
    stats = {}
    for line in tail.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0].isdigit():
            stats[" ".join(parts[1:]).replace("packets ", "").replace("packet ", "")] = int(parts[0])
    return stats


def tcp_ext(ns):
    """The namespace's non-zero TcpExt counters (/proc/net/netstat), e.g. TWRecycled."""
    lines = [line.split() for line in run("cat", "/proc/net/netstat", ns=ns, out=True).splitlines()
             if line.startswith("TcpExt:")]
    return {k: int(v) for k, v in zip(lines[0][1:], lines[1][1:]) if int(v)}


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


WARM_UP = """
import socket, sys
addr = sys.argv[1]
s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(3)
s.connect((addr, 9))
s.send(b"warm-up")
try:
    s.recv(1)
except ConnectionRefusedError:
    pass
else:
    sys.exit("warm-up: no ICMP port unreachable")
"""


def polls_tcpinfo(cfg):
    return "flight" in cfg or cc_checked(cfg) or "offload" in cfg


def cc_checked(cfg):
    """cc-*: the server's samples are turned into the kernel's reduction episodes."""
    return "reaction" in cfg or "cc_id" in cfg or "early" in cfg


def silence_server(stall):
    """Drops everything the server sends, in its namespace's OUTPUT chain (before
    tcpdump's tap on s-eth0), for stall["seconds"], starting stall["after"] s from now.
    Returns the CLOCK_REALTIME epochs (tcpdump's clock) read just before and just after
    adding and deleting the rule: the drop began within [add_before, add_after] and
    ended within [del_before, del_after]; and how many packets the rule dropped."""
    rule = ("OUTPUT", "-j", "DROP")
    time.sleep(stall["after"])
    add_before = time.time()
    run("iptables-legacy", "-A", *rule, ns=NS_SERVER)
    add_after = time.time()
    time.sleep(max(0.0, add_after + stall["seconds"] - time.time()))
    listing = run("iptables-legacy", "-L", "OUTPUT", "-v", "-x", "-n", ns=NS_SERVER, out=True)
    del_before = time.time()
    run("iptables-legacy", "-D", *rule, ns=NS_SERVER)
    del_after = time.time()
    return dict(add_before=add_before, add_after=add_after, del_before=del_before,
                del_after=del_after, dropped_packets=int(listing.splitlines()[2].split()[0]))


def conn_option(cfg, key, n, default=0):
    """A generator option for n connections: one value for all, or one each (a list, or
    when the last connection is a `late` one with its own bytes and no pacing)."""
    value = cfg.get(key, default)
    if isinstance(value, list):
        return ",".join(map(str, value))
    if not cfg.get("late"):
        return str(value)
    return ",".join([str(value)] * (n - 1) + [str(cfg["late"]["bytes"] if key == "bytes" else 0)])


def conn_cfg(cfg, index):
    """The configuration that holds for connection `index`: the `late` connection's own
    size and no pacing (what diagnosis_truth and the per-flow checks read)."""
    n = len(cfg["client_ecn"]) if isinstance(cfg["client_ecn"], list) else 1
    if isinstance(cfg["bytes"], list):
        return dict(cfg, bytes=cfg["bytes"][index])
    if not cfg.get("late") or index != n - 1:
        return cfg
    return {k: v for k, v in dict(cfg, bytes=cfg["late"]["bytes"]).items() if k != "pace"}


def release_late(client, at):
    """Lets the client's late connection connect `at` s from now (a line on its stdin);
    returns a dict that gets the CLOCK_REALTIME of the release."""
    released = {}

    def go():
        released["epoch"] = time.time()
        client.stdin.write("go\n")
        client.stdin.flush()
    timer = threading.Timer(at, go)
    timer.daemon = True         # a run that fails first does not wait for it
    timer.start()
    return released


def server_addrs(cfg):
    """The server address of each connection: the lab's one server, or the scenario's
    `servers` (one per connection: several servers the client talks to)."""
    n = len(cfg["client_ecn"]) if isinstance(cfg["client_ecn"], list) else 1
    return cfg.get("servers") or [ADDR[cfg.get("ip", 4)]["server"]] * n


def do_run(name, cfg, tmp):
    v = cfg.get("ip", 4)
    a = ADDR[v]
    n = len(cfg["client_ecn"]) if isinstance(cfg["client_ecn"], list) else 1
    schedule = cfg["client_ecn"] if isinstance(cfg["client_ecn"], list) else [cfg["client_ecn"]]
    result = {"scenario": name}
    try:
        build(cfg, tmp)
        sysctl(NS_CLIENT, "net.ipv4.tcp_ecn", schedule[0])
        sysctl(NS_SERVER, "net.ipv4.tcp_ecn", cfg["server_ecn"])
        result["sysctl"] = {
            "client": {k: sysctl(NS_CLIENT, k) for k in ("net.ipv4.tcp_ecn", "net.ipv4.tcp_ecn_fallback")},
            "server": {k: sysctl(NS_SERVER, k) for k in ("net.ipv4.tcp_ecn", "net.ipv4.tcp_ecn_fallback")},
        }
        if cfg.get("reuse"):
            for k in REUSE_SYSCTLS:
                result["sysctl"]["client"][k] = sysctl(NS_CLIENT, k)
                result["sysctl"]["server"][k] = sysctl(NS_SERVER, k)
        if "client_opts" in cfg:
            for k in OPTS_SYSCTLS:
                sysctl(NS_CLIENT, k, cfg["client_opts"][0])
                sysctl(NS_SERVER, k, cfg["server_opts"])
                result["sysctl"]["client"][k] = sysctl(NS_CLIENT, k)
                result["sysctl"]["server"][k] = sysctl(NS_SERVER, k)
        result["router_rules"] = router_rules(cfg)
        if "offload" in cfg:
            result["offload_features"] = offload_features()

        # Warm up ARP/ND caches so no handshake waits for address resolution: a UDP
        # datagram to a closed port comes back as ICMP port unreachable (no ping here).
        for server_addr in sorted(set(server_addrs(cfg))):
            run(PY, "-c", WARM_UP, server_addr, ns=NS_CLIENT)

        server_log = os.path.join(tmp, "server.jsonl")
        client_log = os.path.join(tmp, "client.jsonl")
        # Several server addresses: one process listening on all of them serves the
        # connections in accept order, each with its own congestion control.
        bind = a["server"] if len(set(server_addrs(cfg))) == 1 else ("::" if v == 6 else "0.0.0.0")
        server_cmd = [PY, os.path.join(LAB, "peer.py"), "server", "--bind", bind,
                      "--port", str(PORT), "--bytes", conn_option(cfg, "bytes", n),
                      "--cc", ",".join(cfg["cc"]) if isinstance(cfg["cc"], list) else cfg["cc"],
                      "--pace", conn_option(cfg, "pace", n), "--count", str(n), "--log", server_log]
        if polls_tcpinfo(cfg):
            server_cmd += ["--tcpinfo", os.path.join(tmp, "tcpinfo.csv.gz"),
                           "--sndbuf", str(cfg.get("sndbuf", 0))]
        if cfg.get("burst"):
            server_cmd += ["--burst", str(cfg["burst"][0]), "--pause", str(cfg["burst"][1])]
        if cfg.get("long_pause"):
            server_cmd += ["--long-pause", str(cfg["long_pause"][0]),
                           "--long-pause-at", ",".join(map(str, cfg["long_pause"][1]))]
        if cfg.get("parallel"):
            server_cmd.append("--concurrent")
        if cfg.get("reuse"):
            server_cmd += ["--close", ",".join(cfg["reuse"]["closes"]), "--reuse-log"]
        server = start(*server_cmd, ns=NS_SERVER)
        wait_for(lambda: os.path.exists(server_log) and os.path.getsize(server_log) > 0, "server")

        pcaps = {suffix: os.path.join(tmp, f"lab-{name}{suffix}.pcap") for suffix in cfg["captures"]}
        dumps = {}
        if not cfg.get("midflow"):
            for suffix, point in cfg["captures"].items():
                dumps[suffix] = start_tcpdump(point, pcaps[suffix])
        servers = server_addrs(cfg)
        client_cmd = [PY, os.path.join(LAB, "peer.py"), "client",
                      "--connect", servers[0] if len(set(servers)) == 1 else ",".join(servers),
                      "--port", str(PORT), "--count", str(n), "--log", client_log]
        if n > 1:
            client_cmd += ["--ecn-schedule", ",".join(map(str, schedule))]
        if "client_opts" in cfg:
            client_cmd += ["--opts-schedule", ",".join(map(str, cfg["client_opts"]))]
        if cfg.get("rcvbuf"):
            client_cmd += ["--rcvbuf", str(cfg["rcvbuf"])]
        if cfg.get("parallel"):
            client_cmd.append("--parallel")
        if cfg.get("late"):
            client_cmd += ["--late", "1"]
        if cfg.get("reuse"):
            r = cfg["reuse"]
            client_cmd += ["--bind-port", str(r["port"]), "--close", ",".join(r["closes"]),
                           "--expect", ",".join(map(str, cfg["bytes"])), "--gap", str(r["gap"])]
        t0 = time.monotonic()
        client = start(*client_cmd, ns=NS_CLIENT, stdout=subprocess.PIPE, text=True,
                       stdin=subprocess.PIPE if cfg.get("late") else None)
        if cfg.get("midflow"):
            client.stdout.readline()                # "connected": connect() has returned
            t_conn = time.monotonic()
            time.sleep(MIDFLOW_WAIT)                # well into the transfer
            for suffix, point in cfg["captures"].items():
                dumps[suffix] = start_tcpdump(point, pcaps[suffix])
            result["capture_started_after_connect_s"] = round(time.monotonic() - t_conn, 3)
        late = None
        if cfg.get("stall") or cfg.get("late"):
            for _ in range(n - bool(cfg.get("late"))):
                client.stdout.readline()            # "connected": every transfer has begun
            if cfg.get("late"):
                late = release_late(client, cfg["late"]["at"])
            if cfg.get("stall"):
                result["stall"] = silence_server(cfg["stall"])
        client.stdout.read()
        if late is not None:
            result["late_released"] = late["epoch"]
        if client.wait(120) != 0:
            raise RuntimeError("client failed")
        server.wait(30)
        result["run_s"] = round(time.monotonic() - t0, 2)
        time.sleep(0.3 + 2 * sum(cfg["delay"]) / 1000)       # last ACKs reach every tap
        result["tcpdump"] = {s: stop_tcpdump(p) for s, p in dumps.items()}
        result["router_counters"] = rule_counters(cfg)
        if cfg.get("reuse"):
            result["tcp_ext"] = {"client": tcp_ext(NS_CLIENT), "server": tcp_ext(NS_SERVER)}
        if cfg.get("bottleneck_kbit"):
            result["bottleneck_qdisc"] = run("tc", "-s", "qdisc", "show", "dev", "r-eth0",
                                             ns=NS_ROUTER, out=True).strip()
    finally:
        teardown()
    result["delay_lines"] = [read_jsonl(os.path.join(tmp, f"delayline-{x}.json"))[0]
                             for x, *_ in delay_lines(cfg)]
    # Parallel transfers log in the order they end; index i is connection i (connect
    # order, and the server's accept order).
    result["client"] = sorted((r for r in read_jsonl(client_log) if r["event"] == "conn"),
                              key=lambda r: r["index"])
    result["server"] = sorted((r for r in read_jsonl(server_log) if r["event"] == "served"),
                              key=lambda r: r["index"])
    result["pcaps"] = pcaps
    return result


# ----------------------------------------------------------------------------------
# Ground truth and expected results
# ----------------------------------------------------------------------------------
def ms(x):
    return f"{x:g} ms"


def vantage_truth(point, delay):
    """True position and whether the configured delays make it observable.
    Round trips from the capture point to the client and to the server:"""
    dc, ds = delay
    to_client, to_server = {"client": (0, 2 * (dc + ds)), "router": (2 * dc, 2 * ds),
                            "server": (2 * (dc + ds), 0)}[point]
    true = {"client": "near-client", "router": "middle", "server": "near-server"}[point]
    if point == "router" and max(to_client, to_server) >= 4 * min(to_client, to_server):
        # docs/ecn.md: a half that carries at least 80 % of the round trip puts the
        # capture near that end, wherever the router is (syn-retry-crossing: 20 ms to
        # the client, 1200 ms to the server).
        true = "near-client" if to_server > to_client else "near-server"
    if point == "router":
        clear = min(to_client, to_server) >= 10
    else:
        clear = max(to_client, to_server) >= 10
    return true, clear, to_client, to_server


def ce_marker(cfg):
    """(what marks CE on the server->client path, what counts its marks, short name),
    or None when nothing does."""
    if cfg.get("mark") and gso_marked(cfg):
        return (f"the router's marker (p={cfg['mark']}), which marks whole GSO packets before its "
                "egress cuts them into segments that all carry the mark",
                "the client kernel's tcpi_received_ce; the rule counter counts GSO packets",
                "the router's CE marker")
    if cfg.get("mark"):
        return f"the router's marker (p={cfg['mark']})", "its rule counter", "the router's CE marker"
    if cfg.get("shaper", {}).get("mark_sojourn_ms"):
        return (f"the server-side delay line's step marker (CE on each ECT frame queued longer "
                f"than {cfg['shaper']['mark_sojourn_ms']} ms)", "its own count",
                "the delay line's CE marker")
    return None


def gso_marked(cfg):
    """offload-* with TSO/GSO on: the router's FORWARD rules see the server's GSO packets."""
    return cfg.get("offload", {}).get("tso", False)


def marks(res):
    """CE marks set on the server->client path: the router rule's and the delay lines'."""
    return res["router_counters"]["mark"] + sum(dl.get("ce_marked", 0) for dl in res["delay_lines"])


def conn_truth(cfg, res, i, point):
    """What is true of connection i as seen at capture point `point`."""
    v = cfg.get("ip", 4)
    a = ADDR[v]
    c = res["client"][i]
    ecn = c["tcp_ecn_sysctl"]
    requested = ecn == 1
    if not requested:
        outcome = "not-requested"
    elif cfg.get("blackhole"):
        outcome = "fallback"
    elif cfg["server_ecn"] == 0:
        outcome = "declined"
    else:
        outcome = "classic"
    negotiated = outcome == "classic"
    if negotiated != c["tcp_info"]["ecn_negotiated"]:
        raise RuntimeError(f"conn {i}: configuration says negotiated={negotiated}, "
                           f"the client kernel says {c['tcp_info']['ecn_negotiated']}")
    seen = c["tcp_info"]["ecn_seen"]            # the client received ECT/CE packets
    if seen != (negotiated and not cfg.get("bleach")):
        raise RuntimeError(f"conn {i}: client kernel ECN_SEEN={seen} contradicts the configuration")
    downstream = CAPTURE_POINTS[point][2]
    if not negotiated:
        s2c_data = "not-ect"
    elif cfg.get("bleach") and downstream:
        s2c_data = "unmarked"
    else:
        s2c_data = "ect"
    ce = 0
    if negotiated and ce_marker(cfg) and downstream:
        # With one ECN flow only its packets are ECT, so every mark is its own. Behind a
        # GSO sender a mark covers a whole GSO packet, and with several ECN flows the
        # marks are shared: the segments the client received CE are then its kernel's
        # count (ccid.ce_problems checks they add up to the marker's).
        shared = sum(x["tcp_info"]["ecn_negotiated"] for x in res["client"]) > 1
        ce = c["tcp_info"]["received_ce"] if gso_marked(cfg) or shared else marks(res)
    truth = dict(index=i, client=a["client"], server=server_addrs(cfg)[i], client_port=c["local"][1],
                 server_port=PORT, ecn_sysctl=ecn, requested=requested, outcome=outcome,
                 negotiated=negotiated, s2c_data=s2c_data, ce=ce, downstream=downstream,
                 mss=MSS[v], kernel_advmss=c["tcp_info"]["advmss"], conn=c)
    if "client_opts" in cfg:
        truth["opts"] = opts_truth(cfg, c, i)
    return truth


def opts_truth(cfg, c, i):
    """Handshake options of connection i: each side offers wscale, sack and ts iff its
    three sysctls are 1, and Linux echoes in the SYN-ACK only what the SYN offered."""
    copt = c["opts_sysctls"]
    if set(copt.values()) != {cfg["client_opts"][i]}:
        raise RuntimeError(f"conn {i}: client opts sysctls {copt}, configured {cfg['client_opts'][i]}")
    cl = bool(cfg["client_opts"][i])
    sv = bool(cfg["server_opts"])
    used = cl and sv
    ti = c["tcp_info"]
    for k in ("ts_ok", "sack_ok", "wscale_ok"):
        if ti[k] != used:
            raise RuntimeError(f"conn {i}: client TCP_INFO {k}={ti[k]}, configuration says {used}")
    if used and not (ti["rcv_wscale"] and ti["snd_wscale"]):
        raise RuntimeError(f"conn {i}: window scaling agreed but shifts {ti['snd_wscale']}/{ti['rcv_wscale']}")
    return dict(client_offers=cl, server_offers=sv and cl, server_sysctl=sv, used=used,
                client_wscale=ti["rcv_wscale"] if used else None,
                server_wscale=ti["snd_wscale"] if used else None)


def flow_expect(cfg, res, t, point):
    """One entry of "flows" for connection truth t at capture point `point`."""
    why = []
    e = {}
    if cfg.get("midflow"):
        e = {"tcpdiag.flow.roles": "unknown", "tcpdiag.ecn.outcome": "unknown",
             "tcpdiag.flow.client": None, "tcpdiag.flow.server": None,
             "tcpdiag.flow.client_port": None, "tcpdiag.flow.server_port": None,
             "tcpdiag.flow.client_mss": None, "tcpdiag.flow.server_mss": None,
             "tcpdiag.dir": None, "tcpdiag.flow.data_sender": "unknown"}
        why.append(f"tcpdump started {res['capture_started_after_connect_s']} s after connect() "
                   "returned, so neither SYN nor SYN-ACK is in the capture: roles, and every "
                   "role-named field, are unknown/absent, and the ECN negotiation was not seen "
                   "(it did happen: client tcp_ecn=1, server tcp_ecn=2, the client kernel reports "
                   "ECN negotiated, so the data carries ECT without a visible handshake)")
        return add_diag({"select": {"tcp.stream": 0}, "why": "; ".join(why), "expect": e}, cfg, 0)

    e["tcpdiag.flow.roles"] = "known"
    e["tcpdiag.ecn.outcome"] = t["outcome"]
    why.append({
        "not-requested": f"client tcp_ecn={t['ecn_sysctl']}: its SYN carries neither ECE nor CWR",
        "classic": "client tcp_ecn=1 sends an ECE+CWR SYN and server tcp_ecn="
                   f"{cfg['server_ecn']} accepts with an ECE SYN-ACK (client TCP_INFO: ECN negotiated)",
        "declined": "client tcp_ecn=1 sends an ECE+CWR SYN; server tcp_ecn=0 answers without ECE",
        "fallback": "client tcp_ecn=1 sends an ECE+CWR SYN, the router drops it "
                    f"({res['router_counters']['blackhole']} dropped by the rule), and with "
                    "tcp_ecn_fallback=1 Linux retransmits the SYN without ECE/CWR after 1 s",
    }[t["outcome"]])
    e["tcpdiag.flow.client"] = t["client"]
    e["tcpdiag.flow.server"] = t["server"]
    e["tcpdiag.flow.client_port"] = t["client_port"]
    e["tcpdiag.flow.server_port"] = t["server_port"]
    why.append(f"client {t['client']} port {t['client_port']} (generator log) connects to the "
               f"server {t['server']} port {t['server_port']}")
    e["tcpdiag.flow.client_mss"] = t["mss"]
    e["tcpdiag.flow.server_mss"] = t["mss"]
    why.append(f"MTU {MTU} on every link: Linux announces MSS {t['mss']} (MTU minus "
               f"{MTU - t['mss']} bytes of IPv{cfg.get('ip', 4)}+TCP header) in SYN and SYN-ACK; "
               f"after the handshake the client kernel reports advmss {t['kernel_advmss']} "
               + ("(the announced MSS less 12 bytes of timestamp option)"
                  if t["kernel_advmss"] == t["mss"] - 12 else "(no timestamp option to subtract)"))
    e["tcpdiag.flow.data_sender"] = "server"
    e["tcpdiag.ecn.c2s.data"] = "no-data"
    e["tcpdiag.flow.c2s.bytes"] = 0
    size = conn_cfg(cfg, t["index"])["bytes"]
    e["tcpdiag.flow.s2c.bytes"] = {"min": size}
    why.append(f"a download: the server sends {size} bytes, the client sends no payload")

    true, clear, to_c, to_s = vantage_truth(point, cfg["delay"])
    e["tcpdiag.flow.vantage"] = true if clear else [true, "unknown"]
    if clear:
        why.append(f"capture at the {point}: configured round trip {ms(to_c)} to the client and "
                   f"{ms(to_s)} to the server, so vantage {true}")
    else:
        why.append(f"capture at the {point} with no configured delay: only host turnaround "
                   f"separates the sides, so {true} or unknown")
    rtt = 2 * sum(cfg["delay"])
    if rtt and not cfg.get("blackhole"):
        e["tcpdiag.flow.irtt"] = {"min": 0.95 * rtt / 1000, "max": (rtt + IRTT_SLACK_MS) / 1000}
        why.append(f"handshake round trip = 2 x ({ms(cfg['delay'][0])} + {ms(cfg['delay'][1])}) "
                   f"of delay line = {ms(rtt)}, plus up to {IRTT_SLACK_MS} ms of userspace forwarding and "
                   "scheduling")

    e["tcpdiag.ecn.syn_ip_ecn"] = "not-ect"
    e["tcpdiag.ecn.synack_ip_ecn"] = "not-ect"
    e["tcpdiag.ecn.accecn_feedback"] = None
    why.append("Linux sends SYN and SYN-ACK Not-ECT (only CCs that need ECN, e.g. DCTCP, set "
               "ECT on them) and these stacks never use AccECN (tcp_ecn <= 2)")

    e["tcpdiag.ecn.s2c.data"] = t["s2c_data"]
    e["tcpdiag.ecn.s2c.ect1"] = 0
    if t["s2c_data"] == "not-ect":
        e["tcpdiag.ecn.s2c.not_ect"] = {"min": 1}
        e["tcpdiag.ecn.s2c.ect0"] = 0
        e["tcpdiag.ecn.s2c.ce"] = 0
        why.append("ECN not negotiated: the server sends all data Not-ECT, and the router's "
                   "rules only touch ECT packets")
    elif t["s2c_data"] == "unmarked":
        e["tcpdiag.ecn.s2c.not_ect"] = {"min": 1}
        e["tcpdiag.ecn.s2c.ect0"] = 0
        e["tcpdiag.ecn.s2c.ce"] = 0
        why.append(f"ECN negotiated and the server sends ECT(0), but the router rewrote all "
                   f"{res['router_counters']['bleach']} server->client packets to Not-ECT "
                   "upstream of this capture point (the client kernel confirms: no ECT seen)")
    else:
        e["tcpdiag.ecn.s2c.ect0"] = {"min": 1}
        e["tcpdiag.ecn.s2c.ce"] = t["ce"]
        marker = ce_marker(cfg)
        if marker and t["downstream"]:
            why.append(f"ECN negotiated: Linux sends new data ECT(0); {marker[0]}, which sits "
                       f"between the server and this capture point, turned exactly {t['ce']} of "
                       f"them into CE ({marker[1]})")
        elif marker:
            why.append("ECN negotiated: Linux sends new data ECT(0); this capture point is "
                       f"upstream of {marker[2]}, so no CE here")
        else:
            why.append("ECN negotiated: Linux sends new data ECT(0); nothing on the path marks CE")
    if "opts" in t:
        opts_expect(cfg, t, e, why)
    if "flight" in cfg:
        flight_expect(res["server"][t["index"]]["flight"], e, why)
    if cc_checked(cfg):
        cc_expect(cfg, res["kernel_cc"][t["index"]], e, why)
    if "offload" in cfg:
        offload_expect(cfg, res["kernel_offload"][t["index"]], t, point, e, why)
    if silences(cfg):
        stall_expect(cfg, res, t, point, e, why)
    if cfg.get("reuse"):
        reuse_expect(cfg, res, t, e, why)
    return add_diag({"select": {"tcp.stream": t["index"]}, "why": "; ".join(why), "expect": e},
                    conn_cfg(cfg, t["index"]), t["index"])


def flight_expect(f, e, why):
    """The kernel's own verdict (peer.py flight_verdict) on what limited the server's flight."""
    e["tcpdiag.flight.dir"] = "s2c"
    e["tcpdiag.flight.limit"] = f["dominant"]
    split = ", ".join(f"{k} {f['times_ms'][k]:g} ms ({f['shares'][k]:.1%})" for k in f["times_ms"])
    why.append(f"the server's TCP_INFO (polled every ~1 ms) over the transfer window of "
               f"{f['window_us'] / 1000:.1f} ms (first write to the last byte and FIN acked) "
               f"reports busy_time {f['busy_time_us'] / 1000:g} ms, rwnd_limited "
               f"{f['rwnd_limited_us'] / 1000:g} ms, sndbuf_limited {f['sndbuf_limited_us'] / 1000:g} "
               f"ms; as cwnd = busy - rwnd_limited - sndbuf_limited, rwnd = rwnd_limited, "
               f"sender = sndbuf_limited, app = window - busy: {split}; the largest is "
               f"{f['dominant']}, and the data flows server to client (s2c)")


# ----------------------------------------------------------------------------------
# Congestion response (cc-*): the kernel's reduction episodes (reductions.py) and what
# they say about the sender's reaction
# ----------------------------------------------------------------------------------
WIRE_MATCH = 0.95               # share of the real reductions the server's capture must answer


def kernel_cc(cfg, res, csv_path):
    """Per connection: the kernel's episodes and numbers, the verdicts the samples
    confirm, and the problems that fail the run."""
    out = []
    for i, rows in sorted(reductions.read_samples(csv_path).items()):
        k = reductions.summarize(rows)
        k["index"] = i
        if "cc_id" in cfg:
            k["ccid"] = ccid.judge(cfg, i, k, collapsed(k["low_stretch"]))
            k["problems"] = k["ccid"]["problems"]
        elif "early" in cfg:
            others = [c for c in res["client"] if not c["tcp_info"]["ecn_negotiated"]]
            k["early"] = early.judge(cfg, i, k, res["client"][i], others)
            k["problems"] = k["early"]["problems"]
        else:
            k["problems"] = cc_problems(cfg, res, i, k)
        out.append(k)
    return out


def cc_problems(cfg, res, i, k):
    tag = f"connection {i}"
    bad = []
    med, n = k["median_ratio"], k["count"]
    if k["cuts"] < cfg.get("min_reductions", 0):
        bad.append(f"{tag}: {k['cuts']} kernel reductions, the scenario needs {cfg['min_reductions']}")
    if k["recoveries"] < cfg.get("min_recoveries", 0):
        bad.append(f"{tag}: {k['recoveries']} reductions by Recovery/Loss, the scenario needs "
                   f"{cfg['min_recoveries']}")
    if cfg["reaction"] == "loss-like" and not (med and reductions.LOSS_LIKE_RATIO[0] <= med <= reductions.LOSS_LIKE_RATIO[1]):
        bad.append(f"{tag}: median cwnd after/before {med} over {n} episodes: not a "
                   f"multiplicative cut ({reductions.LOSS_LIKE_RATIO[0]}-{reductions.LOSS_LIKE_RATIO[1]})")
    echo = k["echo_response"]["median_ratio"]
    if cfg["reaction"] == "none" and not (med and med >= reductions.NO_CUT_RATIO and echo >= reductions.NO_CUT_RATIO):
        bad.append(f"{tag}: median cwnd after/before {med} over {n} CWR entries, {echo} over "
                   f"round trips with echoes: BBR's cwnd followed the echoes (needs >= {reductions.NO_CUT_RATIO})")
    if cfg["client_ecn"]:
        c, srv = res["client"][i]["tcp_info"], res["server"][i]["tcp_info"]
        if not c["ecn_seen"] or c.get("received_ce", 1) < 1 or srv["delivered_ce"] < 1:
            bad.append(f"{tag}: no CE reached the client or no ECE the server (client ECN_SEEN "
                       f"{c['ecn_seen']}, received_ce {c.get('received_ce')}; server delivered_ce "
                       f"{srv['delivered_ce']})")
        if c.get("received_ce", marks(res)) != marks(res):
            bad.append(f"{tag}: the client kernel received {c['received_ce']} CE segments, the "
                       f"markers set {marks(res)}")
    low = k["low_stretch"]
    if cfg.get("collapse") and not collapsed(low):
        bad.append(f"{tag}: no collapse: longest stretch with cwnd <= {COLLAPSE_CWND}: {low}")
    return bad


def collapsed(low):
    """cwnd <= COLLAPSE_CWND for COLLAPSE_RTTS round trips, with ECE arriving in at least
    half of them."""
    return bool(low) and low["rtts"] >= COLLAPSE_RTTS and \
        low["whole_rtts_with_ce_echo"] >= 0.5 * int(low["rtts"])


def episodes_story(k):
    states = ", ".join(f"{n} {s}" for s, n in k["by_state"].items() if n)
    echo = k["echo_response"]
    return (f"the server's TCP_INFO samples (~1 ms apart) show {k['count']} episodes "
            f"({states or 'none'}: ca_state entering CWR/Recovery/Loss from Open/Disorder, "
            "or ssthresh falling again while in them); cwnd after (minimum over the episode, "
            "at most 2 RTTs) / cwnd before (the sample before), median over the episodes "
            f"that started above cwnd {reductions.FLOOR} (CUBIC's floor): {k['median_ratio']}; {k['cuts']} of them fell to <= {reductions.CUT} x (the "
            f"kernel's real reductions); over the {echo['slots_with_echo']} round trips in which "
            "ECE-acked deliveries grew, min cwnd of the next round trip / cwnd before: median "
            f"{echo['median_ratio']}; median srtt {k['srtt_median_s'] * 1000:.1f} ms")


def cc_expect(cfg, k, e, why):
    if "cc_id" in cfg:
        ccid.expect(k["ccid"], e, why)
    elif "early" in cfg:
        early.expect(k["early"], e, why)
    else:
        e["tcpdiag.cc.reaction"] = cfg["reaction"]      # cc_problems failed the run unless confirmed
        why.append(episodes_story(k) + {
            "loss-like": ": each signal cut the window by a constant factor, as CUBIC does "
                         "(ssthresh = 0.7 x cwnd rounded down, at least 2, so windows of a few "
                         "segments give 0.5-0.67: 4 -> 2, 5 -> 3, 7 -> 4; Reno 0.5), so the "
                         "reaction is loss-like",
            "none": ": the kernel entered CWR on the echoes (and set CWR on the wire) but BBR sets "
                    "cwnd from its model, which did not drop, so the reaction is none",
        }[e["tcpdiag.cc.reaction"]])
    low = k["low_stretch"]
    if collapsed(low):
        e["tcpdiag.cc.collapse"] = "yes"
        why.append(f"cwnd stayed <= {low['cwnd_max']} segments for {low['ms']:g} ms = "
                   f"{low['rtts']:g} median RTTs, and ACKs with ECE arrived in "
                   f"{low['whole_rtts_with_ce_echo']} of its {int(low['rtts'])} whole round trips "
                   f"(delivered_ce +{low['delivered_ce_during']}): a collapsed window under "
                   "continuing marks")


def wire_responses(pcap, t):
    """Epoch times at which the server's segments show a congestion response, from
    tshark's own fields: data with CWR set, and retransmissions (data that ends at or
    below the highest sequence already sent)."""
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "separator=/t",
                          "-Y", f"tcp.stream == {t['index']} && ip.src == {t['server']} && tcp.len > 0",
                          "-e", "frame.time_epoch", "-e", "tcp.seq", "-e", "tcp.len",
                          "-e", "tcp.flags.cwr"], check=True, text=True, capture_output=True).stdout
    times, hi = [], 0
    for line in out.splitlines():
        when, seq, length, cwr = line.split("\t")
        end = int(seq) + int(length)
        if cwr in ("1", "True") or end <= hi:
            times.append(float(when))
        hi = max(hi, end)
    return times


def match_wire(k, pcap, t):
    """How many of the kernel's episodes the server's own capture answers with a CWR or
    a retransmission between one sample gap (+1 ms) before the episode's first sample
    and one median RTT after it: evidence that the sample times and the pcap's clock
    agree and that each episode put a response on the wire."""
    wire = wire_responses(pcap, t)
    hits = [any(e["t"] - e["gap_ms"] / 1000 - 0.001 <= w <= e["t"] + k["srtt_median_s"] for w in wire)
            for e in k["episodes"]]
    visible = [(h, e) for h, e in zip(hits, k["episodes"]) if e["cut"] and not e["silent"]]
    return {"episodes": k["count"], "answered": sum(hits), "wire_responses": len(wire),
            "visible_cuts": len(visible), "cuts_answered": sum(h for h, _ in visible)}


def reductions_expect(cfg, k):
    """One "kernel_reductions" entry: the configured congestion control, the times of
    the real reductions, and every episode (with its state and cwnd ratio) for reference."""
    eps = k["episodes"]
    gaps = [x["gap_ms"] for x in eps]
    w = k.get("wire")           # absent without a capture at the server (early-*)
    visible = sum(x["cut"] and not x["silent"] for x in eps)
    matched = (f"; the server's capture shows a CWR or a retransmission within [-gap-1 ms, +1 RTT] "
               f"of {w['cuts_answered']} of them ({w['answered']} of all {w['episodes']} episodes; "
               f"{w['wire_responses']} such segments in all)" if w else
               "; no capture at the server to match them with")
    return {"select": {"tcp.stream": k["index"]}, "cc": per_conn(cfg["cc"], k["index"]),
            "rtt_s": round(k["srtt_median_s"], 6),
            "times": [round(x["t"], 6) for x in eps if x["cut"] and not x["silent"]],
            # every episode in which cwnd fell below 0.9 x the flight it had: tcpdiag's own
            # threshold for a reduction (its ratio < 0.9), so a tcpdiag reduction of a BBR
            # flow away from all of these is one the kernel did not make
            "flight_reduction_times": [round(x["t"], 6) for x in eps
                                       if x["flight_ratio"] < reductions.NO_CUT_RATIO],
            "episodes": {"times": [round(x["t"], 6) for x in eps],
                         "states": [x["state"] for x in eps],
                         "cwnd_ratios": [x["ratio"] for x in eps],
                         "flight_ratios": [x["flight_ratio"] for x in eps]},
            "why": episodes_story(k) + f"; times: the {visible} real reductions after "
                   f"which the server still sent something ({k['cuts'] - visible} more came "
                   "with the last ACKs, invisible on the wire), each the CLOCK_REALTIME "
                   "(pcap) epoch of the episode's first sample, so at most one sample gap after "
                   f"the kernel's transition (gaps: median {statistics.median(gaps) if gaps else 0:g} ms, "
                   f"max {max(gaps, default=0):g} ms)" + matched + "; flight_reduction_times: the "
                   "episodes whose cwnd fell below 0.9 x the smaller of cwnd and unacked before"}


# ----------------------------------------------------------------------------------
# Segmentation offload (offload-*): per flow from the configuration, the capture point
# and the server's samples; per sender from the flows, by docs/offload.md
# ----------------------------------------------------------------------------------
CAPPED = ("capped", "mss-capped")


def kernel_offload(res, csv_path):
    """Per connection, what the server's samples say about its window: largest cwnd,
    median srtt, length in round trips, the longest stretch at cwnd <= COLLAPSE_CWND."""
    out = []
    for i, rows in sorted(reductions.read_samples(csv_path).items()):
        k = reductions.summarize(rows)
        info = res["server"][i]["tcp_info"]
        out.append({"index": i, "cwnd_max": k["cwnd_max"], "srtt_median_s": k["srtt_median_s"],
                    "rtts": round((rows[-1]["t_us"] - rows[0]["t_us"]) / 1e6 / k["srtt_median_s"], 1),
                    "episodes": k["count"], "cuts": k["cuts"], "low_stretch": k["low_stretch"],
                    "total_retrans": info["total_retrans"], "snd_mss": info["snd_mss"]})
    return out


def offload_problems(cfg, res):
    """The run fails unless the interfaces read back as configured, a flow without
    offload lasts long enough to be called sustained, and, for ECN flows
    behind the marker, the window collapsed without retransmissions (capped_common
    could not be stated otherwise) and the client received at least one CE segment per
    marked GSO packet."""
    o, f = cfg["offload"], res["offload_features"]
    on = lambda dev, feature: f[dev][feature] == "on"
    bad = []
    if on("s-eth0", "tcp-segmentation-offload") != o["tso"] or on("s-eth0", "generic-segmentation-offload") != o["tso"]:
        bad.append(f"s-eth0 reads back {f['s-eth0']}, configured TSO/GSO {o['tso']}")
    if on("c-eth0", "generic-receive-offload") != bool(o["client_gro"]):
        bad.append(f"c-eth0 reads back {f['c-eth0']}, configured GRO {o['client_gro']}")
    for k, c in zip(res["kernel_offload"], res["client"]):
        if not o["tso"] and k["rtts"] < SUSTAINED_RTTS:
            bad.append(f"connection {k['index']}: {k['rtts']} round trips of data, mss-capped "
                       f"needs a sustained transfer of {SUSTAINED_RTTS}")
        if not (cfg.get("mark") and c["tcp_info"]["ecn_negotiated"]):
            continue
        if not collapsed(k["low_stretch"]):
            bad.append(f"connection {k['index']}: the ECN flow's window did not collapse "
                       f"({k['low_stretch']}): capped / window-collapse cannot be asserted")
        if k["total_retrans"]:
            bad.append(f"connection {k['index']}: {k['total_retrans']} retransmissions: whether "
                       "they came before the cap (capped_common retransmission) is not known")
        if not marks(res) <= c["tcp_info"]["received_ce"]:
            bad.append(f"connection {k['index']}: the client received {c['tcp_info']['received_ce']} "
                       f"CE segments, fewer than the {marks(res)} GSO packets the router marked")
    return bad


def offload_verdict(cfg, t, point):
    """(verdict, cap_cause) of connection t's s2c data at `point` (docs/offload.md)."""
    o = cfg["offload"]
    if point == "client":
        return ("coalesced" if o["client_gro"] else "unknown"), None
    if not o["tso"]:
        return "mss-capped", None
    if t["negotiated"] and cfg.get("mark"):
        return "capped", "window-collapse"      # offload_problems checked the collapse
    return "offloaded", None


def s2c_sizes(pcap, server, data_only=True):
    """{stream: [(epoch, tcp.len)]} of the server's data frames (of every frame it sent
    unless data_only), from tshark's own fields."""
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "separator=/t",
                          "-Y", f"ip.src == {server}" + (" && tcp.len > 0" if data_only else ""),
                          "-e", "tcp.stream",
                          "-e", "frame.time_epoch", "-e", "tcp.len"],
                         check=True, text=True, capture_output=True).stdout
    sizes = {}
    for line in out.splitlines():
        stream, when, length = line.split("\t")
        sizes.setdefault(int(stream), []).append((float(when), int(length)))
    return sizes


def size_profile(frames, mss):
    above = [n for _, n in frames if n > mss]
    return {"frames": len(frames), "super_packets": len(above), "max": max(n for _, n in frames),
            "common_super_sizes": collections.Counter(above).most_common(3)}


def check_offload(cfg, res, pcap, truths, point):
    """Sets t["offload"] (expected verdict and cause, measured sizes) and returns the
    problems: super-packets (tcp.len above the announced MSS) must appear in every flow
    where TSO/GSO at the sender or GRO at the receiver makes them and nowhere else, and
    a collapsed window's must stay at <= COLLAPSE_CWND segments from the collapse on."""
    sizes = s2c_sizes(pcap, truths[0]["server"])
    bad = []
    for t in truths:
        verdict, cause = offload_verdict(cfg, t, point)
        k = res["kernel_offload"][t["index"]]
        m = dict(verdict=verdict, cap_cause=cause, **size_profile(sizes[t["index"]], t["mss"]))
        tag = f"{os.path.basename(pcap)} stream {t['index']}"
        if (m["super_packets"] > 0) != (verdict in ("offloaded", "coalesced", "capped")):
            bad.append(f"{tag}: {m['super_packets']} frames above the MSS {t['mss']} (largest "
                       f"{m['max']}), the configuration says {verdict}")
        if cause == "window-collapse" and k["low_stretch"]:
            m["collapse"] = size_profile([x for x in sizes[t["index"]] if x[0] >= k["low_stretch"]["start"]], t["mss"])
            limit = COLLAPSE_CWND * k["snd_mss"]
            if not 0 < m["collapse"]["super_packets"] or m["collapse"]["max"] > limit:
                bad.append(f"{tag}: from the collapse on {m['collapse']}: needs super-packets, "
                           f"none above {COLLAPSE_CWND} x {k['snd_mss']} = {limit}")
        t["offload"] = m
    return bad


def sizes_story(m, point):
    common = ", ".join(f"{n} B x {c}" for n, c in m["common_super_sizes"])
    return (f"the {point}'s capture (tshark tcp.len) holds {m['frames']} server data frames, "
            f"{m['super_packets']} of them above the MSS, largest {m['max']} B"
            + (f" (most common: {common})" if common else ""))


def offload_story(cfg, k, verdict):
    """Why a connection's verdict follows from the configuration (k: the server's samples)."""
    o = cfg["offload"]
    if verdict == "offloaded":
        return ("TSO/GSO on the server's veth s-eth0 (ethtool -k reads it back): its stack hands "
                "the veth GSO packets, which the router's egress (offloads off) cuts into "
                "segments; captured at the sender, before that: offloaded")
    if verdict == "mss-capped":
        return ("TSO and GSO off on the server's veth s-eth0 (ethtool -K s-eth0 tso off gso off, "
                "read back): its stack hands the veth single segments; a sustained transfer "
                f"(server cwnd up to {k['cwnd_max']} segments over {k['rtts']:g} median round "
                "trips) captured at the sender: mss-capped")
    if verdict == "coalesced":
        return ("captured at the receiver, whose veth c-eth0 has GRO on with gro_flush_timeout "
                f"{o['client_gro']} us: MSS-sized segments arrive (the router's egress segments "
                "in software) and GRO merges those that arrive within the timeout before "
                "tcpdump's tap: coalesced, whatever the sender does (its TSO/GSO is "
                f"{'on' if o['tso'] else 'off'} here)")
    if verdict == "unknown":
        return ("captured at the receiver, whose veth c-eth0 has GRO off: only MSS-sized "
                "segments arrive (the router's egress cut the server's GSO packets in "
                "software), so nothing shows the sender's offload: unknown")
    low = k["low_stretch"]
    return (f"ECN negotiated and the router marks CE on {cfg['mark']:.0%} of the ECT packets: "
            f"the server's samples show cwnd <= {low['cwnd_max']} for {low['ms']:g} ms = "
            f"{low['rtts']:g} median RTTs (cwnd never above {k['cwnd_max']}), ECE in "
            f"{low['whole_rtts_with_ce_echo']} of those round trips; a GSO packet holds at most "
            "what the window allows and about 1 ms of the pacing rate (tcp_tso_autosize, at "
            "least tcp_min_tso_segs = 2 segments), so from the collapse on its super-packets "
            f"stay at <= {COLLAPSE_CWND} MSS: capped by a collapsing window, cap_cause "
            "window-collapse")


def offload_expect(cfg, k, t, point, e, why):
    """The s2c offload verdict of connection t at `point`; k: the server's samples."""
    m = t["offload"]
    e["tcpdiag.offload.dir"] = "s2c"
    e["tcpdiag.offload.verdict"] = m["verdict"]
    why.append(offload_story(cfg, k, m["verdict"]))
    why.append(sizes_story(m, point))
    if m["cap_cause"]:
        e["tcpdiag.offload.cap_cause"] = m["cap_cause"]
        why.append(f"from the collapse's first sample on: {sizes_story(m['collapse'], point)}")


def senders_expect(truths):
    """The server's host verdict (Lua tcpdiag.sender.*, on the first packet of each of its
    flows) from the flows' expected verdicts, by docs/offload.md."""
    verdicts = [t["offload"]["verdict"] for t in truths]
    off = verdicts.count("offloaded")
    capped = [t for t in truths if t["offload"]["verdict"] in CAPPED]
    mixed = bool(off and capped)
    e = {"tcpdiag.sender.offload": None}
    why = [f"the server's flows are {', '.join(verdicts)}"]
    if mixed:
        ecn = all(t["negotiated"] for t in capped) and not all(
            t["negotiated"] for t in truths if t["offload"]["verdict"] == "offloaded")
        e = {"tcpdiag.sender.offload": "mixed", "tcpdiag.sender.offloaded_flows": off,
             "tcpdiag.sender.capped_flows": len(capped),
             "tcpdiag.sender.capped_common": "ecn" if ecn else "nothing"}
        why.append("some offloaded and some capped: mixed; " + (
            "only the capped flows negotiated ECN (client TCP_INFO): ecn" if ecn else
            "ECN does not separate them") + "; every flow goes to the same client "
            f"{truths[0]['client']}, so destination is not theirs alone; the server's kernel "
            "counted no retransmission on the capped flows, so not retransmission")
    elif len(capped) > 1:
        e = {"tcpdiag.sender.offload": "all-capped", "tcpdiag.sender.offloaded_flows": 0,
             "tcpdiag.sender.capped_flows": len(capped), "tcpdiag.sender.capped_common": None}
        why.append("every flow capped: all-capped, a host verdict")
    elif off:
        e = {"tcpdiag.sender.offload": "all-offloaded", "tcpdiag.sender.offloaded_flows": off,
             "tcpdiag.sender.capped_flows": 0, "tcpdiag.sender.capped_common": None}
        why.append("every flow offloaded: all-offloaded")
    else:
        why.append("none offloaded or capped: unknown, no tcpdiag.sender fields")
    flows = [{"select": {"tcp.stream": t["index"]},
              "expect": {"tcpdiag.sender.offload_unused":
                         1 if mixed and t["offload"]["verdict"] in CAPPED and not t["offload"]["cap_cause"]
                         else None}}
             for t in truths]
    why.append("the Note tcpdiag.sender.offload_unused on the first packet of each capped flow "
               "exactly when the sender is mixed and the flow itself does not explain its cap (a "
               "collapsing window, whose TCP_INFO the lab checked, is the flow's own diagnosis)")
    return [{"sender": truths[0]["server"], "why": "; ".join(why), "expect": e, "flows": flows}]


# ----------------------------------------------------------------------------------
# Host stall (host-stall*): the server falls silent as a whole (the drop), or each of
# its flows at its own time (the control's application pauses)
# ----------------------------------------------------------------------------------
STALL_FIELDS = ("tcpdiag.host.stall", "tcpdiag.host.stall_flows_hit",
                "tcpdiag.host.stall_duration", "tcpdiag.host.stall_start")


def silences(cfg):
    """host-stall*: the scenario makes the server, or each of its flows, fall silent."""
    return "stall" in cfg or "long_pause" in cfg


def measure_silence(pcap, server):
    """The server's silences in a capture, from tshark's own fields (epoch seconds): the
    longest gap between consecutive frames it sent on any flow (the host's), and per
    flow its own longest gap and its first frame and first data frame from the end of
    the host's gap on."""
    frames = s2c_sizes(pcap, server, data_only=False)
    longest = lambda ts: max(zip(ts, ts[1:]), key=lambda g: g[1] - g[0])
    h0, h1 = longest(sorted(t for fl in frames.values() for t, _ in fl))
    flows = []
    for stream, fl in sorted(frames.items()):
        g0, g1 = longest([t for t, _ in fl])
        after = [(t, n) for t, n in fl if t >= h1]
        flows.append({"stream": stream, "gap_start": g0, "gap_end": g1, "gap_s": round(g1 - g0, 6),
                      "data_before": sum(1 for t, n in fl if t <= h0 and n),
                      "resumed": after[0][0] if after else None,
                      "data_resumed": next((t for t, n in after if n), None)})
    return {"host_gap_start": h0, "host_gap_end": h1, "host_gap_s": round(h1 - h0, 6), "flows": flows}


def path_times(cfg, point):
    """(the largest round trip, as for irtt; the one-way delay from the server to
    `point`) in seconds."""
    return ((2 * sum(cfg["delay"]) + IRTT_SLACK_MS) / 1000,
            vantage_truth(point, cfg["delay"])[3] / 2 / 1000)


def stall_bounds(cfg, res, point):
    """What the drop's log allows at `point` (epoch seconds) for the server's silence:
    its start, its duration, and each flow's first frame after it.

    While the rule is in, every transmission fails in OUTPUT (-EPERM, so the kernel
    backs off as after a loss): ACKs for what was already on the wire still come in,
    and once a flow has nothing in flight its probe timer (its retransmission timer if
    anything is still unacked) keeps retrying with intervals RTO, 2 RTO, 4 RTO, ...,
    counted from t0, the first failure, which is after the drop began (>= add_before).
    Each interval may end up to TIMER_SLACK of itself late: the timer wheel rounds an
    expiry up to its level's granularity, at most 1/8 of the timeout (HZ=250: 32 ms
    from 256 ms on, 256 ms from 2.048 s on). The first retry after the lift ends the
    interval pending then, 2^k RTO: the intervals before it, at least 2^k RTO - RTO,
    all ended before del_after, so 2^k RTO <= del_after - t0 + RTO, and that retry
    comes before del_after + (1 + TIMER_SLACK) (del_after - add_before + RTO). The last
    frame before the silence is at most one round trip before the drop (a paced flow
    sends every few ms; anything that sends at all does within an RTT); the silence is
    certain from add_after to del_before. STALL_ALLOWANCE covers tcpdump's tap (just
    after OUTPUT, microseconds), a jiffy (4 ms) of timer rounding and the delay lines
    (10.1-11.1 ms per 10 ms segment: frames one way apart by up to ~2 ms more or less).
    RTO: the largest tcpi_rto the server reported at the end of its connections
    (srtt + rttvar, rttvar at least tcp_rto_min = 200 ms); the path is the same before
    the drop."""
    s = res["stall"]
    a = STALL_ALLOWANCE
    rtt_max, ow = path_times(cfg, point)
    rto = max(x["tcp_info"]["rto"] for x in res["server"]) / 1e6
    pending = (1 + TIMER_SLACK) * (s["del_after"] - s["add_before"] + rto)
    return {"start": (s["add_before"] - rtt_max - a + ow, s["add_after"] + a + ow),
            "duration": (s["del_before"] - s["add_after"] - a,
                         s["del_after"] - s["add_before"] + pending + rtt_max + a),
            "resume": (s["del_before"] + ow, s["del_after"] + pending + a + ow),
            "rtt_max": rtt_max, "one_way": ow, "rto": rto}


def stall_problems(cfg, res, m, point, pcap):
    """host-stall: the capture's longest server silence is the drop, within its bounds,
    after data from every flow, and every flow sends data again after it; every
    connection began before the drop and ended after it (generator logs). Control: the
    server is never silent for more than CONTROL_GAP_MAX, each flow's longest silence
    is its application's pause, ending when the pause did, and the server kernel had
    data queued or in flight (tcpi_busy_time) for at most CONTROL_BUSY_MAX of the flow."""
    tag = os.path.basename(pcap)
    inside = lambda x, r: x is not None and r[0] <= x <= r[1]
    bad = []
    if "stall" in cfg:
        s, b = res["stall"], stall_bounds(cfg, res, point)
        if not (inside(m["host_gap_start"], b["start"]) and inside(m["host_gap_s"], b["duration"])):
            bad.append(f"{tag}: longest server silence {m['host_gap_s']} s from {m['host_gap_start']}, "
                       f"bounds {b}")
        for f in m["flows"]:
            if is_late(cfg, f["stream"]):
                continue
            if not f["data_before"] or not inside(f["resumed"], b["resume"]) or f["data_resumed"] is None:
                bad.append(f"{tag} stream {f['stream']}: not mid-transfer across the silence: {f}")
        for c in res["client"]:
            if is_late(cfg, c["index"]):
                continue
            if not c["start"] < s["add_before"] < s["del_after"] < c["end"]:
                bad.append(f"connection {c['index']} ran from {c['start']} to {c['end']}, the drop "
                           f"from {s['add_before']} to {s['del_after']}")
        return bad
    if m["host_gap_s"] > CONTROL_GAP_MAX:
        bad.append(f"{tag}: the server was silent for {m['host_gap_s']} s from {m['host_gap_start']}")
    rtt_max, ow = path_times(cfg, point)
    for f, srv in zip(m["flows"], res["server"]):
        p = srv["long_pause"]
        # The burst written just before the pause may still be leaving (<= 2 round trips
        # at the initial window); the first write after it goes out at once.
        if not (inside(f["gap_end"] - ow, (p["end"], p["end"] + STALL_ALLOWANCE)) and
                f["gap_s"] >= p["end"] - p["start"] - 2 * rtt_max - STALL_ALLOWANCE):
            bad.append(f"{tag} stream {f['stream']}: longest silence {f}, the pause {p}")
        if srv["tcp_info"]["busy_time"] / 1e6 > CONTROL_BUSY_MAX * (srv["end"] - srv["first_write"]):
            bad.append(f"connection {srv['index']}: busy_time {srv['tcp_info']['busy_time']} us "
                       f"over {srv['end'] - srv['first_write']:.3f} s: not application-limited")
    return bad


def is_late(cfg, index):
    """Whether connection `index` is the scenario's late one (the last)."""
    return bool(cfg.get("late")) and index == len(cfg["client_ecn"]) - 1


def late_problems(cfg, res):
    """host-stall-late-syn*, from the generators' logs (CLOCK_REALTIME): with the drop, the
    late connect() began while the rule was certainly in, its handshake completed only
    after the rule was deleted, in less than the 2 s stall threshold (else the run would
    not test a wait shorter than it), and took at least half of the connection's life
    (connect to EOF): the silence held it for most of it. The control: the handshake took
    one round trip (no SYN retry), and every other connection was still transferring."""
    c = res["client"][-1]
    rtt_max = path_times(cfg, "client")[0]
    bad = []
    if "stall" in cfg:
        s = res["stall"]
        answered = c["start"] + c["connect_s"]
        if not (s["add_after"] < c["start"] < s["del_before"] and answered > s["del_before"]):
            bad.append(f"late connection: connect() from {c['start']:.6f} to {answered:.6f}, the rule in "
                       f"from {s['add_after']:.6f} to {s['del_before']:.6f}")
        if not 0.5 * c["duration_s"] <= c["connect_s"] < 2.0:
            bad.append(f"late connection: connect() took {c['connect_s']:.3f} s of {c['duration_s']:.3f} s")
        return bad
    if c["connect_s"] > rtt_max:
        bad.append(f"late connection: connect() took {c['connect_s']:.3f} s, more than a round trip")
    for o in res["client"][:-1]:
        if not (o["start"] < c["start"] and c["end"] < o["end"]):
            bad.append(f"connection {o['index']} ({o['start']:.6f}-{o['end']:.6f}) did not span the late "
                       f"one ({c['start']:.6f}-{c['end']:.6f})")
    return bad


def late_stall_why(res, t, m, why):
    """Why the late connection waited in the stall: its connect() inside the drop."""
    c, s = res["client"][t["index"]], res["stall"]
    why.append(f"this connection's connect() began at {c['start']:.6f} (generator log), "
               f"{s['del_before'] - c['start']:.3f} s before the rule was deleted; the server's "
               f"SYN-ACK was dropped, and the handshake completed {c['connect_s']:.3f} s after the "
               "connect() began, after the lift (the client's SYN retry 1 s after its first SYN), "
               f"{c['connect_s'] / c['duration_s']:.0%} of its {c['duration_s']:.3f} s from connect to "
               "EOF: it asked inside the silence and waited for the rest of it, which held it for "
               "most of its life (docs/diagnosis.md, host-stall), so it is one of the flows waiting")


def stall_expect(cfg, res, t, point, e, why):
    """The host-stall fields and the diagnosis of connection t at `point`."""
    m = res["silence"][point]
    f = m["flows"][t["index"]]
    e["tcpdiag.diag.cause"] = cfg["diag_cause"]
    if "stall" not in cfg:
        srv = res["server"][t["index"]]
        p = srv["long_pause"]
        window = srv["end"] - srv["first_write"]
        busy = srv["tcp_info"]["busy_time"] / 1e6
        e.update(dict.fromkeys(STALL_FIELDS))
        why.append(f"no drop: the server's writer paused this flow once, from {p['start']:.6f} to "
                   f"{p['end']:.6f} (CLOCK_REALTIME, generator log: {p['end'] - p['start']:.3f} s, "
                   f"{p['start'] - srv['first_write']:.3f} s after its first write, after "
                   f"{p['after_bytes']} bytes); the {len(res['server'])} pauses begin "
                   f"{', '.join(map(str, cfg['long_pause'][1]))} s after each flow's first write, "
                   "the last after the first has ended, so some flow is sending at every moment; "
                   f"this capture's longest silence of the server across all flows is "
                   f"{m['host_gap_s'] * 1000:.0f} ms (tshark; the run fails above "
                   f"{CONTROL_GAP_MAX * 1000:.0f} ms), this flow's own {f['gap_s']:.3f} s: the host "
                   "never fell silent, so no host-stall fields")
        why.append(f"diag.cause {cfg['diag_cause']}: besides the pause the writer sends "
                   f"{cfg['burst'][0]} bytes at a time {cfg['burst'][1]:g} s apart; the server "
                   f"kernel's tcpi_busy_time (data queued or in flight) is {busy:.3f} s of the "
                   f"{window:.3f} s from the first write to the client's FIN ({busy / window:.0%}), "
                   "the rest the application had nothing to send; no loss, bottleneck, pacing or "
                   "buffer limit is configured")
        return
    s, b = res["stall"], stall_bounds(cfg, res, point)
    server, n = t["server"], len(res["client"])
    e["tcpdiag.host.stall"] = server
    e["tcpdiag.host.stall_flows_hit"] = n
    e["tcpdiag.host.stall_duration"] = {"min": round(b["duration"][0], 6), "max": round(b["duration"][1], 6)}
    e["tcpdiag.host.stall_start"] = {"min": round(b["start"][0], 6), "max": round(b["start"][1], 6)}
    c = res["client"][t["index"]]
    if is_late(cfg, t["index"]):
        late_stall_why(res, t, m, why)
    why.append(f"the server's namespace dropped everything {server} sent (iptables-legacy -A OUTPUT "
               f"-j DROP; the rule counted {s['dropped_packets']} packets): added between "
               f"{s['add_before']:.6f} and {s['add_after']:.6f}, deleted between {s['del_before']:.6f} "
               f"and {s['del_after']:.6f} (CLOCK_REALTIME read around the commands, tcpdump's clock); "
               + (f"the {n - 1} other connections were mid-transfer and waited on {server}, and the "
                  "late one asked inside the silence (above)" if cfg.get("late") else
                  f"all {n} connections were mid-transfer and each waited on {server}")
               + f" (generator: this one from {c['start']:.6f} to its last byte at {c['end']:.6f}): "
               f"stall on every packet, flows_hit {n}")
    why.append(f"stall_duration: at least the span the rule was certainly in, {s['del_before'] - s['add_after']:.3f} s, "
               f"less {STALL_ALLOWANCE * 1000:.0f} ms; at most (del_after - add_before) + "
               f"{1 + TIMER_SLACK:g} x (del_after - add_before + RTO) + one round trip "
               f"{b['rtt_max'] * 1000:.0f} ms + {STALL_ALLOWANCE * 1000:.0f} ms, RTO "
               f"{b['rto'] * 1000:.0f} ms (the server's largest tcpi_rto): the flows' sends fail "
               "from the drop on and are retried on timers backing off from RTO (intervals RTO, "
               "2 RTO, 4 RTO, ... from the first failure, each up to 1/8 late on the timer "
               "wheel), so the interval pending at the lift is at most (del_after - add_before + "
               "RTO) and ends up to 1/8 of it late; the last frame before the silence is at most "
               "one round trip before the drop")
    why.append(f"stall_start: the last frame before the silence, within [add_before - round trip - "
               f"{STALL_ALLOWANCE * 1000:.0f} ms, add_after + {STALL_ALLOWANCE * 1000:.0f} ms]"
               + (f" plus the {b['one_way'] * 1000:.0f} ms one-way delay from the server to the {point}"
                  if b["one_way"] else " (captured at the server itself)"))
    why.append(f"this capture (tshark, the self-check): the server silent from {m['host_gap_start']:.6f} "
               f"for {m['host_gap_s']:.3f} s; this flow sent data again at {f['data_resumed']:.6f}")
    why.append(f"diag.cause {cfg['diag_cause']}: a host stall with {n} waiting flows, first in "
               "docs/diagnosis.md's order (it explains the idle application the other analyses see)")


OPTS_ALL = "mss,wscale,sack_perm,ts"


def opts_expect(cfg, t, e, why):
    o = t["opts"]
    c = t["conn"]
    i = t["index"]
    e["tcpdiag.opts.client"] = OPTS_ALL if o["client_offers"] else "mss"
    e["tcpdiag.opts.server"] = OPTS_ALL if o["server_offers"] else "mss"
    why.append(f"connection {i + 1}: client tcp_window_scaling = tcp_sack = tcp_timestamps = "
               f"{cfg['client_opts'][i]} (read back by the generator before connect()), so its "
               "SYN offers " + ("MSS, window scale, SACK-permitted and timestamps" if o["client_offers"]
                                else "MSS only"))
    if not cfg["server_opts"]:
        why.append("server tcp_window_scaling = tcp_sack = tcp_timestamps = 0: its SYN-ACK "
                   "carries MSS only")
    elif o["client_offers"]:
        why.append("server sysctls all 1: its SYN-ACK echoes all of them")
    else:
        why.append("server sysctls all 1, but Linux announces wscale, SACK-permitted and "
                   "timestamps in a SYN-ACK only when the SYN offered them: the SYN-ACK carries "
                   "MSS only (the self-check sees exactly that in tcp.options)")
    yn = "yes" if o["used"] else "no"
    e["tcpdiag.opts.wscale_used"] = e["tcpdiag.opts.sack_used"] = e["tcpdiag.opts.ts_used"] = yn
    e["tcpdiag.opts.missing"] = "none" if o["used"] else "wscale,sack,ts"
    e["tcpdiag.opts.left_out_by_client"] = "none" if o["client_offers"] else "wscale,sack,ts"
    e["tcpdiag.opts.left_out_by_server"] = "none" if o["server_offers"] else "wscale,sack,ts"
    why.append(f"client TCP_INFO options={c['tcp_info']['options']} (TS/SACK/WSCALE bits "
               f"{'set' if o['used'] else 'clear'}): wscale, sack and ts "
               + ("all agreed" if o["used"] else "all missing"))
    if o["used"]:
        e["tcpdiag.opts.client_wscale"] = o["client_wscale"]
        e["tcpdiag.opts.server_wscale"] = o["server_wscale"]
        why.append(f"client TCP_INFO rcv_wscale {o['client_wscale']} (the client's shift) and "
                   f"snd_wscale {o['server_wscale']} (the server's)")
    else:
        e["tcpdiag.opts.server_wscale"] = None
        if o["client_offers"]:
            e["tcpdiag.opts.client_wscale"] = {"min": 1, "max": 14}
            why.append("the client announced a shift (TCP_INFO reports none once scaling was "
                       "not agreed, so only its presence is asserted)")
        else:
            e["tcpdiag.opts.client_wscale"] = None
    e["tcpdiag.opts.default_mss"] = None
    e["tcpdiag.opts.ts_stripped"] = None
    why.append("both SYN and SYN-ACK carry MSS, so no default MSS; nothing on the path touches "
               "TCP options, so no timestamp stripping")
    if o["used"]:
        for k in ("window_ceiling", "ceiling_throughput", "at_ceiling"):
            e["tcpdiag.opts." + k] = None
        return
    rtt = 2 * sum(cfg["delay"]) / 1000
    lo_rtt, hi_rtt = 0.95 * rtt, rtt + 0.005
    ceiling = WINDOW_CEILING / rtt
    e["tcpdiag.opts.window_ceiling"] = WINDOW_CEILING
    e["tcpdiag.opts.ceiling_throughput"] = {"min": round(WINDOW_CEILING / hi_rtt),
                                            "max": round(WINDOW_CEILING / lo_rtt)}
    why.append(f"no window scaling: a receiver offers at most {WINDOW_CEILING} bytes (for the "
               "download this is the client's window: scaling applies only when both sides "
               f"announce it); ceiling = {WINDOW_CEILING} / handshake RTT, configured "
               f"{rtt * 1000:g} ms -> {ceiling:.0f} B/s, asserted for a handshake RTT of "
               f"{lo_rtt * 1000:g}-{hi_rtt * 1000:g} ms (the self-check measures it in the capture)")
    tp = c["throughput_Bps"]
    if tp >= 0.8 * ceiling:
        e["tcpdiag.opts.at_ceiling"] = "yes"
        why.append(f"the generator measured {tp:.0f} B/s ({c['bytes']} bytes in "
                   f"{c['duration_s']:.3f} s, connect() to EOF) = {tp / ceiling:.2f} x the "
                   f"ceiling, >= 0.8 x {ceiling:.0f} = {0.8 * ceiling:.0f} B/s: at_ceiling yes")
    else:
        why.append(f"the generator measured {tp:.0f} B/s = {tp / ceiling:.2f} x the ceiling "
                   f"{ceiling:.0f} B/s, below 0.8: at_ceiling not asserted")


def hosts_expect(cfg, res, truths):
    if cfg.get("midflow"):
        return []
    client = truths[0]["client"]
    n = len(truths)
    req = sum(t["requested"] for t in truths)
    neg = sum(t["negotiated"] for t in truths)
    e = {"tcpdiag.host.conns": n, "tcpdiag.host.ecn_negotiated": neg}
    why = [f"the generator opened {n} connection(s) from {client}, {neg} negotiated ECN "
           "(client TCP_INFO)"]
    if not cfg.get("blackhole"):
        e["tcpdiag.host.ecn_requested"] = req
        e["tcpdiag.host.ecn_share"] = f"{req} of {n} requested ECN"
        why.append(f"tcp_ecn=1 for {req} of them")
    else:
        why.append("ecn_requested not asserted: the one connection sent an ECN SYN and then "
                   "fell back, which 'requested' may count either way")
    if truths[0].get("opts"):
        miss = sum(not t["opts"]["client_offers"] for t in truths)
        e["tcpdiag.host.opts_missing_conns"] = miss
        why.append(f"{miss} of the {n} client SYNs offered no wscale, sack or ts (client "
                   "tcp_window_scaling = tcp_sack = tcp_timestamps = 0 for them)"
                   + ("" if n > 1 else "; opts_share not asserted for a single connection"))
        if n > 1:
            e["tcpdiag.host.opts_share"] = f"{miss} of {n} connections sent SYNs without wscale, sack or ts"
    slow = res.get("slowdown")
    if slow:
        why.append(slow["why"])
        if slow.get("min"):
            e["tcpdiag.host.ecn_slowdown"] = {"min": slow["min"]}
    return [{"client": client, "why": "; ".join(why), "expect": e}]


def measure_slowdown(res):
    """The client's ECN flows against its other flows to the same server (like with
    like: two servers may run different congestion controls), per server that got both
    kinds from the client; the client's slowdown is its slowest server's."""
    by_server = {}
    for c in res["client"]:
        by_server.setdefault(c["remote"][0], ([], []))[bool(c["tcp_info"]["ecn_negotiated"])].append(c)
    pairs = []
    for server, (other, ecn) in sorted(by_server.items()):
        if ecn and other:
            ecn_tp = statistics.median(c["throughput_Bps"] for c in ecn)
            other_tp = statistics.median(c["throughput_Bps"] for c in other)
            pairs.append(dict(server=server, ecn_flows=len(ecn), other_flows=len(other),
                              ecn_median_duration_s=statistics.median(c["duration_s"] for c in ecn),
                              other_median_duration_s=statistics.median(c["duration_s"] for c in other),
                              ecn_median_throughput_Bps=ecn_tp, other_median_throughput_Bps=other_tp,
                              ratio=other_tp / ecn_tp))
    if not pairs:
        return None
    worst = max(pairs, key=lambda p: p["ratio"])
    s = dict(worst, servers=pairs)
    ratio, where = worst["ratio"], (f" to {worst['server']}" if len(by_server) > 1 else "")
    if ratio >= 2:
        s["min"] = round(0.5 * ratio, 2)
        s["why"] = (f"the generator measured (connect to EOF) median throughput "
                    f"{worst['other_median_throughput_Bps']:.0f} B/s for the non-ECN flows{where} and "
                    f"{worst['ecn_median_throughput_Bps']:.0f} B/s for its {worst['ecn_flows']} ECN "
                    f"flow(s), ratio {ratio:.2f}; asserted as at least half of it, since "
                    "capture-based durations differ from the generator's")
    else:
        s["why"] = (f"measured ratio {ratio:.2f} < 2, so ecn_slowdown is not asserted")
    return s


# ----------------------------------------------------------------------------------
# Sanity check of each pcap against the ground truth, with tshark's own TCP/IP fields
# ----------------------------------------------------------------------------------
def tshark_rows(pcap, v):
    ecn_field = "ip.dsfield.ecn" if v == 4 else "ipv6.tclass.ecn"
    src_field = "ip.src" if v == 4 else "ipv6.src"
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "separator=/t",
                          "-e", "frame.time_relative", "-e", "tcp.stream", "-e", src_field,
                          "-e", "tcp.srcport", "-e", "tcp.dstport", "-e", "tcp.flags.syn",
                          "-e", "tcp.flags.ack", "-e", "tcp.flags.ece", "-e", "tcp.flags.cwr",
                          "-e", ecn_field, "-e", "tcp.len", "-e", "tcp.options.mss_val"],
                         check=True, text=True, capture_output=True).stdout
    rows = []
    for line in out.splitlines():
        f = line.split("\t")
        rows.append(dict(t=float(f[0]), stream=int(f[1]), src=f[2], sport=int(f[3]),
                         dport=int(f[4]), syn=f[5] in ("1", "True"), ack=f[6] in ("1", "True"),
                         ece=f[7] in ("1", "True"), cwr=f[8] in ("1", "True"),
                         ecn=int(f[9], 0), len=int(f[10]), mss=int(f[11]) if f[11] else None))
    return rows


def check_pcap(cfg, res, pcap, truths, point):
    """Returns a list of problems (empty when the capture shows what the config says)."""
    v = cfg.get("ip", 4)
    rows = tshark_rows(pcap, v)
    bad = []
    streams = sorted({r["stream"] for r in rows})
    if streams != list(range(len(truths))):
        bad.append(f"streams {streams}, expected 0..{len(truths) - 1}")
    for t in truths:
        fl = [r for r in rows if r["stream"] == t["index"]]
        s2c_data = [r for r in fl if r["src"] == t["server"] and r["len"] > 0]
        ce = sum(r["ecn"] == 3 for r in s2c_data)
        ect = sum(r["ecn"] in (1, 2) for r in s2c_data)
        got = sum(r["len"] for r in s2c_data)
        tag = f"{os.path.basename(pcap)} stream {t['index']}"
        if cfg.get("midflow"):
            if any(r["syn"] for r in fl):
                bad.append(f"{tag}: a SYN was captured")
            if not ect:
                bad.append(f"{tag}: no ECT data (ECN was negotiated)")
            if got >= cfg["bytes"]:
                bad.append(f"{tag}: the capture holds the whole transfer, not its middle")
            continue
        syns = [r for r in fl if r["syn"] and not r["ack"]]
        synacks = [r for r in fl if r["syn"] and r["ack"]]
        if not syns or not synacks:
            bad.append(f"{tag}: handshake missing")
            continue
        if syns[0]["sport"] != t["client_port"] or syns[0]["src"] != t["client"]:
            bad.append(f"{tag}: SYN from {syns[0]['src']}:{syns[0]['sport']}, log says "
                       f"{t['client']}:{t['client_port']}")
        if (syns[0]["ece"] and syns[0]["cwr"]) != t["requested"]:
            bad.append(f"{tag}: first SYN ECE/CWR = {syns[0]['ece']}/{syns[0]['cwr']}")
        if t["outcome"] == "fallback":
            if len(syns) < 2 or syns[-1]["ece"] or syns[-1]["cwr"]:
                bad.append(f"{tag}: no SYN retry without ECN flags")
            elif syns[-1]["t"] - syns[0]["t"] < 0.9:
                bad.append(f"{tag}: SYN retry after {syns[-1]['t'] - syns[0]['t']:.3f} s")
        if (synacks[-1]["ece"] and not synacks[-1]["cwr"]) != t["negotiated"]:
            bad.append(f"{tag}: SYN-ACK ECE/CWR does not match negotiated={t['negotiated']}")
        if any(r["ecn"] != 0 for r in syns + synacks):
            bad.append(f"{tag}: SYN or SYN-ACK not Not-ECT")
        if syns[-1]["mss"] != t["mss"] or synacks[-1]["mss"] != t["mss"]:
            bad.append(f"{tag}: MSS {syns[-1]['mss']}/{synacks[-1]['mss']} != {t['mss']}")
        if got < conn_cfg(cfg, t["index"])["bytes"]:
            bad.append(f"{tag}: only {got} payload bytes server->client")
        if any(r["len"] > 0 for r in fl if r["src"] == t["client"]):
            bad.append(f"{tag}: client sent payload")
        if t["s2c_data"] == "ect" and not ect:
            bad.append(f"{tag}: no ECT/CE data")
        if t["s2c_data"] != "ect" and (ect or ce):
            bad.append(f"{tag}: ECT/CE data where none expected")
        if ce != t["ce"]:
            bad.append(f"{tag}: {ce} CE data segments, router counter says {t['ce']}")
        if ce_marker(cfg) and t["negotiated"] and t["downstream"] and t["ce"] < 1:
            bad.append(f"{tag}: the marker never fired (random); run again")
    return bad


def check_opts(cfg, pcap, truths):
    """Handshake options and their effect, from tshark's own fields: SYN / SYN-ACK option
    kinds, wscale shift, SACK-permitted, timestamps on every segment exactly when agreed,
    windows never above 65535 without scaling (and above it with scaling, for the client
    that receives the download), handshake RTT within the asserted range."""
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "separator=/t",
                          "-e", "frame.time_relative", "-e", "tcp.stream", "-e", "ip.src",
                          "-e", "tcp.flags.syn", "-e", "tcp.flags.ack", "-e", "tcp.option_kind",
                          "-e", "tcp.options.wscale.shift", "-e", "tcp.options.sack_perm",
                          "-e", "tcp.options.timestamp.tsval", "-e", "tcp.window_size"],
                         check=True, text=True, capture_output=True).stdout
    rows = []
    for line in out.splitlines():
        f = line.split("\t")
        rows.append(dict(t=float(f[0]), stream=int(f[1]), src=f[2], syn=f[3] in ("1", "True"),
                         ack=f[4] in ("1", "True"), kinds=[int(k) for k in f[5].split(",") if k],
                         shift=int(f[6]) if f[6] else None, sack_perm=bool(f[7]),
                         ts=bool(f[8]), win=int(f[9])))
    bad = []
    rtt = 2 * sum(cfg["delay"]) / 1000
    for t in truths:
        o = t["opts"]
        tag = f"{os.path.basename(pcap)} stream {t['index']}"
        fl = [r for r in rows if r["stream"] == t["index"]]
        syn = [r for r in fl if r["syn"] and not r["ack"]]
        sa = [r for r in fl if r["syn"] and r["ack"]]
        if len(syn) != 1 or len(sa) != 1:
            bad.append(f"{tag}: {len(syn)} SYN, {len(sa)} SYN-ACK")
            continue
        syn, sa = syn[0], sa[0]
        for who, r, offers, shift in (("SYN", syn, o["client_offers"], o["client_wscale"]),
                                      ("SYN-ACK", sa, o["server_offers"], o["server_wscale"])):
            want = {2, 3, 4, 8} if offers else {2}
            if set(r["kinds"]) - {1} != want:
                bad.append(f"{tag}: {who} option kinds {r['kinds']}, expected {sorted(want)}")
            if (r["shift"] is not None) != offers or r["sack_perm"] != offers or r["ts"] != offers:
                bad.append(f"{tag}: {who} wscale/sack_perm/ts = {r['shift']}/{r['sack_perm']}/{r['ts']}")
            if shift is not None and r["shift"] != shift:
                bad.append(f"{tag}: {who} shift {r['shift']}, TCP_INFO says {shift}")
        later = [r for r in fl if not r["syn"]]
        if any(r["ts"] != o["used"] for r in later):
            bad.append(f"{tag}: timestamps on {sum(r['ts'] for r in later)} of {len(later)} "
                       f"segments after the handshake, agreed={o['used']}")
        cwin = max((r["win"] for r in later if r["src"] == t["client"]), default=0)
        if not o["used"] and max((r["win"] for r in fl), default=0) > WINDOW_CEILING:
            bad.append(f"{tag}: window above {WINDOW_CEILING} without scaling")
        if o["used"] and cwin <= WINDOW_CEILING:
            bad.append(f"{tag}: client window never above {WINDOW_CEILING} with scaling ({cwin})")
        t["opts"]["client_max_window"] = cwin
        hs = sa["t"] - syn["t"]
        t["opts"]["handshake_rtt_s"] = round(hs, 6)
        if not o["used"] and not 0.95 * rtt <= hs <= rtt + 0.005:    # ceiling_throughput range
            bad.append(f"{tag}: handshake RTT {hs * 1000:.1f} ms outside "
                       f"{0.95 * rtt * 1000:g}-{(rtt + 0.005) * 1000:g} ms")
    return bad


def crossing_problems(cfg, pcap):
    """syn-retry-crossing, from tshark's fields at the client: the client sent its SYN
    twice (same ISN), the first SYN-ACK arrived after the retry but sooner than a round
    trip after it (so it answers the first SYN: its TSecr echoes that SYN's TSval), and
    a second SYN-ACK, the answer to the retry, came about a round trip after it."""
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "separator=/t",
                          "-Y", "tcp.flags.syn == 1", "-e", "frame.time_epoch", "-e", "tcp.flags.ack",
                          "-e", "tcp.seq_raw", "-e", "tcp.options.timestamp.tsval",
                          "-e", "tcp.options.timestamp.tsecr"],
                         check=True, text=True, capture_output=True).stdout
    rows = [line.split("	") for line in out.splitlines()]
    syns = [r for r in rows if r[1] in ("0", "False")]
    synacks = [r for r in rows if r[1] in ("1", "True")]
    rtt = 2 * sum(cfg["delay"]) / 1000
    tag = os.path.basename(pcap)
    if len(syns) != 2 or syns[0][2] != syns[1][2] or len(synacks) < 2:
        return [f"{tag}: {len(syns)} SYNs, {len(synacks)} SYN-ACKs: no retry with the same ISN answered twice"]
    retry, first, second = float(syns[1][0]), float(synacks[0][0]), float(synacks[1][0])
    bad = []
    if not retry < first < retry + 0.95 * rtt or synacks[0][4] != syns[0][3]:
        bad.append(f"{tag}: first SYN-ACK at retry + {first - retry:.3f} s echoing {synacks[0][4]} "
                   f"(first SYN's TSval {syns[0][3]}): it did not cross the retry")
    if not 0.95 * rtt <= second - retry <= rtt + IRTT_SLACK_MS / 1000:
        bad.append(f"{tag}: second SYN-ACK at retry + {second - retry:.3f} s, not a round trip")
    return bad


def reuse_rows(pcap):
    """Every frame of a port-reuse capture with tshark's own fields (no plugin): stream,
    sender, flags, raw sequence number and payload length."""
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "separator=/t",
                          "-e", "frame.number", "-e", "tcp.stream", "-e", "ip.src", "-e", "ipv6.src",
                          "-e", "tcp.srcport",
                          "-e", "tcp.dstport", "-e", "tcp.flags", "-e", "tcp.seq_raw", "-e", "tcp.len"],
                         check=True, text=True, capture_output=True).stdout
    rows = []
    for line in out.splitlines():
        f = line.split("\t")
        flags = int(f[6], 16)
        rows.append(dict(frame=int(f[0]), stream=int(f[1]), src=f[2] or f[3], sport=int(f[4]),
                         dport=int(f[5]), syn=bool(flags & 0x02), ack=bool(flags & 0x10),
                         fin=bool(flags & 0x01), rst=bool(flags & 0x04), seq=int(f[7]), len=int(f[8])))
    return rows


def closing(fl, client):
    """Who ended the connection and how, in capture order: e.g. ["server FIN", "client FIN"]."""
    out = []
    for r in fl:
        who = "client" if r["src"] == client else "server"
        for kind in ("fin", "rst"):
            if r[kind] and f"{who} {kind.upper()}" not in out:
                out.append(f"{who} {kind.upper()}")
    return out


# What the capture shows at the end of a connection for each way of ending (peer.py CLOSES).
CLOSE_SEEN = {"server-fin": ["server FIN", "client FIN"], "server-fin-client-rst": ["server FIN", "client RST"],
              "client-rst": ["client RST"], "client-fin": ["client FIN", "server FIN"]}


def reuse_problems(cfg, res, pcap, truths):
    """port-reuse, from the generators' logs and tshark's fields: every connection came from
    the one configured port, each ended as configured (its FINs and RSTs in the capture), the
    bytes the client read are the bytes the server sent, and what the next SYN met is what
    the close left: after server-fin the server's TIME_WAIT socket answered it (its SYN-ACK's
    ISN is that socket's snd_nxt + 65537, net/ipv4/tcp_minisocks.c, where a listener would
    pick a new one), after client-fin the client's connect() took over its own TIME_WAIT
    (its ISN is the old snd_nxt + 65537; TcpExt TWRecycled counts it), after a RST nothing
    held the pair (both ISNs new). Fills res["reuse"] with one record per connection."""
    r = cfg["reuse"]
    rows = reuse_rows(pcap)
    bad = []
    conns = []
    for t in truths:
        i = t["index"]
        c, sv = res["client"][i], res["server"][i]
        tag = f"{os.path.basename(pcap)} stream {i}"
        close = r["closes"][i]
        if c["local"][1] != r["port"] or sv["remote"][1] != r["port"]:
            bad.append(f"{tag}: client port {c['local'][1]} / {sv['remote'][1]}, configured {r['port']}")
        if not c["bytes"] == sv["bytes"] == cfg["bytes"][i]:
            bad.append(f"{tag}: client read {c['bytes']}, server sent {sv['bytes']}, configured {cfg['bytes'][i]}")
        if c.get("close") != close or sv.get("close") != close:
            bad.append(f"{tag}: close {c.get('close')} / {sv.get('close')}, configured {close}")
        if sv["ended"] != ("reset" if close.endswith("rst") else "eof"):
            bad.append(f"{tag}: the server's read ended with {sv['ended']} after {close}")
        fl = [x for x in rows if x["stream"] == i]
        syn = [x for x in fl if x["syn"] and not x["ack"]]
        sa = [x for x in fl if x["syn"] and x["ack"]]
        if len(syn) != 1 or len(sa) != 1:
            bad.append(f"{tag}: {len(syn)} SYNs, {len(sa)} SYN-ACKs (no retry expected)")
            continue
        seen = closing(fl, t["client"])
        if seen != CLOSE_SEEN[close]:
            bad.append(f"{tag}: closed by {seen}, {close} is {CLOSE_SEEN[close]}")
        ends = lambda a, port: f"[{a}]:{port}" if ":" in a else f"{a}:{port}"     # as ss prints them
        pair = [ends(t["server"], PORT), ends(t["client"], r["port"])]
        if (pair in sv["time_wait_after_close"]) != (close == "server-fin"):
            bad.append(f"{tag}: server TIME_WAIT after {close}: {sv['time_wait_after_close']}")
        after_client_fin = i > 0 and r["closes"][i - 1] == "client-fin"
        if (pair[::-1] in c["time_wait_before_connect"]) != after_client_fin:
            bad.append(f"{tag}: client TIME_WAIT before connect: {c['time_wait_before_connect']}")
        s2c = sum(x["len"] for x in fl if x["src"] == t["server"])
        conns.append(dict(index=i, client_port=c["local"][1], bytes=c["bytes"], close=close,
                          capture_close=seen, client_isn=syn[0]["seq"], server_isn=sa[0]["seq"],
                          syn_frame=syn[0]["frame"], s2c_payload=s2c,
                          server_retrans=sv["tcp_info"]["total_retrans"]))
    for prev, cur in zip(conns, conns[1:]):
        # Sequence space: SYN 1, the payload, FIN 1 (a RST takes none).
        fin = lambda close, side: int(CLOSE_SEEN[close].count(f"{side} FIN"))
        server_nxt = (prev["server_isn"] + 1 + prev["bytes"] + fin(prev["close"], "server")) % 2**32
        client_nxt = (prev["client_isn"] + 1 + fin(prev["close"], "client")) % 2**32
        by_server_tw = cur["server_isn"] == (server_nxt + TW_ISN_STEP) % 2**32
        by_client_tw = cur["client_isn"] == (client_nxt + TW_ISN_STEP) % 2**32
        met = ("server-time-wait" if by_server_tw else "client-time-wait" if by_client_tw else "nothing")
        cur["syn_met"] = met
        if met != REUSE_MEETS[prev["close"]]:
            bad.append(f"stream {cur['index']}: its SYN met {met} (ISNs client {cur['client_isn']}, "
                       f"server {cur['server_isn']}), after {prev['close']} it must meet "
                       f"{REUSE_MEETS[prev['close']]}")
    recycled = sum(REUSE_MEETS[x] == "client-time-wait" for x in r["closes"][:-1])
    if res["tcp_ext"]["client"].get("TWRecycled", 0) != recycled:
        bad.append(f"client TcpExt TWRecycled {res['tcp_ext']['client'].get('TWRecycled', 0)}, "
                   f"{recycled} TIME_WAIT take-overs configured")
    res["reuse"] = conns
    return bad


def reuse_expect(cfg, res, t, e, why):
    """port-reuse: the stream carries exactly the bytes the server sent on that connection
    (docs/fields.md counts retransmissions too: exact when the server's kernel retransmitted
    nothing), and its SYN met what the previous connection's close left."""
    c = res["reuse"][t["index"]]
    size = cfg["bytes"][t["index"]]
    if c["server_retrans"] == 0:
        e["tcpdiag.flow.s2c.bytes"] = size
        why.append(f"the server kernel retransmitted nothing (TCP_INFO total_retrans 0), so "
                   f"s2c.bytes is exactly the {size} bytes it sent, which the client read")
    why.append(f"connection {t['index'] + 1} of {len(cfg['bytes'])} from port {c['client_port']}, "
               f"ended {c['close']}" + (f"; its SYN met {c['syn_met']}" if "syn_met" in c else ""))


def reuse_connections(cfg, res):
    """port-reuse: the ground truth test_port_reuse.py reads, one entry per connection the
    client made, in connect() order (which is Wireshark's tcp.stream order)."""
    out = []
    for c in res["reuse"]:
        why = (f"the client's connection {c['index'] + 1}, from port {c['client_port']}; the server "
               f"sent {c['bytes']} bytes on it (both generators' logs); it ended {c['close']}, "
               f"seen as {', '.join(c['capture_close'])}")
        if "syn_met" in c:
            why += f"; its SYN met {c['syn_met']} (the previous connection's ISNs and this one's)"
        out.append({"tcp.stream": c["index"], "client_port": c["client_port"], "server_port": PORT,
                    "s2c_bytes": c["bytes"], "close": c["close"], "syn_met": c.get("syn_met"),
                    "why": why})
    return out


def capture_flight(pcap, t):
    """Flight and offered window of connection t from tshark's own fields: at every
    server data segment, the highest sequence sent so far minus the highest ack the
    client has sent (at the server's tap this is the sender's flight; at the client's it
    is only what is still on its way to the receiver's ACK), and the client's
    advertised window (tcp.window_size, scaled)."""
    out = subprocess.run(["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "separator=/t",
                          "-Y", f"tcp.stream == {t['index']} && tcp.flags.syn == 0",
                          "-e", "ip.src", "-e", "tcp.seq", "-e", "tcp.len", "-e", "tcp.ack",
                          "-e", "tcp.window_size"],
                         check=True, text=True, capture_output=True).stdout
    hi = acked = 0
    flight, window = [], []
    for line in out.splitlines():
        src, seq, length, ack, win = line.split("\t")
        if src == t["client"]:
            acked = max(acked, int(ack))
            window.append(int(win))
        elif int(length):
            hi = max(hi, int(seq) + int(length))
            flight.append(hi - acked)
    q = lambda xs, f: sorted(xs)[int(f * (len(xs) - 1))]
    return {"flight_max": max(flight), "flight_p50": q(flight, 0.5), "flight_p90": q(flight, 0.9),
            "client_window_p50": q(window, 0.5), "client_window_max": max(window)}


# ----------------------------------------------------------------------------------
def scenario(name):
    cfg = SCENARIOS[name]
    if cfg.get("timebudget"):
        return timebudget.scenario(sys.modules[__name__], name)
    if cfg.get("mech"):
        return mech.scenario(sys.modules[__name__], name)
    if cfg.get("think"):
        return think.scenario(sys.modules[__name__], name)
    tmp = tempfile.mkdtemp(prefix=f"tdlab-{name}-")
    os.chmod(tmp, 0o755)
    try:
        res = do_run(name, cfg, tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise

    problems = []
    for dl in res["delay_lines"]:
        dropped = dl.get("dropped", 0)          # the shaper's queue limit: on purpose
        if dl["kernel_drops"] or dl["send_errors"] or dl["frames_in"] != dl["frames_out"] + dropped:
            problems.append(f"delay line {dl['a']}<->{dl['b']} lost frames: {dl}")
    dropped = sum(dl.get("dropped", 0) for dl in res["delay_lines"])
    if (dropped > 0) != cfg.get("shaper", {}).get("drops", False):
        problems.append(f"the shaper dropped {dropped} frames, the scenario needs "
                        f"{'some' if cfg['shaper'].get('drops') else 'none'}")
    for suffix, st in res["tcpdump"].items():
        if st.get("dropped by kernel", 0):
            problems.append(f"tcpdump{suffix} dropped packets: {st}")
    if cfg.get("blackhole") and res["router_counters"]["blackhole"] != 1:
        problems.append(f"blackhole dropped {res['router_counters']['blackhole']} SYNs, expected 1")
    if res["sysctl"]["client"]["net.ipv4.tcp_ecn_fallback"] != "1":
        problems.append("client tcp_ecn_fallback is not 1")
    if len(res["server"]) != len(res["client"]):
        problems.append(f"the server logged {len(res['server'])} connections, the client "
                        f"{len(res['client'])}")
    for c, s in zip(res["client"], res["server"]):
        if s["remote"][1] != c["local"][1]:
            problems.append(f"the server's accept {s['index']} came from port {s['remote'][1]}, "
                            f"the client's connection {c['index']} from {c['local'][1]}")
    for s in res["server"]:
        if s["cc"] != per_conn(cfg["cc"], s["index"]):
            problems.append(f"connection {s['index']}: server used {s['cc']}, not "
                            f"{per_conn(cfg['cc'], s['index'])}")
        if "flight" in cfg and s["flight"]["dominant"] not in cfg["flight"]:
            problems.append(f"the kernel's dominant flight limit is {s['flight']['dominant']} "
                            f"({s['flight']['shares']}), the scenario needs one of {cfg['flight']}")
    if "bottleneck_drops" in cfg:
        # tc -s prints "(dropped N, overlimits ...)"; the scenario says whether it must drop.
        dropped = int(res["bottleneck_qdisc"].split("dropped ")[1].split(",")[0])
        retrans = sum(s["tcp_info"]["total_retrans"] for s in res["server"])
        want = cfg["bottleneck_drops"]
        if (dropped > 0) != want or (retrans > 0) != want:
            problems.append(f"bottleneck dropped {dropped}, server retransmitted {retrans}: "
                            f"the scenario needs {'loss' if cfg['bottleneck_drops'] else 'none'}")
    if len(res["client"]) > 1:
        res["slowdown"] = measure_slowdown(res)
    if cc_checked(cfg):
        res["kernel_cc"] = kernel_cc(cfg, res, os.path.join(tmp, "tcpinfo.csv.gz"))
        problems += [p for k in res["kernel_cc"] for p in k["problems"]]
        # Without a capture at the server (early-*), the pcap cannot be matched to the samples.
        for k in res["kernel_cc"] if "-server" in res["pcaps"] else []:
            k["wire"] = match_wire(k, res["pcaps"]["-server"], conn_truth(cfg, res, k["index"], "server"))
            if k["wire"]["cuts_answered"] < WIRE_MATCH * k["wire"]["visible_cuts"]:
                problems.append(f"connection {k['index']}: of the kernel's reductions only "
                                f"{k['wire']} have a CWR or retransmission in the server's capture")

    if "cc_id" in cfg:
        problems += ccid.ce_problems(res["client"], marks(res))
        # Per connection, what diagnosis_truth needs from the samples: the lab's own
        # collapse rule (as `collapse` is for cc-cubic-ecn-collapse), and how often a BBR
        # sender's flight really shrank (its loss recovery: see ccid.judge).
        cfg = dict(cfg, collapse=[collapsed(k["low_stretch"]) for k in res["kernel_cc"]],
                   bbr_cuts=[k["ccid"]["cuts"] if k["ccid"]["cc"] == "bbr" else 0
                             for k in res["kernel_cc"]])

    if "offload" in cfg:
        res["kernel_offload"] = kernel_offload(res, os.path.join(tmp, "tcpinfo.csv.gz"))
        problems += offload_problems(cfg, res)
    if cfg.get("late"):
        problems += late_problems(cfg, res)

    outputs = []
    for suffix, point in cfg["captures"].items():
        pcap = res["pcaps"][suffix]
        truths = [conn_truth(cfg, res, i, point) for i in range(len(res["client"]))]
        problems += check_pcap(cfg, res, pcap, truths, point)
        if cfg.get("crossing") and point == "client":
            problems += crossing_problems(cfg, pcap)
        if cfg.get("reuse"):
            problems += reuse_problems(cfg, res, pcap, truths)
        if "flight" in cfg:
            res.setdefault("capture_flight", {})[suffix] = [capture_flight(pcap, t) for t in truths]
        if "offload" in cfg:
            problems += check_offload(cfg, res, pcap, truths, point)
            res.setdefault("offload_check", {})[suffix] = [t["offload"] for t in truths]
        if silences(cfg):
            res.setdefault("silence", {})[point] = measure_silence(pcap, truths[0]["server"])
            problems += stall_problems(cfg, res, res["silence"][point], point, pcap)
        if "client_opts" in cfg:
            problems += check_opts(cfg, pcap, truths)
            res.setdefault("opts_check", {})[suffix or point] = [
                dict(index=t["index"], throughput_Bps=round(t["conn"]["throughput_Bps"]),
                     ceiling_Bps_at_configured_rtt=None if t["opts"]["used"] else
                     round(WINDOW_CEILING / (2 * sum(cfg["delay"]) / 1000)), **t["opts"])
                for t in truths]
        base = f"lab-{name}{suffix}"
        exp = {
            "capture": base + ".pcap",
            "made_by": f"captures/lab/lab.py {name}",
            "story": cfg["story"] + f"; capture: tcpdump -s {SNAPLEN} on "
                     f"{CAPTURE_POINTS[point][1]} ({point})",
            "flow_count": len(truths),
            "flows": [flow_expect(cfg, res, t, point) for t in truths],
            "hosts": hosts_expect(cfg, res, truths),
        }
        if not exp["hosts"]:
            del exp["hosts"]
        if cc_checked(cfg):
            exp["kernel_reductions"] = [reductions_expect(cfg, k) for k in res["kernel_cc"]]
        if "offload" in cfg:
            exp["senders"] = senders_expect(truths)
        if cfg.get("reuse"):
            exp["connections"] = reuse_connections(cfg, res)
        outputs.append((pcap, base, exp))

    os.makedirs(LOGS, exist_ok=True)
    log = {k: v for k, v in res.items() if k != "pcaps"}
    log["config"] = cfg
    log["problems"] = problems
    with open(os.path.join(LOGS, f"{name}.json"), "w") as f:
        json.dump(log, f, indent=1, sort_keys=True)
        f.write("\n")
    if polls_tcpinfo(cfg):
        shutil.copyfile(os.path.join(tmp, "tcpinfo.csv.gz"), os.path.join(LOGS, f"{name}.tcpinfo.csv.gz"))
    if problems:
        print(f"{name}: FAILED, captures left in {tmp}:", *problems, sep="\n  ", file=sys.stderr)
        return False
    for pcap, base, exp in outputs:
        shutil.copyfile(pcap, os.path.join(CAPTURES, base + ".pcap"))
        write_expected(os.path.join(CAPTURES, base + ".expected.json"), exp)
    shutil.rmtree(tmp)
    sizes = ", ".join(f"{b}.pcap {os.path.getsize(os.path.join(CAPTURES, b + '.pcap'))} B"
                      for _, b, _ in outputs)
    print(f"{name}: ok in {res['run_s']} s ({sizes})")
    return True


def write_expected(path, exp):
    with open(path, "w") as f:
        json.dump(exp, f, indent=2)
        f.write("\n")


def diag_scenarios():
    """The scenarios whose expected files diagnosis_truth.add_diag writes: this module's
    own, not timebudget.py's, mech.py's or think.py's (each writes its own causes)."""
    return [n for n, cfg in SCENARIOS.items()
            if not cfg.get("timebudget") and not cfg.get("mech") and not cfg.get("think")]


def rewrite_diag():
    """Sets the diagnosis expectations (diagnosis_truth.add_diag) in the committed expected
    files without a new run, which would replace their pcaps: from the configuration the
    run logged. flow_expect wrote the flows in connection order, each selecting its own
    tcp.stream, with the client port the generator logged; that is checked."""
    for name in diag_scenarios():
        with open(os.path.join(LOGS, f"{name}.json")) as f:
            log = json.load(f)
        for suffix in log["config"]["captures"]:
            path = os.path.join(CAPTURES, f"lab-{name}{suffix}.expected.json")
            with open(path) as f:
                exp = json.load(f)
            if len(exp["flows"]) != len(log["client"]):
                sys.exit(f"{path}: {len(exp['flows'])} flows, the run logged {len(log['client'])}")
            for i, flow in enumerate(exp["flows"]):
                port = flow["expect"].get("tcpdiag.flow.client_port")      # absent in midflow
                if flow["select"] != {"tcp.stream": i} or port not in (None, log["client"][i]["local"][1]):
                    sys.exit(f"{path}: flow {i} is not connection {i} ({flow['select']}, port {port})")
                add_diag(flow, conn_cfg(log["config"], i), i)
            write_expected(path, exp)
    return 0


def main():
    args = sys.argv[1:]
    if args == ["--list"]:
        print("\n".join(SCENARIOS))
        return 0
    if args == ["--rewrite-diag"]:
        return rewrite_diag()
    if os.geteuid() != 0:
        sys.exit("run as root (sudo)")
    if args == ["clean"]:
        teardown()
        return 0
    if len(args) != 1 or args[0] not in SCENARIOS:
        sys.exit(f"usage: {sys.argv[0]} SCENARIO|--list|--rewrite-diag|clean\nscenarios: {' '.join(SCENARIOS)}")
    # SIGTERM/SIGHUP behave like Ctrl-C: unwind through teardown().
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, _frame: sys.exit(128 + signum))
    return 0 if scenario(args[0]) else 1


if __name__ == "__main__":
    sys.exit(main())
