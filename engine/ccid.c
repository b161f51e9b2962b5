/* The sender's congestion control as its answers to signals show it, never more. */
#include "ccid.h"

#include "median.h"

#include <math.h>

/* Responses needed before anything is named, and cuts that show the factor. */
enum { MIN_RESPONSES = 3, MIN_FACTORS = 2 };
/* Below this window a cut is rounded to whole segments (CUBIC 7 -> 4 is 0.57, Reno
 * 5 -> 2 is 0.4), which hides the factor. */
enum { FACTOR_MIN_SEGMENTS = 8 };
/* The multiplicative decrease of each family (RFC 9438: 0.7; RFC 5681: 0.5), and
 * how far a median may stray from it. */
#define CUBIC_LOW 0.6
#define CUBIC_HIGH 0.85
#define RENO_LOW 0.4
#define RENO_HIGH 0.56

/* The measured response before i within two round trips, if any: then i's
 * "before" is a flight that response had not cut yet. */
static bool follows_closely(const td_cc *cc, unsigned i)
{
    for (unsigned j = 0; j < i; j++) {
        const td_cc_event *other = &cc->events[j];
        if (td_cc_is_response(other) && other->measured && other->round + 2 >= cc->events[i].round)
            return true;
    }
    return false;
}

/* The median cut factor of the sender's responses past slow start, from windows
 * large enough to show it. A step marker often draws responses in consecutive
 * round trips (two CWRs: 0.7 x 0.7 for CUBIC): such a burst of k responses is
 * measured as a whole, before the first to after the last, and its factor is the
 * k-th root. */
static double median_factor(const td_flight *f, unsigned *n)
{
    double ratios[TD_CC_MAX_EVENTS];
    const td_cc *cc = &f->cc;
    uint32_t unit = f->mss ? f->mss : 1;

    *n = 0;
    for (unsigned i = 0; i < cc->nevents; i++) {
        const td_cc_event *first = &cc->events[i], *last = first;
        unsigned k = 1;
        if (!td_cc_is_response(first) || !first->measured)
            continue;
        for (unsigned j = i + 1; j < cc->nevents; j++) {
            const td_cc_event *next = &cc->events[j];
            if (!td_cc_is_response(next))
                continue;
            if (!next->measured || next->round > last->round + 1)
                break;
            last = next;
            k++;
        }
        bool usable = !first->slow_start && first->before >= FACTOR_MIN_SEGMENTS * unit &&
                      !follows_closely(cc, i) && td_cc_cuts_like_loss((double)last->second_after / first->before);
        if (usable)
            ratios[(*n)++] = pow((double)last->after / first->before, 1.0 / k);
        while (i + 1 < cc->nevents && &cc->events[i + 1] <= last)
            i++;
    }
    return td_median(ratios, *n);
}

static unsigned measured_responses(const td_cc *cc)
{
    return td_cc_measured_responses(cc, true) + td_cc_measured_responses(cc, false);
}

td_cc_algorithm td_cc_identify(const td_flight *f, const char **why)
{
    unsigned n;
    double factor;

    if (f->unknown_reason) {
        *why = f->unknown_reason;
        return TD_CC_ALGO_UNKNOWN;
    }
    if (measured_responses(&f->cc) < MIN_RESPONSES) {
        *why = "fewer than 3 measured responses to congestion signals: an algorithm shows in how it answers them";
        return TD_CC_ALGO_UNKNOWN;
    }
    switch (f->cc.reaction) {
    case TD_REACTION_PROPORTIONAL:
        *why = "cuts follow the share of marked segments (AccECN)";
        return TD_CC_ALGO_DCTCP;
    case TD_REACTION_NONE:
        *why = "signals caused no lasting cut: the flight dipped no more after them than without them";
        return TD_CC_ALGO_BBR;
    case TD_REACTION_LOSS_LIKE:
        break;
    default:
        *why = "reaction unknown";
        return TD_CC_ALGO_UNKNOWN;
    }
    factor = median_factor(f, &n);
    if (n < MIN_FACTORS) {
        *why = "fewer than 2 lasting cuts past slow start from windows of 8 MSS or more: smaller windows round "
               "the factor away";
        return TD_CC_ALGO_UNKNOWN;
    }
    if (factor >= CUBIC_LOW && factor <= CUBIC_HIGH) {
        *why = "each signal cut the flight to about 0.7 of what it was (CUBIC's beta)";
        return TD_CC_ALGO_CUBIC;
    }
    if (factor >= RENO_LOW && factor <= RENO_HIGH) {
        *why = "each signal halved the flight (Reno's beta 0.5)";
        return TD_CC_ALGO_RENO;
    }
    *why = "the median cut lies between or beyond the factors of the known families";
    return TD_CC_ALGO_UNKNOWN;
}

const char *td_cc_algorithm_name(td_cc_algorithm algorithm)
{
    switch (algorithm) {
    case TD_CC_ALGO_CUBIC: return "cubic-like";
    case TD_CC_ALGO_RENO:  return "reno-like";
    case TD_CC_ALGO_BBR:   return "bbr-like";
    case TD_CC_ALGO_DCTCP: return "dctcp-like";
    case TD_CC_ALGO_UNKNOWN: break;
    }
    return "unknown";
}
