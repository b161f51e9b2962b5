/* The diagnosis as Wireshark's stat-tap tables (`-z tcpdiag,table`,
 * `-z tcpdiag,host-table`, Statistics > tcpdiag): defined in table-tcpdiag.c,
 * registered with every other -z report in stats-tcpdiag.c. */
#ifndef TCPDIAG_TABLE_TCPDIAG_H
#define TCPDIAG_TABLE_TCPDIAG_H

#include "ws_compat.h"

#include <epan/stat_tap_ui.h>

extern stat_tap_table_ui tcpdiag_flow_table_ui;
extern stat_tap_table_ui tcpdiag_host_table_ui;

/* The flows' ranks by time lost, kept for the flow table's rows: dropped when a
 * capture is closed (a cleanup routine). */
void tcpdiag_tables_forget(void);

#endif
