-- pi-session-lsp for Neovim 0.7 and later.
--
-- Put this file in your runtime path (for example ~/.config/nvim/lua/pi-session.lua) and add
-- `require('pi-session')` to your init.lua, or run it directly: `nvim -u pi-session.lua file.jsonl`.
-- It starts `pi-session-lsp --stdio` for every *.jsonl buffer (set `cmd` to the full path of
-- bin/pi-session-lsp.js if the command is not on your PATH).

local cmd = { 'pi-session-lsp', '--stdio' }
local env_cmd = vim.env.PI_SESSION_LSP_CMD
if env_cmd and env_cmd ~= '' then
  cmd = { 'sh', '-c', 'exec ' .. env_cmd }
end

-- Neovim 0.7 has no jsonl filetype; give session files one so the client is attached by filetype.
vim.cmd([[
  augroup pi_session_filetype
    autocmd!
    autocmd BufRead,BufNewFile *.jsonl setlocal filetype=jsonl
  augroup END
]])

local client_id = nil

local function attach()
  local bufnr = vim.api.nvim_get_current_buf()
  if client_id == nil then
    client_id = vim.lsp.start_client({
      name = 'pi-session-lsp',
      cmd = cmd,
      root_dir = vim.fn.getcwd(),
    })
  end
  if client_id then
    vim.lsp.buf_attach_client(bufnr, client_id)
  end
end

vim.api.nvim_create_autocmd('FileType', { pattern = 'jsonl', callback = attach })
