-- Slow requests: exchanges whose server took over half a second to answer, beside
-- their flow's cause, the slowest first (the exchanges view of flows.sql). The frame
-- opens the request in Wireshark: tcp.stream == N && frame.number == F.
SELECT e.file,
       e."tcp.stream",
       e."tcpdiag.exchange.frame" AS frame,
       e."tcpdiag.exchange.server_time" AS server_time,
       e."tcpdiag.exchange.active" AS active,
       f."tcpdiag.diag.cause" AS cause
FROM exchanges e
JOIN flows f ON f.file = e.file AND f."tcp.stream" = e."tcp.stream"
WHERE e."tcpdiag.exchange.server_time" > 0.5
ORDER BY server_time DESC, e.file, e."tcp.stream", frame;
