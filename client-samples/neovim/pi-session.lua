-- pi-session-lsp for Neovim 0.7 and later (vim.lsp.start_client + vim.lsp.buf_attach_client).
-- On Neovim 0.11 or later, prefer pi-session-0.11.lua (vim.lsp.config + vim.lsp.enable).
--
-- Install: copy this file to ~/.config/nvim/plugin/pi-session.lua (Neovim runs every file in
-- plugin/ at startup), or `:source` it, or start Neovim with `nvim -u pi-session.lua FILE.jsonl`.
-- Options: set `vim.g.pi_session` in your init.lua (it runs before plugin/), for example
--
--   vim.g.pi_session = {
--     cmd = { 'node', '/path/to/pi-session-lsp/bin/pi-session-lsp.js', '--stdio' },
--     settings = { fadeInactive = false },   -- the piSession.* settings of the main README
--     sessions_only = true,                  -- only files under ~/.pi/agent/sessions/
--   }
--
-- What it sets up:
--   * every *.jsonl file gets the filetype `jsonl`, 'nowrap' and JSON's syntax colours; files
--     under ~/.pi/agent/sessions/ are marked as Pi sessions (b:pi_session), and with
--     `sessions_only` only those start the server;
--   * one `pi-session-lsp --stdio` for all session buffers, with the settings sent both as
--     `settings.piSession` (answered to workspace/configuration) and as init_options;
--   * in session buffers: K hover, gd definition, gr references, <leader>pl runs the code lens of
--     the line, <leader>pc opens the built context, <leader>pa quick fixes, <leader>pf Fix all,
--     <leader>pr rename, <leader>pd the line's problems and lenses in a float (also shown when
--     the cursor rests: `line_float`), CTRL-X CTRL-O completion; code lenses refreshed on
--     BufEnter, InsertLeave, TextChanged, BufWritePost and after Fix all;
--   * :PiSessionFixAll applies every safe fix (the server's source.fixAll) to the buffer;
--   * :PiSessionContext opens, as Markdown in a read-only scratch split, the context Pi builds
--     when resuming from the entry on the cursor line (from the file's last entry on the header,
--     or with a bang: `:PiSessionContext!`); `:PiSessionContext ID` names the entry.

local NAME = 'pi_session'

local user = vim.g.pi_session or {}
local opts = vim.tbl_deep_extend('force', {
  -- Settings documented in the main README ("Settings"); all keys live under `piSession`.
  settings = { maxSymbols = 2000, fadeInactive = true },
  sessions_dir = '~/.pi/agent/sessions',
  sessions_only = false,
  keymaps = true,
  -- Hints (mostly the faded `not-in-context` lines) get no sign and no virtual text, so that they
  -- do not hide the errors on the same lines; they stay in the diagnostic lists.
  quiet_hints = true,
  -- When the cursor rests on a line ('updatetime', 4 s unless you set it lower), a float shows
  -- the line's problems and (before 0.12) its lenses, which are off screen on long lines.
  line_float = true,
}, user)
-- Lists are replaced, not merged.
opts.cmd = user.cmd or { 'pi-session-lsp', '--stdio' }

local sessions_dir = vim.fn.fnamemodify(vim.fn.expand(opts.sessions_dir), ':p'):gsub('/$', '')

-- Filetype rules. Neovim 0.7 and 0.8 have no jsonl filetype, and an autocmd pattern's `*` also
-- matches `/`, so `<sessions_dir>/*.jsonl` covers ~/.pi/agent/sessions/**/*.jsonl.
local group = vim.api.nvim_create_augroup('pi_session', { clear = true })
vim.api.nvim_create_autocmd({ 'BufRead', 'BufNewFile' }, {
  group = group,
  pattern = sessions_dir .. '/*.jsonl',
  callback = function(args)
    vim.b[args.buf].pi_session = true
  end,
})
vim.api.nvim_create_autocmd({ 'BufRead', 'BufNewFile' }, {
  group = group,
  pattern = '*.jsonl',
  callback = function(args)
    if vim.bo[args.buf].filetype ~= 'jsonl' then
      vim.bo[args.buf].filetype = 'jsonl'
    end
  end,
})

-- A session line is a whole JSON entry, often thousands of characters long: one entry per screen
-- line ('nowrap'). Neovim (0.7 to 0.12) has no `jsonl` syntax, so sessions get JSON's colours.
-- That is deferred until the Syntax autocommands have run: with `nvim -u this-file`, syntax
-- highlighting is switched on after this file, and its own autocommand would clear a syntax set
-- from here.
vim.api.nvim_create_autocmd('FileType', {
  group = group,
  pattern = 'jsonl',
  callback = function()
    vim.opt_local.wrap = false
  end,
})
vim.api.nvim_create_autocmd('Syntax', {
  group = group,
  pattern = 'jsonl',
  callback = function(args)
    vim.schedule(function()
      if vim.api.nvim_buf_is_valid(args.buf) and vim.bo[args.buf].syntax == 'jsonl' and vim.b[args.buf].current_syntax == nil then
        vim.bo[args.buf].syntax = 'json'
      end
    end)
  end,
})

--- Whether the buffer is one of Pi's sessions. Also checked by path: Neovim 0.9+ gives *.jsonl its
--- filetype (and so runs the FileType autocmd below) before the BufRead rule above has run.
local function in_sessions_dir(bufnr)
  local file = vim.api.nvim_buf_get_name(bufnr)
  if vim.b[bufnr].pi_session or file:sub(1, #sessions_dir + 1) == sessions_dir .. '/' then
    vim.b[bufnr].pi_session = true
    return true
  end
  return false
end

local function client_for(bufnr)
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr, name = NAME }) or vim.lsp.buf_get_clients(bufnr)
  for _, client in pairs(clients) do
    if client.name == NAME then
      return client
    end
  end
end

local function request(client, method, params, handler, bufnr)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

--- Shows `markdown` in a read-only scratch split named `name` (replacing an older one).
local function show_scratch(name, markdown)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(buf) == name then
      vim.api.nvim_buf_delete(buf, { force = true })
    end
  end
  vim.cmd('belowright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, name)
  local lines = vim.split(markdown, '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  -- Markdown highlighting; a failing markdown ftplugin must not leave the split writable.
  pcall(function()
    vim.bo[buf].filetype = 'markdown'
  end)
  vim.bo[buf].modifiable = false
  vim.bo[buf].readonly = true
  vim.bo[buf].modified = false
end

--- Asks the server for the context Pi builds from `leaf_id` (nil: the file's last entry) and
--- shows it as Markdown.
local function show_context(bufnr, leaf_id)
  local client = client_for(bufnr)
  if not client then
    vim.notify('pi-session: no pi-session-lsp attached to this buffer', vim.log.levels.ERROR)
    return
  end
  -- Only the Markdown is shown: `context = false` leaves the JSON context out of the answer.
  local params = { uri = vim.uri_from_bufnr(bufnr), leafId = leaf_id, format = 'markdown', context = false }
  request(client, 'piSession/buildContext', params, function(err, result)
    if err then
      vim.notify('pi-session: ' .. (err.message or tostring(err)), vim.log.levels.ERROR)
      return
    end
    if type(result) ~= 'table' or type(result.markdown) ~= 'string' then
      vim.notify('pi-session: the server built no context', vim.log.levels.WARN)
      return
    end
    local file = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':t')
    show_scratch('pi-context://' .. file .. '/' .. (leaf_id or 'active'), result.markdown)
  end, bufnr)
end

--- What a "compare with the active branch" lens runs (arguments [uri, entryId, otherId?]): the
--- server answers the text `pi-session-lsp diff` prints, shown read-only beside the session.
local function show_compare(bufnr, command)
  local client = client_for(bufnr)
  if not client then
    vim.notify('pi-session: no pi-session-lsp attached to this buffer', vim.log.levels.ERROR)
    return
  end
  local params = { command = command.command, arguments = command.arguments }
  request(client, 'workspace/executeCommand', params, function(err, result)
    if err then
      vim.notify('pi-session: ' .. (err.message or tostring(err)), vim.log.levels.ERROR)
      return
    end
    if type(result) ~= 'table' or type(result.text) ~= 'string' then
      vim.notify('pi-session: the server compared nothing', vim.log.levels.WARN)
      return
    end
    local file = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':t')
    local entry = command.arguments and command.arguments[2]
    show_scratch('pi-compare://' .. file .. '/' .. tostring(entry), result.text)
  end, bufnr)
end

--- The id of the entry on 0-based line `row`, or nil (header, blank or unparsable line).
local function entry_id_at(bufnr, row)
  local line = vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1]
  if not line or not line:find('^%s*{') then
    return nil
  end
  local ok, value = pcall(vim.fn.json_decode, line)
  if ok and type(value) == 'table' and value.type ~= 'session' and type(value.id) == 'string' then
    return value.id
  end
end

vim.api.nvim_create_user_command('PiSessionContext', function(cmd)
  local bufnr = vim.api.nvim_get_current_buf()
  local leaf_id = nil
  if cmd.args ~= '' then
    leaf_id = cmd.args
  elseif not cmd.bang then
    leaf_id = entry_id_at(bufnr, vim.api.nvim_win_get_cursor(0)[1] - 1)
  end
  show_context(bufnr, leaf_id)
end, { nargs = '?', bang = true, desc = 'Show the context Pi builds from the entry on this line (! : from the last entry)' })

--- Asks for the lenses again (before 0.12, Neovim only does when told; 0.7 takes the current
--- buffer).
local function refresh_lenses(bufnr)
  vim.api.nvim_buf_call(bufnr, function()
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  end)
end

--- Fix all: asks the server for its `source.fixAll` action and applies its edit to the buffer at
--- once (vim.lsp.buf.code_action of 0.7 has no `apply`, and would show a menu of one). Neovim
--- changes the buffer only: `:w` writes it.
local function fix_all(bufnr)
  local client = client_for(bufnr)
  if not client then
    vim.notify('pi-session: no pi-session-lsp attached to this buffer', vim.log.levels.ERROR)
    return
  end
  local origin = { line = 0, character = 0 }
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = origin, ['end'] = origin },
    context = { diagnostics = {}, only = { 'source.fixAll' } },
  }
  request(client, 'textDocument/codeAction', params, function(err, actions)
    if err then
      vim.notify('pi-session: ' .. (err.message or tostring(err)), vim.log.levels.ERROR)
      return
    end
    for _, action in ipairs(actions or {}) do
      if action.edit and type(action.kind) == 'string' and action.kind:find('^source%.fixAll') then
        vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding or 'utf-16')
        -- Before 0.12 the lenses would go on describing the broken session until refreshed.
        if not vim.lsp.codelens.enable then
          refresh_lenses(bufnr)
        end
        vim.notify('pi-session: ' .. action.title, vim.log.levels.INFO)
        return
      end
    end
    vim.notify('pi-session: nothing to fix', vim.log.levels.INFO)
  end, bufnr)
end

vim.api.nvim_create_user_command('PiSessionFixAll', function()
  fix_all(vim.api.nvim_get_current_buf())
end, { desc = 'Apply every safe fix of pi-session-lsp to this buffer (source.fixAll)' })

--- What the cursor's line says, as lines for a float: its problems (hints too unless
--- `quiet_hints`), and before 0.12 its code lenses. A session is shown unwrapped and its lines run
--- for thousands of columns, so the message at the end of a line (virtual text, off by default
--- from 0.11) and a lens drawn there (before 0.12) are usually off screen: only the sign shows.
local function line_info(bufnr, row)
  local names = { 'error', 'warning', 'info', 'hint' }
  local lowest = opts.quiet_hints and vim.diagnostic.severity.INFO or vim.diagnostic.severity.HINT
  local diagnostics = vim.diagnostic.get(bufnr, { lnum = row })
  table.sort(diagnostics, function(a, b)
    return a.severity < b.severity or (a.severity == b.severity and a.col < b.col)
  end)
  local lines = {}
  for _, d in ipairs(diagnostics) do
    if d.severity <= lowest then
      local code = d.code and (' ' .. tostring(d.code)) or ''
      for i, text in ipairs(vim.split(d.message, '\n', { plain = true })) do
        table.insert(lines, i == 1 and (names[d.severity] .. code .. ': ' .. text) or ('  ' .. text))
      end
    end
  end
  if not vim.lsp.codelens.enable then
    for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
      if lens.range.start.line == row and lens.command and lens.command.title ~= '' then
        table.insert(lines, 'lens: ' .. lens.command.title)
      end
    end
  end
  return lines
end

--- Opens the float of the cursor's line (see line_info) unless the line says nothing or another
--- float (a hover, a completion's documentation) is open. It closes when the cursor moves.
local function show_line_info(bufnr)
  if vim.api.nvim_get_current_buf() ~= bufnr then
    return
  end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      return
    end
  end
  local lines = line_info(bufnr, vim.api.nvim_win_get_cursor(0)[1] - 1)
  if #lines > 0 then
    vim.lsp.util.open_floating_preview(lines, 'plaintext', { focus_id = 'pi_session_line', focus = false })
  end
end

--- Diagnostic display for this client's namespaces: the most severe sign and message of a line
--- win, and hints are only underlined (faded) unless `quiet_hints` is false. The user's own choice
--- of signs and virtual text (on or off) is kept.
local function configure_diagnostics(client)
  local global = vim.diagnostic.config()
  local function without_hints(value)
    if not value or not opts.quiet_hints then
      return value
    end
    local t = type(value) == 'table' and vim.deepcopy(value) or {}
    if t.severity == nil then
      t.severity = { min = vim.diagnostic.severity.INFO }
    end
    return t
  end
  local config = { severity_sort = true, signs = without_hints(global.signs), virtual_text = without_hints(global.virtual_text) }
  -- The namespace of pushed diagnostics, and (0.10+) of pulled ones.
  vim.diagnostic.config(config, vim.lsp.diagnostic.get_namespace(client.id))
  if vim.fn.has('nvim-0.10') == 1 then
    vim.diagnostic.config(config, vim.lsp.diagnostic.get_namespace(client.id, true))
  end
end

local function on_attach(client, bufnr)
  configure_diagnostics(client)
  -- Completion with CTRL-X CTRL-O: Neovim 0.10+ sets this by itself, 0.7 does not.
  if vim.bo[bufnr].omnifunc == '' then
    vim.bo[bufnr].omnifunc = 'v:lua.vim.lsp.omnifunc'
  end
  if vim.lsp.codelens.enable then
    -- Neovim 0.12+: lenses follow the buffer by themselves.
    vim.lsp.codelens.enable(true, { bufnr = bufnr })
  else
    refresh_lenses(bufnr)
    vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'BufWritePost', 'TextChanged' }, {
      group = group,
      buffer = bufnr,
      callback = function()
        refresh_lenses(bufnr)
      end,
    })
  end
  if opts.line_float then
    vim.api.nvim_create_autocmd('CursorHold', {
      group = group,
      buffer = bufnr,
      callback = function()
        show_line_info(bufnr)
      end,
    })
  end
  if opts.keymaps then
    local function map(lhs, rhs, desc)
      vim.keymap.set('n', lhs, rhs, { buffer = bufnr, desc = desc })
    end
    map('K', vim.lsp.buf.hover, 'pi-session: hover')
    map('gd', vim.lsp.buf.definition, 'pi-session: go to the entry a reference names')
    map('gr', vim.lsp.buf.references, 'pi-session: references')
    map('<leader>pl', vim.lsp.codelens.run, 'pi-session: run the code lens of this line')
    map('<leader>pc', '<cmd>PiSessionContext<CR>', 'pi-session: built context of this entry')
    map('<leader>pa', vim.lsp.buf.code_action, 'pi-session: quick fixes for the diagnostics of this line')
    map('<leader>pf', '<cmd>PiSessionFixAll<CR>', 'pi-session: fix all safe problems (source.fixAll)')
    map('<leader>pr', vim.lsp.buf.rename, 'pi-session: rename the id under the cursor, with its references')
    map('<leader>pd', function()
      show_line_info(bufnr)
    end, "pi-session: this line's problems and lenses in a float")
  end
end

local client_id = nil
local warned = false

local function attach(bufnr)
  local client = client_id and vim.lsp.get_client_by_id(client_id)
  if not client then
    if vim.fn.executable(opts.cmd[1]) ~= 1 then
      if not warned then
        warned = true
        vim.schedule(function()
          vim.notify('pi-session: `' .. opts.cmd[1] .. '` not found; install pi-session-lsp (npm install -g .) or set vim.g.pi_session.cmd', vim.log.levels.WARN)
        end)
      end
      return
    end
    client_id = vim.lsp.start_client({
      name = NAME,
      cmd = opts.cmd,
      root_dir = in_sessions_dir(bufnr) and sessions_dir or vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':p:h'),
      settings = { piSession = opts.settings },
      init_options = { piSession = opts.settings },
      commands = {
        -- What a context lens runs: arguments are [uri, entryId | null].
        ['piSession.showContext'] = function(command, ctx)
          local leaf = command.arguments and command.arguments[2]
          show_context(ctx.bufnr, type(leaf) == 'string' and leaf or nil)
        end,
        ['piSession.compareBranches'] = function(command, ctx)
          show_compare(ctx.bufnr, command)
        end,
      },
      on_attach = on_attach,
      on_exit = function(code, signal)
        if code ~= 0 and signal ~= 15 then
          vim.schedule(function()
            vim.notify(('pi-session: pi-session-lsp exited with code %d (see :lua print(vim.lsp.get_log_path()))'):format(code), vim.log.levels.WARN)
          end)
        end
      end,
    })
  end
  if client_id then
    vim.lsp.buf_attach_client(bufnr, client_id)
  end
end

vim.api.nvim_create_autocmd('FileType', {
  group = group,
  pattern = 'jsonl',
  callback = function(args)
    if opts.sessions_only and not in_sessions_dir(args.buf) then
      return
    end
    attach(args.buf)
  end,
})
