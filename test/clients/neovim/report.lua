-- What the Neovim drivers share: how they leave (drive.lua stops its servers with it too). `finisher`
-- returns a function that stops every server, prints `out` as one JSON line on stdout and quits
-- with :cquit (0 when out.errors is empty); a watchdog calls it after `watchdog_ms` whatever
-- happens, so that Neovim never outlives the test.

local M = {}

--- Stops every client, started or not (a server that never answered initialize is not among the
--- "active" clients of 0.7, but get_client_by_id finds it), so that no server outlives Neovim.
function M.stop_servers()
  for id = 1, 50 do
    local client = vim.lsp.get_client_by_id(id)
    if client then
      if vim.fn.has('nvim-0.11') == 1 then
        client:stop(true)
      else
        client.stop(true)
      end
    end
  end
end

function M.finisher(out, watchdog_ms)
  local finished = false
  local function finish()
    if finished then
      return
    end
    finished = true
    pcall(M.stop_servers)
    io.stdout:write(vim.fn.json_encode(out) .. '\n')
    io.stdout:flush()
    vim.cmd((#out.errors == 0 and 0 or 1) .. 'cquit')
  end
  vim.defer_fn(function()
    if not finished then
      table.insert(out.errors, 'watchdog: the driver did not finish')
      finish()
    end
  end, watchdog_ms)
  return finish
end

return M
