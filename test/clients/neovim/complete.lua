-- Completes lines being typed in Neovim (0.7+) headless with a sample configuration from
-- client-samples/neovim/, as a user does with CTRL-X CTRL-O at the end of the line, taking the item
-- Neovim inserts first.
--
--   nvim --headless -u NONE -i NONE -n -c 'luafile test/clients/neovim/complete.lua'
--
-- Environment:
--   PI_NVIM_SAMPLE      the sample configuration to :source (required)
--   PI_NVIM_FILE        the session to open (a copy: a line is added to it, never written)
--   PI_NVIM_CASES       JSON list of line texts; each in turn becomes the line after the last one
--                       and is completed at its end
--   PI_NVIM_TIMEOUT_MS  limit for each wait (default 5000)
--
-- Prints one JSON line, {"client", "results": [line after completing, …], "errors"}, and leaves
-- with :cquit (0 when there are no errors), also from a watchdog and after a Lua error.
--
-- Insert-mode keys are only read when the script has returned to Neovim's main loop, so each case
-- is a chain of deferred steps: type, wait for the completion to show, accept it, read the line.

local uv = vim.uv or vim.loop
local out = { client = 'neovim ' .. tostring(vim.version().major) .. '.' .. tostring(vim.version().minor) .. '.' .. tostring(vim.version().patch), errors = {}, results = {} }
local timeout = tonumber(os.getenv('PI_NVIM_TIMEOUT_MS') or '') or 5000
local finish = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'report.lua').finisher(out, 4 * timeout)

--- `fn`, which records an error and finishes instead of raising one (an uncaught Lua error in
--- headless Neovim leaves it running).
local function guard(fn)
  return function()
    local ok, err = xpcall(fn, debug.traceback)
    if not ok then
      table.insert(out.errors, tostring(err))
      finish()
    end
  end
end

local function keys(text)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(text, true, false, true), 'n', false)
end

--- Calls `next` once `predicate()` holds (polling from a timer), or records `what` and finishes.
local function when(what, predicate, next)
  local started = uv.now()
  local function poll()
    if predicate() then
      return guard(next)()
    end
    if uv.now() - started > timeout then
      table.insert(out.errors, what .. ': nothing within ' .. timeout .. ' ms')
      return finish()
    end
    vim.defer_fn(poll, 20)
  end
  vim.defer_fn(poll, 20)
end

local cases
local bufnr
local line

local function complete_case(i)
  if i > #cases then
    return finish()
  end
  vim.api.nvim_buf_set_lines(bufnr, line, line + 1, false, { cases[i] })
  vim.api.nvim_win_set_cursor(0, { line + 1, 0 })
  keys('A<C-x><C-o>')
  -- A completion shows a menu, or inserts its only item at once; either way Vim lists the items.
  when('completion of case ' .. i, function()
    return #(vim.fn.complete_info({ 'items' }).items or {}) > 0
  end, function()
    if vim.fn.pumvisible() == 1 then
      keys('<C-y>')
    end
    -- Accepting a snippet (0.10+) may leave Select mode on its first placeholder: <Esc> until Normal mode.
    local sent = 0
    when('leaving Insert mode after case ' .. i, function()
      if vim.api.nvim_get_mode().mode == 'n' then
        return true
      end
      sent = sent + 1
      if sent % 5 == 1 then
        keys('<Esc>')
      end
      return false
    end, function()
      table.insert(out.results, vim.api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1])
      complete_case(i + 1)
    end)
  end)
end

guard(function()
  cases = vim.fn.json_decode(os.getenv('PI_NVIM_CASES') or '[]')
  vim.cmd('source ' .. vim.fn.fnameescape((assert(os.getenv('PI_NVIM_SAMPLE'), 'PI_NVIM_SAMPLE is not set'))))
  vim.cmd('syntax on')
  vim.cmd('edit ' .. vim.fn.fnameescape((assert(os.getenv('PI_NVIM_FILE'), 'PI_NVIM_FILE is not set'))))
  bufnr = vim.api.nvim_get_current_buf()
  line = vim.api.nvim_buf_line_count(bufnr)
  when('an initialized pi_session client', function()
    local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
    for _, client in pairs(clients) do
      if client.name == 'pi_session' and client.initialized ~= false then
        return true
      end
    end
    return false
  end, function()
    complete_case(1)
  end)
end)()
