-- Drives Neovim (0.7+) headless through the sample configuration in client-samples/neovim/, the
-- way a user works with it, and prints one JSON line with what the editor saw.
--
--   nvim --headless -u NONE -i NONE -n -c 'luafile test/clients/neovim/drive.lua'
--
-- Environment (positions are 0-based "line:character"):
--   PI_NVIM_SAMPLE      the sample configuration to :source (required)
--   PI_NVIM_FILE        the session file to open (required)
--   PI_NVIM_OPTIONS     JSON for vim.g.pi_session, set before sourcing the sample (optional)
--   PI_NVIM_HOVER       where to press K
--   PI_NVIM_DEFINITION  where to press gd
--   PI_NVIM_CONTEXT     line on which to run :PiSessionContext
--   PI_NVIM_FLOAT_LINES lines ("0,3") on which the cursor rests: the float each one opens
--   PI_NVIM_FIX_FILE    a session (a copy: it is edited) on which to run :PiSessionFixAll
--   PI_NVIM_RENAME_FILE a session (a copy) on which to rename, with PI_NVIM_RENAME
--   PI_NVIM_RENAME      "line:character:newName", what to rename there (vim.lsp.buf.rename)
--   PI_NVIM_TIMEOUT_MS  limit for each wait (default 5000)
--   PI_NVIM_WATCHDOG_MS limit for the whole run, after which it reports and quits (default 20000)
--
-- Every step has a time limit; a step that fails records an error and the driver goes on with
-- the next one when it can. It always leaves with :cquit (exit code 0 when no step failed, 1
-- otherwise), also from a watchdog timer and after an uncaught Lua error, so it never leaves
-- Neovim running.

local uv = vim.uv or vim.loop
local started = uv.hrtime()
local function ms()
  return math.floor((uv.hrtime() - started) / 1e6)
end

-- Neovim 0.12 reworked code lenses (vim.lsp.codelens.enable; get() takes a filter).
local new_codelens = vim.lsp.codelens.enable ~= nil

-- 0.12+ resolves only the lenses it draws (from a decoration provider) on lines on screen, and
-- headless Neovim redraws only when asked: give it a screen tall enough for a whole sample
-- session (whose lines the sample does not wrap), and redraw while waiting for lenses, as a
-- terminal would.
if new_codelens then
  vim.o.lines = 120
end

local function log_path()
  local ok, path = pcall(function()
    local log = require('vim.lsp.log')
    return log.get_filename and log.get_filename() or vim.lsp.get_log_path()
  end)
  return ok and path or '?'
end

--- Stops every client, started or not, so that no server outlives Neovim.
local kill_servers = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'report.lua').stop_servers

local out = { client = 'neovim ' .. tostring(vim.version().major) .. '.' .. tostring(vim.version().minor) .. '.' .. tostring(vim.version().patch), errors = {}, ms = {} }
local timeout = tonumber(os.getenv('PI_NVIM_TIMEOUT_MS') or '') or 5000
local finished = false

local function fail(step, message)
  table.insert(out.errors, step .. ': ' .. message)
end

local function finish()
  if finished then
    return
  end
  finished = true
  pcall(kill_servers)
  out.ok = #out.errors == 0
  out.ms.total = ms()
  local ok, encoded = pcall(vim.fn.json_encode, out)
  if not ok then
    encoded = vim.fn.json_encode({ ok = false, errors = { 'could not encode the result: ' .. tostring(encoded) } })
  end
  io.stdout:write(encoded .. '\n')
  io.stdout:flush()
  vim.cmd((#out.errors == 0 and 0 or 1) .. 'cquit')
end

-- The watchdog: whatever happens, report what was seen and leave before the harness kills us.
local watchdog = tonumber(os.getenv('PI_NVIM_WATCHDOG_MS') or '') or 20000
vim.defer_fn(function()
  if not finished then
    fail('watchdog', 'the driver did not finish within ' .. watchdog .. ' ms')
    finish()
  end
end, watchdog)

local function pos_from_env(name)
  local value = os.getenv(name)
  if not value or value == '' then
    return nil
  end
  local line, character = value:match('^(%d+):(%d+)$')
  assert(line, name .. ' must be "line:character", not ' .. value)
  return { tonumber(line), tonumber(character) }
end

--- Waits until `predicate()` returns a truthy value or `timeout` passes; returns that value.
local function wait_for(predicate)
  local value
  vim.wait(timeout, function()
    value = predicate()
    return value and true or false
  end, 10)
  return value
end

local function client_of(bufnr)
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
  for _, client in pairs(clients) do
    if client.name == 'pi_session' then
      return client
    end
  end
end

local function float_windows()
  local wins = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      table.insert(wins, win)
    end
  end
  return wins
end

local function window_named(prefix)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    local name = vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(win))
    if name:sub(1, #prefix) == prefix then
      return win
    end
  end
end

--- What a scratch window shows, and how it is set up.
local function describe_window(win)
  local buf = vim.api.nvim_win_get_buf(win)
  return {
    name = vim.api.nvim_buf_get_name(buf),
    lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
    buftype = vim.bo[buf].buftype,
    filetype = vim.bo[buf].filetype,
    modifiable = vim.bo[buf].modifiable,
    readonly = vim.bo[buf].readonly,
  }
end

--- Lenses as the editor holds them (`vim.lsp.codelens.get`), once every one is resolved.
local function resolved_lenses(bufnr)
  if new_codelens then
    vim.cmd('redraw')
  end
  local lenses = new_codelens and vim.lsp.codelens.get({ bufnr = bufnr }) or vim.lsp.codelens.get(bufnr)
  if #lenses == 0 then
    return nil
  end
  local list = {}
  for _, item in ipairs(lenses) do
    local lens = item.lens or item -- 0.12+ returns {client_id, lens}
    if not lens.command then
      return nil
    end
    table.insert(list, { line = lens.range.start.line, title = lens.command.title, command = lens.command.command })
  end
  table.sort(list, function(a, b)
    return a.line < b.line
  end)
  return list
end

--- The code lens text drawn in the buffer (virtual text of the codelens namespaces).
local function displayed_lenses(bufnr)
  local shown = {}
  for name, ns in pairs(vim.api.nvim_get_namespaces()) do
    if name:find('codelens', 1, true) then
      for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, ns, 0, -1, { details = true })) do
        local chunks = mark[4].virt_text or (mark[4].virt_lines and mark[4].virt_lines[1]) or {}
        local text = {}
        for _, chunk in ipairs(chunks) do
          table.insert(text, chunk[1])
        end
        table.insert(shown, { line = mark[2], text = vim.trim(table.concat(text)) })
      end
    end
  end
  table.sort(shown, function(a, b)
    return a.line < b.line
  end)
  return shown
end

local function main()
  local sample = assert(os.getenv('PI_NVIM_SAMPLE'), 'PI_NVIM_SAMPLE is required')
  local file = assert(os.getenv('PI_NVIM_FILE'), 'PI_NVIM_FILE is required')
  local options = os.getenv('PI_NVIM_OPTIONS')
  if options and options ~= '' then
    vim.g.pi_session = vim.fn.json_decode(options)
  end

  -- Observe the editor's own handlers without replacing them.
  local published = {}
  local on_publish = vim.lsp.handlers['textDocument/publishDiagnostics']
  vim.lsp.handlers['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
    local value = on_publish(err, result, ctx, config)
    if result and result.uri then
      published[result.uri] = (published[result.uri] or 0) + 1
      out.diagnosticsVia = 'push'
    end
    return value
  end
  -- Neovim 0.10+ pulls diagnostics (textDocument/diagnostic) when the server offers it.
  local on_pull = vim.lsp.handlers['textDocument/diagnostic']
  if on_pull then
    vim.lsp.handlers['textDocument/diagnostic'] = function(err, result, ctx, config)
      local value = on_pull(err, result, ctx, config)
      local doc = ctx and ctx.params and ctx.params.textDocument
      if result and doc then
        published[doc.uri] = (published[doc.uri] or 0) + 1
        out.diagnosticsVia = 'pull'
      end
      return value
    end
  end
  local on_configuration = vim.lsp.handlers['workspace/configuration']
  vim.lsp.handlers['workspace/configuration'] = function(err, result, ctx, config)
    local value = on_configuration(err, result, ctx, config)
    out.configuration = { asked = result and result.items or vim.NIL, answered = value }
    return value
  end

  -- Neovim turns filetype detection and syntax highlighting on at startup; -u NONE skips that,
  -- so do it as `nvim -u SAMPLE` would: filetype detection (the 0.11+ sample relies on
  -- vim.filetype.add), the sample, then syntax highlighting.
  vim.cmd('filetype on')
  vim.cmd('source ' .. vim.fn.fnameescape(sample))
  vim.cmd('syntax on')
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(bufnr)
  out.filetype = vim.bo[bufnr].filetype
  out.markedAsSession = vim.b[bufnr].pi_session == true
  -- How the session is shown: not wrapped, in colour (the sample sets JSON's syntax a moment later).
  out.wrap = vim.wo.wrap
  wait_for(function()
    return vim.b[bufnr].current_syntax ~= nil
  end)
  out.syntax = vim.bo[bufnr].syntax
  out.currentSyntax = vim.b[bufnr].current_syntax or vim.NIL
  out.jsonlSyntaxFile = #vim.api.nvim_get_runtime_file('syntax/jsonl.vim', false) > 0

  -- 1. The sample starts the server and attaches it; it is usable once initialized.
  local client = wait_for(function()
    local c = client_of(bufnr)
    return c and c.initialized and c
  end)
  out.ms.initialize = ms()
  if not client then
    fail('initialize', 'no initialized pi_session client attached to the buffer within ' .. timeout .. ' ms (filetype "' .. out.filetype .. '"; server log: ' .. log_path() .. ')')
    return
  end
  out.clientName = client.name
  -- What CTRL-X CTRL-O calls: the sample sets it on 0.7, later Neovims on attach.
  out.omnifunc = vim.bo[bufnr].omnifunc
  out.initOptions = client.config.init_options
  out.settings = client.config.settings
  local capabilities = client.config.capabilities or vim.lsp.protocol.make_client_capabilities()
  out.configurationCapability = (capabilities.workspace or {}).configuration == true

  -- 2. Diagnostics, pushed by the server after didOpen.
  if wait_for(function()
    return (published[uri] or 0) > 0
  end) then
    out.ms.diagnostics = ms()
    out.diagnostics = {}
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      table.insert(out.diagnostics, { line = d.lnum, character = d.col, severity = d.severity, code = d.code or vim.NIL, message = d.message })
    end
    table.sort(out.diagnostics, function(a, b)
      return a.line < b.line or (a.line == b.line and a.character < b.character)
    end)
  else
    fail('diagnostics', 'no textDocument/publishDiagnostics for ' .. uri .. ' within ' .. timeout .. ' ms')
  end

  -- 3. Hover: K on the position, read the floating window it opens.
  local hover_at = pos_from_env('PI_NVIM_HOVER')
  if hover_at then
    vim.api.nvim_win_set_cursor(0, { hover_at[1] + 1, hover_at[2] })
    vim.lsp.buf.hover()
    local win = wait_for(function()
      return float_windows()[1]
    end)
    if win then
      out.ms.hover = ms()
      out.hover = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), '\n')
      for _, w in ipairs(float_windows()) do
        vim.api.nvim_win_close(w, true)
      end
    else
      fail('hover', 'no hover window opened within ' .. timeout .. ' ms at ' .. hover_at[1] .. ':' .. hover_at[2])
    end
  end

  -- 4. Definition: gd on a reference must move the cursor to the entry it names.
  local definition_at = pos_from_env('PI_NVIM_DEFINITION')
  if definition_at then
    local start = { definition_at[1] + 1, definition_at[2] }
    vim.api.nvim_win_set_cursor(0, start)
    vim.lsp.buf.definition()
    local moved = wait_for(function()
      local cursor = vim.api.nvim_win_get_cursor(0)
      return (cursor[1] ~= start[1] or cursor[2] ~= start[2]) and cursor
    end)
    if moved then
      out.ms.definition = ms()
      out.cursorAfterDefinition = { line = moved[1] - 1, character = moved[2], file = vim.api.nvim_buf_get_name(0) }
    else
      fail('definition', 'the cursor did not move from ' .. definition_at[1] .. ':' .. definition_at[2] .. ' within ' .. timeout .. ' ms')
    end
    vim.api.nvim_set_current_buf(bufnr)
  end

  -- 5. Code lenses: those the sample requested when it attached, then after an explicit refresh.
  out.codelensOnAttach = wait_for(function()
    return resolved_lenses(bufnr)
  end)
  if not out.codelensOnAttach then
    fail('codelens', 'the sample showed no resolved code lens within ' .. timeout .. ' ms of attaching')
  end
  if new_codelens then
    vim.lsp.codelens.enable(true, { bufnr = bufnr })
  else
    vim.lsp.codelens.refresh()
  end
  vim.wait(50)
  out.codelens = wait_for(function()
    return resolved_lenses(bufnr)
  end)
  if out.codelens then
    out.ms.codelens = ms()
    -- Drawn as virtual text once every lens on the line is resolved.
    wait_for(function()
      if new_codelens then
        vim.cmd('redraw')
      end
      local shown = displayed_lenses(bufnr)
      return #shown > 0 and not shown[1].text:find('Unresolved', 1, true)
    end)
    out.codelensDisplayed = displayed_lenses(bufnr)
  else
    fail('codelens', 'no resolved code lens within ' .. timeout .. ' ms of vim.lsp.codelens.refresh()')
  end

  -- 5b. The cursor resting on a line (CursorHold): the float with the line's problems and lenses.
  for row in (os.getenv('PI_NVIM_FLOAT_LINES') or ''):gmatch('%d+') do
    out.lineFloats = out.lineFloats or {}
    for _, w in ipairs(float_windows()) do
      vim.api.nvim_win_close(w, true)
    end
    vim.api.nvim_win_set_cursor(0, { tonumber(row) + 1, 0 })
    -- The sample opens the float at once (the diagnostics and lenses are already there): no wait,
    -- so that a line with nothing to say costs nothing.
    vim.cmd('doautocmd CursorHold')
    local win = float_windows()[1]
    local shown = win and vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false) or {}
    table.insert(out.lineFloats, { line = tonumber(row), lines = shown })
    if win then
      vim.api.nvim_win_close(win, true)
    end
  end

  -- 6. :PiSessionContext on an entry line: the context from that entry in a read-only scratch split.
  local base = 'pi-context://' .. vim.fn.fnamemodify(file, ':t') .. '/'
  local context_line = tonumber(os.getenv('PI_NVIM_CONTEXT') or '')
  if context_line then
    vim.api.nvim_win_set_cursor(0, { context_line + 1, 0 })
    vim.cmd('PiSessionContext')
    local win = wait_for(function()
      local w = window_named(base)
      return w and vim.api.nvim_buf_line_count(vim.api.nvim_win_get_buf(w)) > 1 and w
    end)
    if win then
      out.ms.contextCommand = ms()
      out.contextCommand = describe_window(win)
      vim.api.nvim_win_close(win, true)
    else
      fail('PiSessionContext', 'no ' .. base .. '… window within ' .. timeout .. ' ms')
    end
    vim.api.nvim_set_current_buf(bufnr)
  end

  -- 7. The header's lens, run as a user runs it: the active context in a scratch split. Coming
  -- back to the buffer may have fetched the lenses again; a user sees them once they are resolved,
  -- and so must the run (Neovim 0.7 fails on a lens without its command), however slow the machine.
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  wait_for(function()
    return resolved_lenses(bufnr)
  end)
  vim.lsp.codelens.run()
  local win = wait_for(function()
    local w = window_named(base .. 'active')
    return w and vim.api.nvim_buf_line_count(vim.api.nvim_win_get_buf(w)) > 1 and w
  end)
  if win then
    out.ms.contextLens = ms()
    out.contextLens = describe_window(win)
    vim.api.nvim_win_close(win, true)
  else
    fail('codelens.run', 'running the header lens opened no ' .. base .. 'active window within ' .. timeout .. ' ms')
  end

  -- 8. Editing, each on its own copy of a session: Fix all, then a rename. Neither may write the file.
  local function edit_copy(step, path)
    vim.cmd('hide edit ' .. vim.fn.fnameescape(path))
    local buf = vim.api.nvim_get_current_buf()
    if not wait_for(function()
      local c = client_of(buf)
      return c and c.initialized
    end) then
      fail(step, 'no initialized pi_session client attached to ' .. path .. ' within ' .. timeout .. ' ms')
      return nil
    end
    return buf
  end
  --- Runs `action` and waits until it changed the buffer; then what the buffer holds.
  local function after_change(step, buf, action)
    local tick = vim.api.nvim_buf_get_changedtick(buf)
    action()
    if not wait_for(function()
      return vim.api.nvim_buf_get_changedtick(buf) ~= tick
    end) then
      fail(step, 'the buffer did not change within ' .. timeout .. ' ms')
      return nil
    end
    out.ms[step] = ms()
    return { lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false), eol = vim.bo[buf].eol, modified = vim.bo[buf].modified }
  end
  local fix_file = os.getenv('PI_NVIM_FIX_FILE')
  if fix_file and fix_file ~= '' then
    local buf = edit_copy('fixAll', fix_file)
    if buf then
      local before = wait_for(function()
        return resolved_lenses(buf)
      end)
      out.fixAll = after_change('fixAll', buf, function()
        vim.cmd('PiSessionFixAll')
      end)
      -- The lenses after Fix all, without any refresh by hand, once they differ from before; then
      -- those of a fresh buffer with the same text, to compare.
      local same = vim.deep_equal or function(a, b)
        return vim.inspect(a) == vim.inspect(b)
      end
      out.lensesBeforeFixAll = before
      out.lensesAfterFixAll = wait_for(function()
        local now = resolved_lenses(buf)
        return now and not same(now, before) and now
      end) or resolved_lenses(buf)
      local fresh_path = fix_file .. '.fresh.jsonl'
      vim.fn.writefile(vim.api.nvim_buf_get_lines(buf, 0, -1, false), fresh_path)
      local fresh = edit_copy('fixAll', fresh_path)
      if fresh then
        out.lensesOfFixedText = wait_for(function()
          return resolved_lenses(fresh)
        end)
      end
    end
  end
  local rename_file = os.getenv('PI_NVIM_RENAME_FILE')
  if rename_file and rename_file ~= '' then
    local line, character, new_name = (os.getenv('PI_NVIM_RENAME') or ''):match('^(%d+):(%d+):(.+)$')
    assert(line, 'PI_NVIM_RENAME must be "line:character:newName"')
    local buf = edit_copy('rename', rename_file)
    if buf then
      vim.api.nvim_win_set_cursor(0, { tonumber(line) + 1, tonumber(character) })
      out.rename = after_change('rename', buf, function()
        vim.lsp.buf.rename(new_name)
      end)
    end
  end

  -- 9. Shut the server down.
  local id = client.id
  if vim.fn.has('nvim-0.11') == 1 then
    client:stop()
  else
    vim.lsp.stop_client(id)
  end
  if not wait_for(function()
    return vim.lsp.get_client_by_id(id) == nil
  end) then
    fail('shutdown', 'the server was still running ' .. timeout .. ' ms after stop_client')
  end
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  fail('driver', tostring(err))
end
finish()
