/* The units people read (units.h). */
#include "units.h"

#include <glib.h>

void td_format_rate(double bytes_per_s, char *buf, size_t size)
{
    static const char *const units[] = { "bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s" };
    double bits = bytes_per_s * 8;
    unsigned u = 0;

    while (bits >= 1000 && u + 1 < G_N_ELEMENTS(units)) {
        bits /= 1000;
        u++;
    }
    g_snprintf(buf, size, bits >= 100 || u == 0 ? "%.0f %s" : "%.3g %s", bits, units[u]);
}

void td_format_duration(int64_t ns, char *buf, size_t size)
{
    if (ns >= 1000000000 || ns <= -1000000000)
        g_snprintf(buf, size, "%.2f s", (double)ns / 1e9);
    else if (ns >= 9999500 || ns <= -9999500)   /* what would print as 10.000 ms reads 10 ms */
        g_snprintf(buf, size, "%.0f ms", (double)ns / 1e6);
    else
        g_snprintf(buf, size, "%.3f ms", (double)ns / 1e6);
}
