-- Wireshark's GUI calls, stubbed, so that lua/tcpdiag_window.lua runs under tshark
-- (test_lua_window.py): the window's text and each button's action are printed. Once
-- the window shows a diagnosis, every finding's buttons are pressed in turn (Filter
-- its flows, Go to evidence, Go to slowest exchange twice, Copy fix, then Next finding).
--   tshark -2 -r FILE -q -X lua_script:lua_window_stubs.lua -X lua_script1:WINDOW_LUA
-- The stubs go into _G: the window, loaded with dofile, reads its globals there.
local window_file = ...
local buttons = {}
local pressing = false
local open_window

_G.gui_enabled = function() return true end
_G.register_menu = function(_, action) open_window = action end
_G.retap_packets = function() end
_G.set_filter = function(filter) print("set_filter: " .. filter) end
_G.apply_filter = function() print("apply_filter") end
_G.goto_frame = function(frame) print("goto_frame: " .. frame) end
_G.copy_to_clipboard = function(text) print("copy_to_clipboard: " .. text) end

local function press_every_finding(text)
    local _, findings = text:gsub("\n[> ] %d+%. ", "")
    for _ = 1, findings do
        for _, label in ipairs({ "Filter its flows", "Go to evidence", "Go to slowest exchange",
                                 "Go to slowest exchange", "Copy fix", "Next finding" }) do
            buttons[label]()
        end
    end
end

_G.TextWindow = {
    new = function()
        local window = {}
        function window:set(text)
            print("---- window")
            io.write(text)
            print("---- end")
            -- Next finding shows the window again: press only from the first showing
            if not pressing and text:find("^tcpdiag: ") then
                pressing = true
                press_every_finding(text)
                pressing = false
            end
        end
        function window:set_atclose() end
        function window:add_button(label, action) buttons[label] = action end
        return window
    end,
}

dofile(window_file)
open_window()
