/* The ECN negotiation table (RFC 3168, RFC 9768) and the verdicts on codepoints and
 * their use. */
#include "ecn.h"

enum { AE = 4, CWR = 2, ECE = 1 };

unsigned td_ecn_bits(uint16_t tcp_flags)
{
    return ((tcp_flags & TD_TH_AE) ? AE : 0) |
           ((tcp_flags & TD_TH_CWR) ? CWR : 0) |
           ((tcp_flags & TD_TH_ECE) ? ECE : 0);
}

bool td_ecn_is_setup_request(uint16_t syn_flags)
{
    unsigned bits = td_ecn_bits(syn_flags);
    return bits == (CWR | ECE) || bits == (AE | CWR | ECE);
}

/* RFC 9768 Table 2: an AccECN server feeds back the SYN's IP-ECN codepoint. */
static bool accecn_feedback(unsigned synack_bits, td_ip_ecn *feedback)
{
    switch (synack_bits) {
    case CWR:       *feedback = TD_NOT_ECT; return true;
    case CWR | ECE: *feedback = TD_ECT1;    return true;
    case AE:        *feedback = TD_ECT0;    return true;
    case AE | CWR:  *feedback = TD_CE;      return true;
    default:        return false;
    }
}

td_ecn_outcome td_ecn_classify(uint16_t syn_flags, uint16_t synack_flags, td_ip_ecn *feedback)
{
    unsigned syn = td_ecn_bits(syn_flags);
    unsigned synack = td_ecn_bits(synack_flags);

    if (syn == 0)
        return TD_ECN_NOT_REQUESTED;
    if (syn == (CWR | ECE)) {           /* RFC 3168 §6.1.1 */
        switch (synack) {
        case ECE:       return TD_ECN_CLASSIC;
        case 0:         return TD_ECN_DECLINED;
        case CWR | ECE: return TD_ECN_REFLECTED;
        default:        return TD_ECN_INVALID;
        }
    }
    if (syn == (AE | CWR | ECE)) {      /* RFC 9768 §3.1.1 */
        td_ip_ecn seen;
        if (accecn_feedback(synack, &seen)) {
            if (feedback)
                *feedback = seen;
            return TD_ECN_ACCECN;
        }
        switch (synack) {
        case ECE:            return TD_ECN_ACCECN_CLASSIC;
        case 0:              return TD_ECN_DECLINED;
        case AE | CWR | ECE: return TD_ECN_REFLECTED;
        default:             return TD_ECN_INVALID;   /* (1,0,1) reserved */
        }
    }
    return TD_ECN_INVALID;              /* reserved SYN combinations */
}

td_ecn_data_use td_ecn_data_use_of(td_ecn_outcome outcome, const uint32_t codepoint_count[4])
{
    uint64_t ect = (uint64_t)codepoint_count[TD_ECT0] + codepoint_count[TD_ECT1] +
                   codepoint_count[TD_CE];
    uint64_t all = ect + codepoint_count[TD_NOT_ECT];

    if (all == 0)
        return TD_ECN_DATA_NONE;
    if (outcome == TD_ECN_PENDING || outcome == TD_ECN_UNKNOWN)
        return TD_ECN_DATA_UNKNOWN;
    if (td_ecn_negotiated(outcome))
        return ect ? TD_ECN_DATA_ECT : TD_ECN_DATA_UNMARKED;
    return ect ? TD_ECN_DATA_UNNEGOTIATED : TD_ECN_DATA_NOT_ECT;
}

const char *td_ecn_outcome_name(td_ecn_outcome outcome)
{
    switch (outcome) {
    case TD_ECN_PENDING:        return "pending";
    case TD_ECN_UNKNOWN:        return "unknown";
    case TD_ECN_NOT_REQUESTED:  return "not-requested";
    case TD_ECN_CLASSIC:        return "classic";
    case TD_ECN_DECLINED:       return "declined";
    case TD_ECN_REFLECTED:      return "reflected";
    case TD_ECN_ACCECN:         return "accecn";
    case TD_ECN_ACCECN_CLASSIC: return "accecn-classic";
    case TD_ECN_FALLBACK:       return "fallback";
    case TD_ECN_INVALID:        return "invalid";
    }
    return "unknown";
}

const char *td_ecn_data_use_name(td_ecn_data_use use)
{
    switch (use) {
    case TD_ECN_DATA_UNKNOWN:      return "unknown";
    case TD_ECN_DATA_NONE:         return "no-data";
    case TD_ECN_DATA_ECT:          return "ect";
    case TD_ECN_DATA_NOT_ECT:      return "not-ect";
    case TD_ECN_DATA_UNMARKED:     return "unmarked";
    case TD_ECN_DATA_UNNEGOTIATED: return "unnegotiated-ect";
    }
    return "unknown";
}

const char *td_ip_ecn_name(td_ip_ecn codepoint)
{
    static const char *const names[4] = { "not-ect", "ect1", "ect0", "ce" };
    return names[codepoint & 3];
}
