-- Hosts with stalls: a host that fell silent on all its flows at once while they
-- waited on it (tcpdiag.host.stall names it on every flow that waited).
SELECT file,
       "tcpdiag.host.stall" AS host,
       count(*) AS flows_waited,
       max("tcpdiag.host.stall_duration") AS longest_stall_s,
       max("tcpdiag.host.stall_flows_active") AS flows_open
FROM flows
WHERE "tcpdiag.host.stall" IS NOT NULL
GROUP BY file, host
ORDER BY longest_stall_s DESC, file, host;
