-- Flows capped by offload, per sender: data directions whose super-packets never
-- exceed a cap (capped) or that send MSS-sized segments only (mss-capped), counted
-- by the host that sent them, beside its flows that did use offload.
WITH directions AS (
    SELECT file, "tcpdiag.flow.server" AS sender, s2c."tcpdiag.offload.verdict" AS verdict
    FROM flows WHERE s2c IS NOT NULL AND "tcpdiag.flow.roles" = 'known'
    UNION ALL
    SELECT file, "tcpdiag.flow.client", c2s."tcpdiag.offload.verdict"
    FROM flows WHERE c2s IS NOT NULL AND "tcpdiag.flow.roles" = 'known'
)
SELECT file,
       sender,
       count(*) FILTER (WHERE verdict IN ('capped', 'mss-capped')) AS capped_flows,
       count(*) FILTER (WHERE verdict = 'offloaded') AS offloaded_flows
FROM directions
GROUP BY file, sender
HAVING capped_flows > 0
ORDER BY capped_flows DESC, file, sender;
