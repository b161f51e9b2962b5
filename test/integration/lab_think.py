"""The lab's ground truth for issue 37 in captures/lab/think (its README.md): think time,
a slow answer and losses among the pauses, a server that speaks first, the close, outages
seen mid-flow, a LAN bottleneck, a growing queue, SYNs a firewall drops and a long-lived
connection, each at the client, the router and the server; and the captures whose expected
values today's engine misses, with why: the tests mark them as strict xfails, so the day the
engine gets one right its entry must go."""
from tshark import CAPTURES

THINK = CAPTURES / "lab" / "think"
POINTS = ("client", "router", "server")

# pcap: why the engine misses it (the rule at fault), per issue 37's items
THINK_KNOWN_MISSES = {
    "lab-think-queue-grow-server.pcap": "issue 37 item 6: at the server the growing round trips "
    "(55 -> 298 ms) are read as the client's think time (0.94 s) and the interactive flow as none: "
    "the replies queued on their way to the client, and the client's next request, sent at once, "
    "shows only its own leg (its TSval against its arrival), which no queue delayed: this flow's "
    "packets cannot tell a reply queued on its way from a client that paused; the bulk flow's "
    "round trips on the same pair, growing at the same time, could",
}
