-- Drives Neovim 0.11+ headless with nothing but client-samples/neovim/lsp/pi_session.lua, the
-- config written for nvim-lspconfig: that folder goes on 'runtimepath' (where nvim-lspconfig's
-- own `lsp/` files are found), and the only setup is `vim.lsp.enable('pi_session')`, a user's
-- whole configuration after installing it. Prints one JSON line with what the editor saw.
--
--   nvim --headless -u NONE -i NONE -n -c 'luafile test/clients/neovim/lspconfig.lua'
--
-- Environment (positions are 0-based "line:character"):
--   PI_NVIM_RTP         the folder holding lsp/pi_session.lua (required)
--   PI_NVIM_FILES       JSON list of files to open, in order; each is reported (required)
--   PI_NVIM_UNATTACHED  JSON list of those files that must get no client (waited for briefly)
--   PI_NVIM_HOVER       where to press K, in the first file
--   PI_NVIM_FIX         "1": run :LspPiSessionFixAll in the first file (which must not be written)
--   PI_NVIM_TIMEOUT_MS  limit for each wait (default 5000)
--   PI_NVIM_WATCHDOG_MS limit for the whole run (default 20000)

local timeout = tonumber(os.getenv('PI_NVIM_TIMEOUT_MS') or '') or 5000
local version = vim.version()
local out = { client = ('neovim %d.%d.%d'):format(version.major, version.minor, version.patch), errors = {}, files = {} }
local report = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'report.lua')
local finish = report.finisher(out, tonumber(os.getenv('PI_NVIM_WATCHDOG_MS') or '') or 20000)

local function fail(step, message)
  table.insert(out.errors, step .. ': ' .. message)
end

local function wait_for(predicate, ms)
  local value
  vim.wait(ms or timeout, function()
    value = predicate()
    return value and true or false
  end, 10)
  return value
end

local function client_of(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = 'pi_session' })[1]
end

local function main()
  local files = vim.json.decode((assert(os.getenv('PI_NVIM_FILES'), 'PI_NVIM_FILES is required')))
  local unattached = {}
  for _, file in ipairs(vim.json.decode(os.getenv('PI_NVIM_UNATTACHED') or '[]')) do
    unattached[file] = true
  end

  -- What a user's init does by default (-u NONE skips it): detect filetypes. Then the whole setup.
  vim.cmd('filetype on')
  vim.opt.runtimepath:append(assert(os.getenv('PI_NVIM_RTP'), 'PI_NVIM_RTP is required'))
  vim.lsp.enable('pi_session')
  out.configFile = vim.api.nvim_get_runtime_file('lsp/pi_session.lua', true)

  local published = {}
  local on_publish = vim.lsp.handlers['textDocument/publishDiagnostics']
  vim.lsp.handlers['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
    local value = on_publish(err, result, ctx, config)
    if result and result.uri then
      published[result.uri] = true
    end
    return value
  end
  local on_pull = vim.lsp.handlers['textDocument/diagnostic']
  vim.lsp.handlers['textDocument/diagnostic'] = function(err, result, ctx, config)
    local value = on_pull(err, result, ctx, config)
    local doc = ctx and ctx.params and ctx.params.textDocument
    if result and doc then
      published[doc.uri] = true
    end
    return value
  end

  local first
  for i, file in ipairs(files) do
    vim.cmd('edit ' .. vim.fn.fnameescape(file))
    local bufnr = vim.api.nvim_get_current_buf()
    first = first or bufnr
    local seen = { file = file, filetype = vim.bo[bufnr].filetype }
    out.files[i] = seen
    -- A file the config must leave alone (PI_NVIM_UNATTACHED) gets no client: wait a moment only,
    -- then report none. Every other file waits the step's limit, since on a busy machine a server
    -- that starts for a new root can take longer than any moment.
    local client = wait_for(function()
      local c = client_of(bufnr)
      return c and c.initialized and c
    end, unattached[file] and 1500 or timeout)
    if client then
      seen.clientId = client.id
      seen.clientName = client.name
      seen.rootDir = client.root_dir
      seen.cmd = client.config.cmd
      seen.settings = client.config.settings
      seen.commands = vim.tbl_keys(vim.api.nvim_buf_get_commands(bufnr, {}))
      local uri = vim.uri_from_bufnr(bufnr)
      if wait_for(function()
        return published[uri]
      end) then
        seen.diagnostics = {}
        for _, d in ipairs(vim.diagnostic.get(bufnr)) do
          table.insert(seen.diagnostics, { line = d.lnum, character = d.col, severity = d.severity, code = d.code or vim.NIL })
        end
      else
        fail('diagnostics', 'none arrived for ' .. file .. ' within ' .. timeout .. ' ms')
      end
    end
  end
  if not first or not client_of(first) then
    fail('initialize', 'no pi_session client attached to ' .. tostring(files[1]) .. ' within ' .. timeout .. ' ms')
    return
  end
  vim.api.nvim_set_current_buf(first)

  -- K: Neovim 0.11+ maps it to vim.lsp.buf.hover(); read the floating window it opens.
  local hover = os.getenv('PI_NVIM_HOVER')
  if hover and hover ~= '' then
    local line, character = hover:match('^(%d+):(%d+)$')
    vim.api.nvim_win_set_cursor(0, { tonumber(line) + 1, tonumber(character) })
    vim.lsp.buf.hover()
    local win = wait_for(function()
      for _, w in ipairs(vim.api.nvim_list_wins()) do
        if vim.api.nvim_win_get_config(w).relative ~= '' then
          return w
        end
      end
    end)
    if win then
      out.hover = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), '\n')
      vim.api.nvim_win_close(win, true)
    else
      fail('hover', 'no hover window within ' .. timeout .. ' ms at ' .. hover)
    end
  end

  -- Fix all, from the config's buffer-local command: the buffer changes, the file does not.
  if os.getenv('PI_NVIM_FIX') == '1' then
    local tick = vim.api.nvim_buf_get_changedtick(first)
    vim.cmd('LspPiSessionFixAll')
    if wait_for(function()
      return vim.api.nvim_buf_get_changedtick(first) ~= tick
    end) then
      out.fixAll = { lines = vim.api.nvim_buf_get_lines(first, 0, -1, false), eol = vim.bo[first].eol, modified = vim.bo[first].modified }
    else
      fail('LspPiSessionFixAll', 'the buffer did not change within ' .. timeout .. ' ms')
    end
  end
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  fail('driver', tostring(err))
end
finish()
