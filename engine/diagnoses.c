/* Where every flow's diagnosis is kept (diagnoses.h): a slot per flow that carried more
 * than one SYN, one diagnosis shared by every lone SYN, and the stalls' open flows. */
#include "diagnoses.h"

/* A flow that was one SYN reads like every other (diagnosis.c): they share one
 * diagnosis, so that a million-flow SYN flood holds 4 bytes a flow here, not 40. */
enum { LONE_SYN_SLOT = UINT32_MAX, NOT_DIAGNOSED = UINT32_MAX - 1 };

struct td_diagnoses {
    const td_engine *engine;
    td_diagnosis  lone_syn;     /* every flow that was one SYN */
    td_diagnosis *flows;        /* the other flows', in flow order */
    guint         used;         /* of flows */
    uint32_t     *slot;         /* by flow index: its place in flows, LONE_SYN_SLOT or NOT_DIAGNOSED */
    GHashTable   *slot_of;      /* ...or, for a settle point's flows (td_diagnose_flows), index → slot + 1
                                   (a gsize: LONE_SYN_SLOT + 1 must not wrap to NULL) */
    guint     nflows;
    uint32_t *stall_active;     /* by stall index */
};

td_diagnoses *td_diagnoses_new(const td_engine *engine, bool few, guint capacity)
{
    td_diagnoses *d = g_new0(td_diagnoses, 1);
    guint nflows = td_engine_flow_count(engine);

    d->engine = engine;
    d->nflows = nflows;
    /* a point's few flows by index; the end's every flow in a table */
    if (few)
        d->slot_of = g_hash_table_new(g_direct_hash, g_direct_equal);
    else {
        d->slot = g_new(uint32_t, MAX(nflows, 1));
        for (guint i = 0; i < nflows; i++)
            d->slot[i] = NOT_DIAGNOSED;
    }
    d->stall_active = g_new0(uint32_t, MAX(td_stalls_count(td_engine_stalls(engine)), 1));
    d->flows = g_new0(td_diagnosis, MAX(capacity, 1));
    return d;
}

static void set_slot(td_diagnoses *d, guint index, uint32_t slot)
{
    if (d->slot_of)
        g_hash_table_insert(d->slot_of, GUINT_TO_POINTER(index), GSIZE_TO_POINTER((gsize)slot + 1));
    else
        d->slot[index] = slot;
}

/* A flow's slot: its place in flows, LONE_SYN_SLOT or NOT_DIAGNOSED. */
static uint32_t slot_of(const td_diagnoses *d, guint index)
{
    if (d->slot_of) {
        gpointer found = g_hash_table_lookup(d->slot_of, GUINT_TO_POINTER(index));
        return found ? (uint32_t)(GPOINTER_TO_SIZE(found) - 1) : NOT_DIAGNOSED;
    }
    return index < d->nflows ? d->slot[index] : NOT_DIAGNOSED;
}

td_diagnosis *td_diagnoses_slot(td_diagnoses *d, const td_flow *flow)
{
    if (!flow->more) {
        set_slot(d, flow->index, LONE_SYN_SLOT);
        return &d->lone_syn;
    }
    set_slot(d, flow->index, d->used);
    return &d->flows[d->used++];
}

td_diagnosis *td_diagnoses_lone_syn(td_diagnoses *d)
{
    return &d->lone_syn;
}

void td_diagnoses_count_open(td_diagnoses *d, guint stall)
{
    d->stall_active[stall]++;
}

void td_diagnoses_keep(td_diagnoses *d, const td_flow *flow, const td_diagnosis *given)
{
    uint32_t slot = slot_of(d, flow->index);

    if (slot < NOT_DIAGNOSED)
        d->flows[slot] = *given;
}

void td_diagnoses_free(td_diagnoses *d)
{
    if (!d)
        return;
    g_free(d->flows);
    g_free(d->slot);
    if (d->slot_of)
        g_hash_table_destroy(d->slot_of);
    g_free(d->stall_active);
    g_free(d);
}

const td_diagnosis *td_diagnosis_of(const td_diagnoses *d, const td_flow *flow)
{
    uint32_t slot = slot_of(d, flow->index);

    if (slot == NOT_DIAGNOSED)
        return NULL;
    return slot == LONE_SYN_SLOT ? &d->lone_syn : &d->flows[slot];
}

uint32_t td_diagnoses_stall_active(const td_diagnoses *d, guint stall)
{
    return stall < td_stalls_count(td_engine_stalls(d->engine)) ? d->stall_active[stall] : 0;
}

const td_engine *td_diagnoses_engine(const td_diagnoses *d)
{
    return d->engine;
}

const char *td_reference_name(td_reference reference)
{
    switch (reference) {
    case TD_REF_CLIENT_FLOWS:   return "client-flows";
    case TD_REF_SENDER_FLOWS:   return "sender-flows";
    case TD_REF_WINDOW_CEILING: return "window-ceiling";
    case TD_REF_OWN_RATE:       return "own-rate";
    case TD_REF_REFERENCE_RTT:  return "reference-rtt";
    case TD_REF_ONE_ROUND_TRIP: return "one-round-trip";
    case TD_REF_EMPTY_PATH:     return "empty-path";
    case TD_REF_NONE:           break;
    }
    return "none";
}
