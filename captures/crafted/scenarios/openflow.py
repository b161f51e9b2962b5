"""crafted-openflow.pcap: an OpenFlow connection whose packet-in messages carry
whole Ethernet/IPv4/TCP frames, which Wireshark dissects as packets of their own
(issue 19: the segment is the outer one the TCP dissector saw, not the one inside
its payload)."""

import struct

from scapy.layers.inet import IP, TCP
from scapy.layers.l2 import Ether

from .packets import ACK, PSH, Capture, Conn
from .expected import expect, write_capture

OPENFLOW_PORT = 6653        # IANA's OpenFlow port: Wireshark decodes it as OpenFlow
OFP_VERSION_1_0 = 0x01
OFPT_HELLO, OFPT_PACKET_IN = 0, 10
OFPR_NO_MATCH = 0
NO_BUFFER = 0xFFFFFFFF


def hello(xid):
    return struct.pack(">BBHI", OFP_VERSION_1_0, OFPT_HELLO, 8, xid)


def packet_in(xid, frame, in_port=1):
    """OpenFlow 1.0 ofp_packet_in: header, buffer_id, total_len, in_port, reason,
    one pad byte, then the whole frame the switch received."""
    body = struct.pack(">IHHBx", NO_BUFFER, len(frame), in_port, OFPR_NO_MATCH) + frame
    return struct.pack(">BBHI", OFP_VERSION_1_0, OFPT_PACKET_IN, 8 + len(body), xid) + body


def inner_frame(flags, seq, ack):
    """A frame of a web connection that reached the switch: it travels to the
    controller as data, not as a segment on this wire."""
    return bytes(Ether(src="02:00:00:00:0a:01", dst="02:00:00:00:0a:02") /
                 IP(src="203.0.113.1", dst="203.0.113.2", id=7, ttl=64) /
                 TCP(sport=50000, dport=80, seq=seq, ack=ack, flags=flags, window=64240))


def build_openflow(outdir):
    # Records up to 256 bytes: the inner frame's headers end at byte 138.
    cap = Capture("crafted-openflow", snaplen=256)
    switch, controller = "192.0.2.60", "198.51.100.60"
    c = Conn(cap, 0.0, switch, controller, 40601, sport=OPENFLOW_PORT)
    c.syn()
    c.synack()
    c.third_ack()
    c.emit("c", PSH | ACK, payload=hello(1), dt=1.0)
    c.emit("s", PSH | ACK, payload=hello(1), dt=20.0)
    c.emit("c", PSH | ACK, payload=packet_in(2, inner_frame("S", 1000, 0)), dt=100.0)
    c.emit("s", ACK, dt=20.0)
    c.emit("c", PSH | ACK, payload=packet_in(3, inner_frame("A", 1001, 5001)), dt=100.0)
    c.emit("s", ACK, dt=20.0)
    flows = [expect(c, "not-requested", select={"tcp.stream": 0},
        why="An OpenFlow 1.0 connection from the switch 192.0.2.60 to the controller "
        "198.51.100.60 on port 6653, 9 packets: the handshake, a HELLO each way, and two "
        "packet-in messages (each ACKed) whose data is a whole Ethernet/IPv4/TCP frame of "
        "another connection (203.0.113.1:50000 -> 203.0.113.2:80). Wireshark dissects those "
        "frames as packets of their own (a second TCP layer with its own tcp.stream), but "
        "they travel as the payload of this connection's segments: one flow of 9 packets, "
        "and no flow of the inner connection. The SYN carries no ECN flags. Records are cut "
        "at 256 bytes (snaplen), past the inner frame's headers.",
        cause=("none", "Data flowed after a captured handshake, and the exchange (a few small "
               "messages each way) ends within a few round trips: too short to be slow for "
               "any of the causes."))]
    write_capture(outdir, cap, "OpenFlow over TCP port 6653; packet-in messages carry "
                  "Ethernet/IPv4/TCP frames that Wireshark dissects as inner packets.", flows)
