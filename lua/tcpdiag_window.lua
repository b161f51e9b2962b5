-- tcpdiag's Lua layer: the "TCP diagnosis" window (Tools menu), the ranked findings
-- of the loaded capture with buttons that filter on a finding's flows, go to its
-- evidence packet and copy its fix. Wireshark 4.0 (Lua 5.2) to 4.6 (Lua 5.4).
--
-- The findings come from the C plugin's answer packets (plugin/diag-tcpdiag.c), read
-- as fields of the field table (docs/fields.md), never from the words of their expert
-- items: on the first flow's first packet the capture's headline and its counts
-- (tcpdiag.capture.*); on the evidence packet of each flow of a finding the finding's
-- rank (tcpdiag.diag.finding) beside the flow's own answer (tcpdiag.diag.cause,
-- summary, fix); on its flow that lost most, what the finding is about
-- (tcpdiag.diag.findings, finding_who, finding_role, finding_flows, finding_lost); on
-- each exchange's first packet the exchange (tcpdiag.exchange.*), of which the window
-- lists the slowest of a finding's flow that lost most and goes to them. A
-- Listener reads them only while the window is open (retap_packets); closing the
-- window removes it. Nothing here runs per packet otherwise, and no Field extractor
-- is declared: Wireshark would then build a tree for every packet of every file
-- (docs/architecture.md, "The Lua layer").

if not gui_enabled() then
    return
end

local TITLE = "TCP diagnosis"

-- The packets that carry the answer: a finding's flow's evidence, the capture's first,
-- each exchange's first.
local ANSWER_PACKETS = "tcpdiag.diag.finding || tcpdiag.capture.flows || tcpdiag.exchange.index"

-- The slowest exchanges a flow keeps, as the HTML report lists them (series.h).
local SLOWEST = 3

-- The answer fields a packet's tree may hold, by name: the key each is kept under.
local ANSWER_FIELDS = {
    ["tcpdiag.diag.cause"] = "cause",
    ["tcpdiag.diag.summary"] = "summary",
    ["tcpdiag.diag.fix"] = "fix",
    ["tcpdiag.diag.finding"] = "rank",
    ["tcpdiag.diag.findings"] = "count",
    ["tcpdiag.diag.finding_who"] = "who",
    ["tcpdiag.diag.finding_role"] = "role",
    ["tcpdiag.diag.finding_flows"] = "flows",
    ["tcpdiag.capture.headline"] = "headline",
    ["tcpdiag.capture.flows"] = "capture_flows",
    ["tcpdiag.capture.slow"] = "capture_slow",
    ["tcpdiag.capture.healthy"] = "capture_healthy",
}

-- What one answer packet holds, read from its finished tree. The time a finding lost
-- is kept as its tree labels it ("1.42 s"), the field table's one label rule.
local function read_answer_packet(pinfo)
    local packet = { frame = pinfo.number }
    for _, field in ipairs({ all_field_infos() }) do
        local name = field.name
        local key = ANSWER_FIELDS[name]
        if key then
            packet[key] = field.value
        elseif name == "tcpdiag.diag.finding_lost" then
            packet.lost = field.display
        elseif name == "tcpdiag.diag.finding_span" then
            packet.span = field.display
        elseif name == "tcpdiag.exchange.index" then
            packet.exchange = packet.exchange or {}
            packet.exchange.index = field.value
        elseif name == "tcpdiag.exchange.active" then
            -- its value for the ranking (an NSTime prints as seconds), its label to read
            packet.exchange = packet.exchange or {}
            packet.exchange.active = tonumber(tostring(field.value))
            packet.exchange.active_label = field.display
        elseif name == "tcpdiag.exchange.server_time" then
            packet.exchange = packet.exchange or {}
            packet.exchange.server_label = field.display
        elseif name == "tcp.stream" and packet.stream == nil then
            packet.stream = field.value
        end
    end
    return packet
end

-- The capture's diagnosis as the answer packets tell it.
local function new_diagnosis()
    return { capture = nil, findings = {}, count = 0, exchanges = {} }
end

-- A flow's exchanges as they come: the SLOWEST with the most active time, the most
-- first (the earlier of two as slow ahead), and how many there were.
local function add_exchange(diagnosis, stream, exchange)
    local flow = diagnosis.exchanges[stream]
    if not flow then
        flow = { seen = 0, slowest = {} }
        diagnosis.exchanges[stream] = flow
    end
    flow.seen = flow.seen + 1
    local at = #flow.slowest + 1
    while at > 1 and flow.slowest[at - 1].active < exchange.active do
        at = at - 1
    end
    if at <= SLOWEST then
        table.insert(flow.slowest, at, exchange)
        flow.slowest[SLOWEST + 1] = nil
    end
end

local function finding_at(diagnosis, rank)
    local finding = diagnosis.findings[rank]
    if not finding then
        finding = { rank = rank, streams = {} }
        diagnosis.findings[rank] = finding
    end
    return finding
end

local function add_answer_packet(diagnosis, packet)
    if packet.exchange then
        packet.exchange.frame = packet.frame
        add_exchange(diagnosis, packet.stream, packet.exchange)
    end
    if packet.headline then
        diagnosis.capture = { headline = packet.headline, flows = packet.capture_flows,
            slow = packet.capture_slow, healthy = packet.capture_healthy }
    end
    if not packet.rank then
        return
    end
    local finding = finding_at(diagnosis, packet.rank)
    table.insert(finding.streams, packet.stream)
    if packet.who then
        -- the finding's flow that lost most: the finding is told here
        diagnosis.count = packet.count
        finding.who = packet.who
        finding.role = packet.role
        finding.flows = packet.flows
        finding.lost = packet.lost
        finding.span = packet.span
        finding.summary = packet.summary
        finding.frame = packet.frame
        finding.stream = packet.stream
        finding.cause = packet.cause
        finding.fix = packet.fix
    end
end

-- "K flows, T lost", T left out when nothing known was lost; "T lost over S" when the
-- flows ran side by side (S the capture time they covered, tcpdiag.diag.finding_span),
-- as the text report and Expert Information say it.
local function finding_cost(finding)
    local cost = string.format("%d flow%s", finding.flows, finding.flows == 1 and "" or "s")
    if finding.lost then
        cost = cost .. ", " .. finding.lost .. " lost"
        if finding.span then
            cost = cost .. " over " .. finding.span
        end
    end
    return cost
end

local function flows_filter(finding)
    local terms = {}
    table.sort(finding.streams)
    for _, stream in ipairs(finding.streams) do
        table.insert(terms, "tcp.stream == " .. stream)
    end
    return table.concat(terms, " || ")
end

-- The slowest exchanges of the finding's flow that lost most, none for a flow of one
-- exchange (its time is the flow's).
local function slowest_exchanges(diagnosis, finding)
    local flow = diagnosis.exchanges[finding.stream]
    if not flow or flow.seen < 2 then
        return {}
    end
    return flow.slowest
end

local function exchanges_line(diagnosis, finding)
    local items = {}
    for _, exchange in ipairs(slowest_exchanges(diagnosis, finding)) do
        table.insert(items, string.format("#%d at frame %d (%s, server %s)", exchange.index, exchange.frame,
            exchange.active_label, exchange.server_label))
    end
    if #items == 0 then
        return nil
    end
    return string.format("     Slowest exchanges of stream %d (of %d): %s", finding.stream,
        diagnosis.exchanges[finding.stream].seen, table.concat(items, ", "))
end

-- The line under the findings when no flow is slow; nil when one is.
local function closing_line(capture)
    if capture.slow > 0 then
        return nil
    end
    if capture.healthy == capture.flows then
        return string.format("%d flow%s, all healthy.", capture.flows, capture.flows == 1 and "" or "s")
    end
    return "No slow flow (" .. capture.headline .. ")."
end

local function render(diagnosis, selected)
    local lines = {}
    if not diagnosis.capture then
        return "No tcpdiag diagnosis for this capture yet.\n\n" ..
            "The verdicts exist once the file has been read whole: press Refresh when it has\n" ..
            "loaded. No TCP flow, or the tcpdiag plugin not loaded (Help > About Wireshark >\n" ..
            "Plugins), gives this too.\n"
    end
    table.insert(lines, "tcpdiag: " .. diagnosis.capture.headline)
    table.insert(lines, "")
    for rank = 1, diagnosis.count do
        local finding = diagnosis.findings[rank]
        if finding and finding.who then
            local mark = rank == selected and ">" or " "
            table.insert(lines, string.format("%s %d. %s: %s (%s), %s", mark, rank, finding.cause or "?",
                finding.who, finding.role, finding_cost(finding)))
            table.insert(lines, "     " .. finding.summary)
            table.insert(lines, string.format("     Flows: %s; evidence at frame %d", flows_filter(finding),
                finding.frame))
            table.insert(lines, "     Fix: " .. (finding.fix or "-"))
            local exchanges = exchanges_line(diagnosis, finding)
            if exchanges then
                table.insert(lines, exchanges)
            end
            table.insert(lines, "")
        end
    end
    local closing = closing_line(diagnosis.capture)
    if closing then
        table.insert(lines, closing)
    else
        table.insert(lines, "> marks the finding the buttons act on (Next finding moves it; Go to slowest")
        table.insert(lines, "exchange goes to each of its flow's slowest exchanges in turn).")
        table.insert(lines, "Its flow in pictures: Go to evidence, then Statistics > TCP Stream Graphs >")
        table.insert(lines, "Time Sequence (Stevens), or Statistics > I/O Graphs (the tcpdiag profile's presets).")
    end
    return table.concat(lines, "\n") .. "\n"
end

local function open_window()
    -- Its size is not ours to set: Wireshark 4.0 to 4.6's TextWindow has new(title),
    -- set, append, prepend, clear, set_atclose, set_editable, get_text, add_button
    -- (and close), and the GUI's new_text_window(ops_id, title) takes no size
    -- (epan/wslua/wslua_gui.c). The Qt dialog opens at its .ui size (620x450,
    -- ui/qt/funnel_text_dialog.ui) or at the size the user last gave the window of
    -- this title, which it keeps (GeometryStateDialog "Funnel TCP diagnosis").
    local window = TextWindow.new(TITLE)
    local diagnosis = new_diagnosis()
    local selected = 1
    local exchange_turn = 0     -- the slowest exchange Go to slowest exchange went to last
    local listener = Listener.new(nil, ANSWER_PACKETS, true)
    -- Wireshark 4.0's fallback for goto_frame: the filter to apply once the GUI
    -- has shown the evidence frame alone (see go_to).
    local filter_after_goto = nil

    local function show()
        window:set(render(diagnosis, selected))
    end
    local function current()
        return diagnosis.findings[selected]
    end

    function listener.reset()
        diagnosis = new_diagnosis()
        exchange_turn = 0
    end
    function listener.packet(pinfo)
        add_answer_packet(diagnosis, read_answer_packet(pinfo))
    end
    function listener.draw()
        if selected > diagnosis.count then
            selected = 1
        end
        show()
        if filter_after_goto then
            set_filter(filter_after_goto)
            filter_after_goto = nil
            apply_filter()
        end
    end

    -- Wireshark 4.2 and later select a frame with goto_frame. Wireshark 4.0 has
    -- none: a filter that shows the frame alone makes the GUI select it, and once
    -- that refilter is over (its retap ends in listener.draw) the finding's flows
    -- filter keeps it selected. Filters apply asynchronously: both at once would race.
    local function go_to(frame, then_filter)
        if goto_frame then
            goto_frame(frame)
            return
        end
        filter_after_goto = then_filter
        set_filter("frame.number == " .. frame)
        apply_filter()
    end

    window:set_atclose(function() listener:remove() end)
    window:add_button("Next finding", function()
        if diagnosis.count > 0 then
            selected = selected % diagnosis.count + 1
            exchange_turn = 0
            show()
        end
    end)
    window:add_button("Filter its flows", function()
        local finding = current()
        if finding then
            set_filter(flows_filter(finding))
            apply_filter()
        end
    end)
    window:add_button("Go to evidence", function()
        local finding = current()
        if finding then
            go_to(finding.frame, flows_filter(finding))
        end
    end)
    window:add_button("Go to slowest exchange", function()
        local finding = current()
        local exchanges = finding and slowest_exchanges(diagnosis, finding) or {}
        if #exchanges > 0 then
            exchange_turn = exchange_turn % #exchanges + 1
            go_to(exchanges[exchange_turn].frame, flows_filter(finding))
        end
    end)
    window:add_button("Copy fix", function()
        local finding = current()
        if finding and finding.fix then
            copy_to_clipboard(finding.fix)
        end
    end)
    window:add_button("Refresh", function() retap_packets() end)
    show()
    retap_packets()
end

register_menu(TITLE, open_window, MENU_TOOLS_UNSORTED)
