-- tcpdiag host rules. Per client address: how many connections asked for ECN,
-- and how the ECN flows fared against the same client's other flows. Per sender
-- address: which flows used segmentation offload and which did not.
--
-- Lua runs only where the C plugin says there is work, through the "tcpdiag.lua"
-- dissector table: once with every flow's summary when the capture has been read
-- completely (keys 1 and 3), then on the first packet of each flow (keys 2 and 4). A Lua
-- post-dissector called on every packet would cost more than the whole C analysis.
-- Written for Lua 5.2 (Wireshark 4.0) and 5.4 (4.4, 4.6) alike.

local hooks = DissectorTable.get("tcpdiag.lua")
if not hooks then
    return      -- the C plugin is not loaded: nothing to extend
end

local host = Proto("tcpdiag.host", "tcpdiag per-host rules")
local feed = Proto("tcpdiag.hostfeed", "tcpdiag per-host rules: flow summaries")

local hf = {
    conns = ProtoField.uint32("tcpdiag.host.conns", "Connections from this client"),
    ecn_requested = ProtoField.uint32("tcpdiag.host.ecn_requested", "Connections that requested ECN"),
    ecn_negotiated = ProtoField.uint32("tcpdiag.host.ecn_negotiated", "Connections that negotiated ECN"),
    ecn_share = ProtoField.string("tcpdiag.host.ecn_share", "ECN requests"),
    ecn_median_duration = ProtoField.double("tcpdiag.host.ecn_median_duration",
        "Median duration of ECN flows (s)"),
    other_median_duration = ProtoField.double("tcpdiag.host.other_median_duration",
        "Median duration of other flows (s)"),
    ecn_median_throughput = ProtoField.double("tcpdiag.host.ecn_median_throughput",
        "Median throughput of ECN flows (B/s)"),
    other_median_throughput = ProtoField.double("tcpdiag.host.other_median_throughput",
        "Median throughput of other flows (B/s)"),
    ecn_slowdown = ProtoField.double("tcpdiag.host.ecn_slowdown",
        "ECN slowdown (other median throughput / ECN median throughput)"),
    opts_missing_conns = ProtoField.uint32("tcpdiag.host.opts_missing_conns",
        "Connections whose SYN lacked window scaling, SACK or timestamps"),
    opts_share = ProtoField.string("tcpdiag.host.opts_share", "SYNs without options"),
}
host.fields = {
    hf.conns, hf.ecn_requested, hf.ecn_negotiated, hf.ecn_share,
    hf.ecn_median_duration, hf.other_median_duration,
    hf.ecn_median_throughput, hf.other_median_throughput, hf.ecn_slowdown,
    hf.opts_missing_conns, hf.opts_share,
}

-- A Note: the flow's diagnosis (tcpdiag.diag.slow) carries the Warning and the fix.
local ei_ecn_slower = ProtoExpert.new("tcpdiag.host.ecn_slower",
    "ECN flows markedly slower than this client's other flows",
    expert.group.SEQUENCE, expert.severity.NOTE)
host.experts = { ei_ecn_slower }

host.prefs.slowdown_pct = Pref.uint("ECN slowdown warning (%)", 200,
    "Warn on a client's ECN flows when its other flows' median throughput is at least "
    .. "this many percent of the ECN flows' median throughput (200 = twice as fast)")

local by_client = {}    -- address text -> summary table
local fed = false

-- Bytes per second in the bit/s units people read.
local function rate(bytes_per_s)
    local bits, units, u = (bytes_per_s or 0) * 8, { "bit/s", "kbit/s", "Mbit/s", "Gbit/s" }, 1
    while bits >= 1000 and u < #units do
        bits, u = bits / 1000, u + 1
    end
    return string.format(bits >= 100 and "%.0f %s" or "%.3g %s", bits, units[u])
end

local function median(values)
    local n = #values
    if n == 0 then
        return nil
    end
    local sorted = {}
    for i = 1, n do
        sorted[i] = values[i]
    end
    table.sort(sorted)
    local mid = math.floor((n + 1) / 2)
    if n % 2 == 1 then
        return sorted[mid]
    end
    return (sorted[mid] + sorted[mid + 1]) / 2
end

local function new_summary()
    return { conns = 0, requested = 0, negotiated = 0, opts_known = 0, opts_missing = 0,
             durations = { ecn = {}, other = {} }, throughputs = { ecn = {}, other = {} } }
end

local function add_flow(s, requested, negotiated, duration, bytes, opts_missing)
    s.conns = s.conns + 1
    if opts_missing ~= "-" then
        s.opts_known = s.opts_known + 1
        if opts_missing == "1" then
            s.opts_missing = s.opts_missing + 1
        end
    end
    if requested then
        s.requested = s.requested + 1
    end
    local group = "other"
    if negotiated then
        s.negotiated = s.negotiated + 1
        group = "ecn"
    end
    table.insert(s.durations[group], duration)
    if duration > 0 then
        table.insert(s.throughputs[group], bytes / duration)
    end
end

local function settle(s)
    s.ecn_duration = median(s.durations.ecn)
    s.other_duration = median(s.durations.other)
    s.ecn_throughput = median(s.throughputs.ecn)
    s.other_throughput = median(s.throughputs.other)
    if s.ecn_throughput and s.other_throughput and s.ecn_throughput > 0 then
        s.slowdown = s.other_throughput / s.ecn_throughput
    end
end

-- Key 1: one line per flow whose handshake was captured: client, stream,
-- ECN requested (0/1), ECN negotiated (0/1), duration (s), payload bytes,
-- SYN without wscale/SACK/timestamps (0/1, "-" when its options were cut off)
function feed.dissector(tvb, pinfo, tree)
    by_client = {}
    for line in tvb:raw():gmatch("[^\n]+") do
        local client, requested, negotiated, duration, bytes, opts_missing =
            line:match("^(%S+)\t%d+\t([01])\t([01])\t([%d.]+)\t(%d+)\t([01-])$")
        if client then
            local s = by_client[client]
            if not s then
                s = new_summary()
                by_client[client] = s
            end
            add_flow(s, requested == "1", negotiated == "1", tonumber(duration), tonumber(bytes),
                opts_missing)
        end
    end
    for _, s in pairs(by_client) do
        settle(s)
    end
    fed = true
end

-- A generated subtree of rule fields: { {field, value}, ... }, absent values left out.
local function add_rules(tree, proto, title, values)
    local sub = tree:add(proto, title)
    sub:set_generated()
    for _, pair in ipairs(values) do
        if pair[2] ~= nil then
            sub:add(pair[1], pair[2]):set_generated()
        end
    end
    return sub
end

local function is_slower(s)
    return s.slowdown ~= nil and s.slowdown * 100 >= host.prefs.slowdown_pct
end

-- Key 2: the first packet of a flow, with "client \t negotiated(0/1)". (No
-- Field extractors: each one would make tshark keep that field on every packet.)
function host.dissector(tvb, pinfo, tree)
    local client, negotiated = tvb:raw():match("^(%S+)\t([01])$")
    local s = client and by_client[client]
    if not s then
        return
    end
    local sub = add_rules(tree, host, "tcpdiag host rules: client " .. client, {
        { hf.conns, s.conns }, { hf.ecn_requested, s.requested }, { hf.ecn_negotiated, s.negotiated },
        { hf.ecn_share, string.format("%s of %s requested ECN", tostring(s.requested), tostring(s.conns)) },
        { hf.ecn_median_duration, s.ecn_duration }, { hf.other_median_duration, s.other_duration },
        { hf.ecn_median_throughput, s.ecn_throughput }, { hf.other_median_throughput, s.other_throughput },
        { hf.ecn_slowdown, s.slowdown }, { hf.opts_missing_conns, s.opts_missing },
        { hf.opts_share, string.format("%s of %s connections sent SYNs without wscale, sack or ts",
            tostring(s.opts_missing), tostring(s.opts_known)) },
    })
    if negotiated == "1" and is_slower(s) then
        sub:add_proto_expert_info(ei_ecn_slower, string.format(
            "ECN flows of %s are %.1fx slower than its other flows (median %s vs %s)",
            client, s.slowdown, rate(s.ecn_throughput), rate(s.other_throughput)))
    end
end

function host.init()
    by_client = {}
    fed = false
end

hooks:add(1, feed)
hooks:add(2, host)

-- ---------------------------------------------------------------------------
-- Per sender address: which flows used segmentation offload and which did not,
-- and what the ones without it have in common (keys 3 and 4).
-- ---------------------------------------------------------------------------

local sender = Proto("tcpdiag.sender", "tcpdiag per-sender offload rules")
local sender_feed = Proto("tcpdiag.senderfeed", "tcpdiag per-sender offload rules: flow summaries")

local shf = {
    offload = ProtoField.string("tcpdiag.sender.offload", "Offload on this sender",
        "mixed (some flows offloaded, some not), all-capped, all-offloaded or unknown"),
    offloaded_flows = ProtoField.uint32("tcpdiag.sender.offloaded_flows",
        "Flows from this sender that used offload"),
    capped_flows = ProtoField.uint32("tcpdiag.sender.capped_flows",
        "Flows from this sender that did not (capped or mss-capped)"),
    capped_common = ProtoField.string("tcpdiag.sender.capped_common",
        "What the flows without offload have in common",
        "ecn, destination, retransmission (comma-separated), or nothing"),
    capped_median_throughput = ProtoField.double("tcpdiag.sender.capped_median_throughput",
        "Median throughput of the flows without offload (B/s)"),
    offloaded_median_throughput = ProtoField.double("tcpdiag.sender.offloaded_median_throughput",
        "Median throughput of the offloaded flows (B/s)"),
}
sender.fields = {
    shf.offload, shf.offloaded_flows, shf.capped_flows, shf.capped_common,
    shf.capped_median_throughput, shf.offloaded_median_throughput,
}

local ei_offload_unused = ProtoExpert.new("tcpdiag.sender.offload_unused",
    "Offload not used on this flow while other flows from this host use it",
    expert.group.SEQUENCE, expert.severity.NOTE)
sender.experts = { ei_offload_unused }

local by_sender = {}    -- address text -> { flows = {stream -> row}, summary fields }

local function is_capped(verdict)
    return verdict == "capped" or verdict == "mss-capped"
end

-- Traits every flow without offload shares and not every offloaded flow does.
-- ECN is named even when the offloaded flows share it ("ecn (as the offloaded)"):
-- offload and ECN meet in the stacks (TSO of CWR segments), so an analyst must see it.
local function common_traits(s)
    local traits = {}
    local function shared(name, get, even_if_offloaded_too)
        local all_capped, all_offloaded, value = true, true, nil
        for _, f in pairs(s.flows) do
            if is_capped(f.verdict) then
                value = value == nil and get(f) or value
                all_capped = all_capped and get(f) == value
            end
        end
        for _, f in pairs(s.flows) do
            if f.verdict == "offloaded" then
                all_offloaded = all_offloaded and get(f) == value
            end
        end
        if value ~= nil and value ~= false and all_capped and (even_if_offloaded_too or not all_offloaded) then
            table.insert(traits, all_offloaded and name .. " (as the offloaded)" or name)
        end
    end
    shared("ecn", function(f) return f.ecn end, true)
    shared("destination", function(f) return f.network end)
    shared("retransmission", function(f) return f.retransmitted end)
    return #traits > 0 and table.concat(traits, ",") or "nothing"
end

local function settle_sender(s)
    local rates = { capped = {}, offloaded = {} }
    s.offloaded, s.capped = 0, 0
    for _, f in pairs(s.flows) do
        if f.verdict == "offloaded" then
            s.offloaded = s.offloaded + 1
            table.insert(rates.offloaded, f.throughput)
        elseif is_capped(f.verdict) then
            s.capped = s.capped + 1
            table.insert(rates.capped, f.throughput)
        end
    end
    if s.offloaded > 0 and s.capped > 0 then
        s.offload = "mixed"
        s.common = common_traits(s)
    elseif s.capped > 1 then
        s.offload = "all-capped"      -- a host setting, not a per-flow problem
    elseif s.offloaded > 0 then
        s.offload = "all-offloaded"
    else
        s.offload = "unknown"
    end
    s.capped_rate = median(rates.capped)
    s.offloaded_rate = median(rates.offloaded)
end

-- Key 3: one line per flow: sender, stream, verdict, ECN negotiated (0/1),
-- receiver's network, retransmission before the cap (0/1), throughput (B/s),
-- what in the flow itself explains its cap (none, window-collapse, flight-plateau).
function sender_feed.dissector(tvb, pinfo, tree)
    by_sender = {}
    for line in tvb:raw():gmatch("[^\n]+") do
        local address, stream, verdict, ecn, network, retransmitted, throughput, cap_cause =
            line:match("^(%S+)\t(%d+)\t(%S+)\t([01])\t(%S+)\t([01])\t([%d.]+)\t(%S+)$")
        if address then
            local s = by_sender[address]
            if not s then
                s = { flows = {} }
                by_sender[address] = s
            end
            s.flows[stream] = { verdict = verdict, ecn = ecn == "1", network = network,
                                retransmitted = retransmitted == "1", throughput = tonumber(throughput),
                                cap_explained = cap_cause ~= "none" }
        end
    end
    for _, s in pairs(by_sender) do
        settle_sender(s)
    end
end

-- Key 4: the first packet of a flow, with "sender \t stream".
function sender.dissector(tvb, pinfo, tree)
    local address, stream = tvb:raw():match("^(%S+)\t(%d+)$")
    local s = address and by_sender[address]
    local f = s and s.flows[stream]
    if not f or s.offload == "unknown" then
        return
    end
    local sub = add_rules(tree, sender, "tcpdiag sender rules: " .. address, {
        { shf.offload, s.offload }, { shf.offloaded_flows, s.offloaded }, { shf.capped_flows, s.capped },
        { shf.capped_common, s.common }, { shf.capped_median_throughput, s.capped_rate },
        { shf.offloaded_median_throughput, s.offloaded_rate },
    })
    -- A cap the flow itself explains (a collapsed window, a flight plateau) is its
    -- diagnosis, not offload's.
    if s.offload == "mixed" and is_capped(f.verdict) and not f.cap_explained then
        sub:add_proto_expert_info(ei_offload_unused, string.format(
            "Offload not used on this flow while %d other flows from this host use it "
            .. "(in common: %s; median %s vs %s)",
            s.offloaded, s.common, rate(s.capped_rate), rate(s.offloaded_rate)))
    end
end

function sender.init()
    by_sender = {}
end

hooks:add(3, sender_feed)
hooks:add(4, sender)

-- `tshark -2 -z tcpdiag,hosts`: one line per client.
local function report_hosts()
    local tap = Listener.new("tcpdiag")
    function tap.draw()
        print("")
        print("tcpdiag: per-client rules")
        if not fed then
            print("(needs the whole capture first: run tshark with -2)")
            return
        end
        print(string.format("%-40s %6s %9s %10s %12s %12s %9s %13s", "Client", "Conns", "ECN req",
            "ECN negot", "ECN median", "Other median", "Slowdown", "SYNs w/o opts"))
        local clients = {}
        for client in pairs(by_client) do
            table.insert(clients, client)
        end
        table.sort(clients)
        local function secs(v)
            return v and string.format("%.3fs", v) or "-"
        end
        for _, client in ipairs(clients) do
            local s = by_client[client]
            print(string.format("%-40s %6s %9s %10s %12s %12s %9s %13s%s", client, tostring(s.conns),
                tostring(s.requested), tostring(s.negotiated), secs(s.ecn_duration),
                secs(s.other_duration), s.slowdown and string.format("%.1fx", s.slowdown) or "-",
                tostring(s.opts_missing) .. "/" .. tostring(s.opts_known),
                is_slower(s) and "  ECN flows slower" or ""))
        end
    end
end

register_stat_cmd_arg("tcpdiag,hosts", report_hosts)
