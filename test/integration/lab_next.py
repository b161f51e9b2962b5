"""The lab's everyday slow exchanges (issue 29) in captures/lab/next, each at the
client, the router and the server (captures/lab/next/README.md), and the flows whose
expected cause the engine does not reach yet, with why: the tests mark them as strict
xfails, so the day the engine gets one right its entry must go."""
from tshark import CAPTURES

NEXT = CAPTURES / "lab" / "next"

KNOWN_MISSES = {
    "lab-tb-fast-reader-client.pcap": "receive-window needs a plateau of 10 round trips at the window; the 150 kB "
                                      "reply takes 9 (the fixed 16 kB buffer is not told from a growing one)",
    "lab-tb-fast-reader-router.pcap": "as at the client: 9 round trips, no plateau",
    "lab-tb-fast-reader-server.pcap": "as at the client: 9 round trips, no plateau",
    "lab-tb-tail-loss-client.pcap": "near the receiver the lost tail's silence ends with data the receiver sees as "
                                    "new: the budget reads it as the server's wait (time_budget.h)",
    "lab-tb-tail-loss-router.pcap": "the router's r-eth0 is past the drop: as at the client",
}
