-- Servers whose ECN flows react loss-like: they cut their window on every ECN
-- echo as if a packet had been lost (CUBIC, Reno). Each such flow is a candidate
-- for the ecn-loss-reaction or window-collapse diagnosis (docs/diagnosis.md).
SELECT file,
       "tcpdiag.flow.server" AS server,
       count(*) AS ecn_flows_loss_like,
       list(DISTINCT s2c."tcpdiag.cc.algorithm") AS algorithms,
       list(DISTINCT "tcpdiag.diag.cause") AS causes
FROM flows
WHERE "tcpdiag.ecn.outcome" IN ('classic', 'accecn', 'accecn-classic')
  AND s2c."tcpdiag.cc.reaction" = 'loss-like'
GROUP BY file, server
ORDER BY ecn_flows_loss_like DESC, file, server;
