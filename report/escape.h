/* The one way text reaches the HTML report: every string, whether the program wrote
 * it or it came from outside (a file name, a folder, an address), is escaped here. */
#ifndef TCPDIAG_REPORT_ESCAPE_H
#define TCPDIAG_REPORT_ESCAPE_H

#include <glib.h>

/* Appends text as HTML character data or a quoted attribute value: & < > " ' become
 * references, control characters and bytes that are not UTF-8 become U+FFFD (a
 * strict parser rejects the former, a browser guesses at the latter). */
void td_html_escape(GString *out, const char *text);
/* The same for printf-style text. */
void td_html_escapef(GString *out, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

#endif
