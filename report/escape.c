/* HTML escaping for every string the report prints. */
#include "escape.h"

void td_html_escape(GString *out, const char *text)
{
    char *valid = g_utf8_make_valid(text, -1);

    for (const char *p = valid; *p; p = g_utf8_next_char(p)) {
        gunichar c = g_utf8_get_char(p);
        switch (c) {
        case '&':  g_string_append(out, "&amp;"); break;
        case '<':  g_string_append(out, "&lt;"); break;
        case '>':  g_string_append(out, "&gt;"); break;
        case '"':  g_string_append(out, "&quot;"); break;
        case '\'': g_string_append(out, "&#39;"); break;
        default:
            /* HTML forbids C0 controls but tab and newline, C1 controls and
               noncharacters in a document */
            if ((c < 0x20 && c != '\t' && c != '\n') || (c >= 0x7f && c < 0xa0) ||
                (c >= 0xfdd0 && c <= 0xfdef) || (c & 0xfffe) == 0xfffe)
                g_string_append(out, "\xef\xbf\xbd");
            else
                g_string_append_len(out, p, g_utf8_next_char(p) - p);
        }
    }
    g_free(valid);
}

void td_html_escapef(GString *out, const char *fmt, ...)
{
    va_list args;
    char *text;

    va_start(args, fmt);
    text = g_strdup_vprintf(fmt, args);
    va_end(args);
    td_html_escape(out, text);
    g_free(text);
}
