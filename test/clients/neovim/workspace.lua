-- Drives headless Neovim (0.7+) through the sample configuration to the server's index of every
-- session: opens a session in Pi's sessions folder, asks for workspace symbols until the index has
-- the sessions that are not open, presses gd on the header's parentSession (which opens the parent
-- session's file) and gr on the parent's header (its forks), and prints one JSON line.
--
--   nvim --headless -u NONE -i NONE -n -c 'luafile test/clients/neovim/workspace.lua'
--
-- Environment: PI_NVIM_SAMPLE (the sample to :source), PI_NVIM_FILE (the session to open),
-- PI_NVIM_QUERY (the workspace symbol query), PI_NVIM_DEFINITION ("line:character" of the
-- parentSession value), PI_NVIM_TIMEOUT_MS (each wait, default 8000). It always leaves with
-- :cquit, from a watchdog too, so Neovim never outlives the test.

local out = { errors = {} }
local timeout = tonumber(os.getenv('PI_NVIM_TIMEOUT_MS') or '') or 8000
local finish = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'report.lua').finisher(out, 4 * timeout)

local function client_of(bufnr)
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
  for _, client in pairs(clients) do
    if client.name == 'pi_session' then
      return client
    end
  end
end

local function main()
  vim.cmd('source ' .. vim.fn.fnameescape(assert(os.getenv('PI_NVIM_SAMPLE'))))
  vim.cmd('edit ' .. vim.fn.fnameescape(assert(os.getenv('PI_NVIM_FILE'))))
  local bufnr = vim.api.nvim_get_current_buf()
  if not vim.wait(timeout, function()
    return client_of(bufnr) ~= nil and client_of(bufnr).initialized ~= false
  end, 20) then
    table.insert(out.errors, 'attach: no pi_session client')
    return finish()
  end

  -- Workspace symbols: asked again until the background index has the closed sessions.
  local query = os.getenv('PI_NVIM_QUERY') or ''
  local own = vim.uri_from_bufnr(bufnr)
  vim.wait(timeout, function()
    local responses = vim.lsp.buf_request_sync(bufnr, 'workspace/symbol', { query = query }, timeout) or {}
    for _, response in pairs(responses) do
      for _, symbol in ipairs(response.result or {}) do
        if symbol.location.uri ~= own then
          out.symbols = response.result
          return true
        end
      end
    end
    return false
  end, 100)
  if not out.symbols then
    table.insert(out.errors, 'workspace/symbol: nothing from a closed session for ' .. query)
  end

  -- gd on parentSession: Neovim opens the parent's file, the cursor on its header's id.
  local line, character = (os.getenv('PI_NVIM_DEFINITION') or ''):match('^(%d+):(%d+)$')
  if line then
    vim.api.nvim_win_set_cursor(0, { tonumber(line) + 1, tonumber(character) })
    vim.lsp.buf.definition()
    if vim.wait(timeout, function()
      return vim.api.nvim_get_current_buf() ~= bufnr
    end, 20) then
      local cursor = vim.api.nvim_win_get_cursor(0)
      out.definition = { file = vim.api.nvim_buf_get_name(0), line = cursor[1] - 1, character = cursor[2] }
    else
      table.insert(out.errors, 'gd: no other file opened')
    end
    -- References on the parent's header line: the sessions forked from it.
    local parent = vim.api.nvim_get_current_buf()
    if vim.wait(timeout, function()
      return client_of(parent) ~= nil
    end, 20) then
      local params = { textDocument = { uri = vim.uri_from_bufnr(parent) }, position = { line = 0, character = 3 }, context = { includeDeclaration = false } }
      local responses = vim.lsp.buf_request_sync(parent, 'textDocument/references', params, timeout) or {}
      for _, response in pairs(responses) do
        out.references = response.result
      end
    end
  end
  finish()
end

local ok, err = pcall(main)
if not ok then
  table.insert(out.errors, 'lua: ' .. tostring(err))
  finish()
end
