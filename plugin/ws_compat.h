/* Every Wireshark version difference the glue touches, in one place
 * (4.0 through 4.6; see docs/architecture.md). */
#ifndef TCPDIAG_WS_COMPAT_H
#define TCPDIAG_WS_COMPAT_H

#include <wireshark.h>
#include <epan/ftypes/ftypes.h>
#include <epan/proto.h>

#define TD_WS_AT_LEAST(ma, mi) (WIRESHARK_VERSION_MAJOR > (ma) || \
    (WIRESHARK_VERSION_MAJOR == (ma) && WIRESHARK_VERSION_MINOR >= (mi)))

/* field_info::value became a pointer in 4.2. */
#if TD_WS_AT_LEAST(4, 2)
#define TD_FI_VALUE(fi) ((fi)->value)
#else
#define TD_FI_VALUE(fi) (&(fi)->value)
#endif

/* Boolean preferences take bool* from 4.2 on, gboolean* before. */
#if TD_WS_AT_LEAST(4, 2)
typedef bool td_pref_bool;
#else
typedef gboolean td_pref_bool;
#endif

/* The stat-tap init callback returns bool from 4.6 on. */
#if TD_WS_AT_LEAST(4, 6)
typedef bool td_stat_init_result;
#define TD_STAT_INIT_RETURN(ok) return (ok)
#else
typedef void td_stat_init_result;
#define TD_STAT_INIT_RETURN(ok) do { (void)(ok); return; } while (0)
#endif

/* plugin_describe() and wsutil/plugins.h exist from 4.2 on (4.0 ships neither). */
#if TD_WS_AT_LEAST(4, 2)
#include <wsutil/plugins.h>
#define TD_HAVE_PLUGIN_DESCRIBE 1
#endif

#endif
