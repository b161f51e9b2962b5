/* The wording of the diagnosis's expert items (see diagnosis_messages.h). */
#include "diagnosis_messages.h"

#include "advice.h"
#include "units.h"
#include "stall.h"

void td_message_finding(const td_diagnoses *d, const td_finding *f, guint rank, guint count, GString *out)
{
    char who[64], lost[64] = "", summary[TD_SUMMARY_MAX + 1];

    td_addr_format(f->who, who, sizeof who);
    if (f->lost_ns > 0) {
        g_strlcpy(lost, ", ", sizeof lost);
        td_finding_lost_words(f, lost + 2, sizeof lost - 2);
    }
    td_advice_summary(d, f->worst, summary, sizeof summary);
    g_string_append_printf(out, "Finding %u of %u: %s (%s), %u flow%s%s: %s", rank, count, who, f->role,
                           f->flows->len, f->flows->len == 1 ? "" : "s", lost, summary);
}

void td_message_fix(const td_diagnoses *d, const td_finding *f, GString *out)
{
    g_string_append_printf(out, "Fix: %s", td_advice_fix(d, f->worst));
}

void td_message_in_finding(const td_diagnoses *d, const td_flow *flow, guint rank, GString *out)
{
    char summary[TD_SUMMARY_MAX + 1];

    td_advice_summary(d, flow, summary, sizeof summary);
    g_string_append_printf(out, "In finding %u: %s", rank, summary);
}

void td_message_stall_silence(const td_diagnoses *d, guint stall, GString *out)
{
    const td_stall *s = td_stalls_at(td_engine_stalls(td_diagnoses_engine(d)), stall);
    char silent[32];

    td_format_duration(s->end_ns - s->start_ns, silent, sizeof silent);
    g_string_append_printf(out, "sent nothing on any flow for %s while %u of its %u open flows waited on it (since "
                           "frame %u)", silent, s->flows_hit, td_diagnoses_stall_active(d, stall), s->last_frame);
}

void td_message_host_stall(const td_diagnoses *d, guint stall, GString *out)
{
    char host[64];

    td_addr_format(&td_stalls_at(td_engine_stalls(td_diagnoses_engine(d)), stall)->host, host, sizeof host);
    g_string_append_printf(out, "Host stall: %s ", host);
    td_message_stall_silence(d, stall, out);
}

void td_message_capture(const td_diagnoses *d, GString *out)
{
    g_string_append(out, "Capture: ");
    td_text_headline(d, out);
}
