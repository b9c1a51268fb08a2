-- Drives Neovim 0.12+ headless with client-samples/neovim/lsp/pi_session.lua (on 'runtimepath',
-- `vim.lsp.enable('pi_session')` as the whole setup) to the server's workspace diagnostics: opens
-- one session so that the client starts, pulls `workspace/diagnostic` with Neovim's own
-- `vim.lsp.buf.workspace_diagnostics()`, and waits until a session that was never opened has
-- diagnostics. Prints one JSON line with what the editor holds for it.
--
--   nvim --headless -u NONE -i NONE -n -c 'luafile test/clients/neovim/workspaceDiagnostics.lua'
--
-- Environment:
--   PI_NVIM_RTP         the folder holding lsp/pi_session.lua (required)
--   PI_NVIM_OPEN        the session to open (required)
--   PI_NVIM_UNOPENED    the session never opened, whose diagnostics are reported (required)
--   PI_NVIM_TIMEOUT_MS  limit for each wait (default 5000)
--   PI_NVIM_WATCHDOG_MS limit for the whole run (default 20000)

local timeout = tonumber(os.getenv('PI_NVIM_TIMEOUT_MS') or '') or 5000
local version = vim.version()
local out = { client = ('neovim %d.%d.%d'):format(version.major, version.minor, version.patch), errors = {} }
local report = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'report.lua')
local finish = report.finisher(out, tonumber(os.getenv('PI_NVIM_WATCHDOG_MS') or '') or 20000)

local function fail(step, message)
  table.insert(out.errors, step .. ': ' .. message)
end

local function main()
  vim.cmd('filetype on')
  vim.opt.runtimepath:append(assert(os.getenv('PI_NVIM_RTP'), 'PI_NVIM_RTP is required'))
  vim.lsp.enable('pi_session')
  local unopened = (assert(os.getenv('PI_NVIM_UNOPENED'), 'PI_NVIM_UNOPENED is required'))

  vim.cmd('edit ' .. vim.fn.fnameescape((assert(os.getenv('PI_NVIM_OPEN'), 'PI_NVIM_OPEN is required'))))
  local client
  vim.wait(timeout, function()
    client = vim.lsp.get_clients({ bufnr = 0, name = 'pi_session' })[1]
    return client ~= nil and client.initialized == true
  end, 10)
  if not client then
    fail('attach', 'no pi_session client')
    return finish()
  end
  out.workspaceDiagnostics = client:supports_method('workspace/diagnostic')

  -- Neovim's own pull; the reports of files that are not open go to buffers it lists but never loads.
  vim.lsp.buf.workspace_diagnostics({ client_id = client.id })
  local diagnostics
  vim.wait(timeout, function()
    local bufnr = vim.fn.bufnr(unopened)
    if bufnr < 0 then
      return false
    end
    diagnostics = vim.diagnostic.get(bufnr)
    return #diagnostics > 0
  end, 20)
  local bufnr = vim.fn.bufnr(unopened)
  if bufnr < 0 or not diagnostics or #diagnostics == 0 then
    fail('workspace_diagnostics', 'no diagnostics for ' .. unopened)
    return finish()
  end
  out.loaded = vim.api.nvim_buf_is_loaded(bufnr)
  out.diagnostics = {}
  for _, d in ipairs(diagnostics) do
    table.insert(out.diagnostics, { line = d.lnum, character = d.col, severity = d.severity, code = d.code })
  end
  -- What the README tells a user to run to list them: the quickfix list, the file still not loaded.
  vim.diagnostic.setqflist({ open = false })
  out.quickfix = 0
  for _, item in ipairs(vim.fn.getqflist()) do
    if item.bufnr == bufnr then
      out.quickfix = out.quickfix + 1
    end
  end
  out.loadedAfterList = vim.api.nvim_buf_is_loaded(bufnr)
  finish()
end

local ok, err = pcall(main)
if not ok then
  fail('lua', tostring(err))
  finish()
end
