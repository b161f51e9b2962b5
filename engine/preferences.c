/* The preference table (see preferences.h): every preference's name, title and
 * description is written here and nowhere else. */
#include "preferences.h"

static const td_pref_choice capture_positions[] = {
    { "auto", "Infer from handshake timing", TD_VANTAGE_UNKNOWN },
    { "near-client", "Near the client", TD_VANTAGE_NEAR_CLIENT },
    { "middle", "In the middle of the path", TD_VANTAGE_MIDDLE },
    { "near-server", "Near the server", TD_VANTAGE_NEAR_SERVER },
};

#define ENGINE(member)  TD_PREF_IN_ENGINE, offsetof(td_config, member)
#define HOSTS(member)   TD_PREF_IN_HOSTS, offsetof(td_hosts_config, member)
#define NUMBER          TD_PREF_UINT, NULL, 0

/* In the order Wireshark lists them (tshark -G defaultprefs). */
const td_pref_def td_prefs_table[TD_PREF_COUNT] = {
    { "capture_position", "Capture position",
      "Where the capture was taken. \"auto\" infers it per flow from the handshake timing; "
      "any other value overrides the inference for every flow.",
      TD_PREF_CHOICE, capture_positions, G_N_ELEMENTS(capture_positions), ENGINE(vantage_override) },
    { "vantage_dominance_pct", "Vantage: dominant handshake half (%)",
      "A capture is near the client (server) when the SYN→SYN-ACK (SYN-ACK→ACK) half "
      "carries at least this share of the handshake round-trip time.",
      NUMBER, ENGINE(vantage_dominance_pct) },
    { "vantage_min_delay_us", "Vantage: smallest telling delay (µs)",
      "Handshake halves shorter than this are treated as host turnaround time, "
      "which cannot place the capture point.",
      NUMBER, ENGINE(vantage_min_delay_us) },
    { "max_flows", "Flows kept in full",
      "Beyond this many flows, a new flow that is one SYN (a SYN flood, a scan) is kept only if its "
      "next packet follows within the next 65,536 such SYNs; the others are counted in the reports. "
      "Flows that carry data are always kept. 0: no limit.",
      NUMBER, ENGINE(max_flows) },
    { "plateau_min_rounds", "Flight: plateau length (round trips)",
      "Consecutive round trips with a flat flight that make a plateau.",
      NUMBER, ENGINE(flight.plateau_min_rounds) },
    { "plateau_band_pct", "Flight: flatness band (%)",
      "Round-trip flights within this share of each other (at least one MSS) count as flat.",
      NUMBER, ENGINE(flight.plateau_band_pct) },
    { "sender_warn_mss", "Flight: warn below (MSS)",
      "A sender-held plateau below this many MSS raises a warning.",
      NUMBER, TD_PREF_IN_PLUGIN, 0 },
    { "collapse_mss", "Collapse: flight at most (MSS)",
      "A round trip with at most this many MSS in flight, while signals keep coming, counts "
      "towards a collapse.",
      NUMBER, ENGINE(flight.collapse_mss) },
    { "collapse_min_rounds", "Collapse: length (round trips)",
      "Round trips at the floor that make a collapse.",
      NUMBER, ENGINE(flight.collapse_min_rounds) },
    { "restart_idle_ms", "Slow-start restart: pause at least (ms)",
      "A sender's pause this long (Linux's shortest retransmission timeout) can restart its slow start...",
      NUMBER, ENGINE(flight.restart_idle_ms) },
    { "restart_share_pct", "Slow-start restart: flight at most (%)",
      "...when the first round after it carries at most this share of the flight an earlier burst of the "
      "flow got through.",
      NUMBER, ENGINE(flight.restart_share_pct) },
    { "stall_min_ms", "Host stall: silence at least (ms)",
      "A host that sends nothing on any of its flows for this long, while flows wait on it, stalled.",
      NUMBER, ENGINE(stall.min_ms) },
    { "stall_min_flows", "Host stall: flows waiting at least",
      "Flows that must have waited on the silent host: one flow's pause is not a host stall.",
      NUMBER, ENGINE(stall.min_flows) },
    { "budget_min_share_pct", "Time budget: cause from share (%)",
      "A part of a flow's time budget (setup retries, a server or client wait, a stall) names the flow's "
      "cause when it takes at least this share of the flow's active time...",
      NUMBER, ENGINE(budget.min_share_pct) },
    { "budget_min_cost_ms", "Time budget: cause from (ms)",
      "...and at least this long.",
      NUMBER, ENGINE(budget.min_cost_ms) },
    { "long_rtt_ms", "Round trip: long from (ms)",
      "A short exchange on a path with a handshake round trip at least this long is round-trip-bound "
      "when its round trips take most of its time.",
      NUMBER, ENGINE(budget.long_rtt_ms) },
    { "reference_rtt_ms", "Round trip: reference (ms)",
      "What a round-trip-bound flow's round trips are costed against: the same exchange on a path with "
      "this round trip.",
      NUMBER, ENGINE(budget.reference_rtt_ms) },
    { "timeout_floor_ms", "Retransmission timeout: silence from (ms)",
      "A stall ended by a retransmission is a retransmission timeout's when its silence lasted at least "
      "this long (the smallest timeout of the sender's stack: Linux 200 ms); fast recovery resends sooner.",
      NUMBER, ENGINE(budget.timeout_floor_ms) },
    { "queue_rtt_ratio", "Queueing delay: round trips from (x empty path)",
      "A flow of short exchanges is queueing-delay when its round trips take at least this many times the "
      "empty path's (the smallest handshake round trip between the same hosts).",
      NUMBER, ENGINE(budget.queue_rtt_ratio) },
    { "nagle_min_ack_delay_ms", "Nagle: ACK delayed from (ms)",
      "A pure ACK this much later than the round trip to its sender was delayed: a small segment released "
      "right after it was held by Nagle (nagle-delayed-ack). Linux delays at least 40 ms, others up to 200 ms.",
      NUMBER, ENGINE(nagle.min_ack_delay_ms) },
    { "settle_window_s", "Settle: window after a flow closes (s)",
      "A flow that closed (FIN both ways, or a RST) gets its verdict, and the command its record, once the "
      "capture's clock has passed its last packet by this long: the host rules compare it with the flows of "
      "the same hosts seen until then. Flows of a shorter capture are judged at its end, on the whole file.",
      NUMBER, ENGINE(settle.window_s) },
    { "idle_timeout_s", "Settle: idle timeout (s)",
      "A flow silent this long in capture time gets its verdict though it never closed; packets that come "
      "for it later are counted, not analysed.",
      NUMBER, ENGINE(settle.idle_s) },
    { "ecn_slowdown_pct", "Hosts: ECN slowdown note (%)",
      "Note a client's ECN flows when its other flows' median throughput is at least this many percent of "
      "the ECN flows' median throughput (200 = twice as fast)",
      NUMBER, HOSTS(ecn_slowdown_pct) },
};

void *td_pref_place(const td_pref_def *pref, const td_pref_homes *homes)
{
    switch (pref->home) {
    case TD_PREF_IN_ENGINE:
        return (char *)homes->engine + pref->offset;
    case TD_PREF_IN_HOSTS:
        return (char *)homes->hosts + pref->offset;
    case TD_PREF_IN_PLUGIN:
        break;
    }
    return homes->plugin_warn_mss;
}
