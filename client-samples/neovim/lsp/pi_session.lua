---@brief
---
--- pi-session-lsp: a language server and checker for the `.jsonl` session files of Pi, the coding
--- agent (diagnostics with the problems Pi meets when it resumes a session, hover, go to
--- definition and references on entry ids, code lenses with the context Pi would build, quick
--- fixes, completion and rename).
---
--- `pi-session-lsp` needs Node.js 20 or later; from a clone of its repository:
--- ```sh
--- npm ci && npm install -g .
--- ```
---
--- Neovim gives `*.jsonl` files the filetype `jsonl` itself (since 0.10).
---
--- The server attaches to a `jsonl` buffer when the file lies in Pi's sessions folder
--- (`~/.pi/agent/sessions/`, or `$PI_CODING_AGENT_DIR/sessions/`), or when its first line is a Pi
--- session header (`{"type":"session",…}`), such as a session copied elsewhere; other JSON Lines
--- files (data sets, logs) get no server. The root is the sessions folder, so one server serves
--- every session in it, or else the file's own folder.
---
--- Fix all (every safe fix at once, Pi's `source.fixAll.piSession` code action, which servers
--- only offer when asked for that kind) is the buffer-local command `:LspPiSessionFixAll`.

--- The sessions folder holding `file`: the nearest `sessions` folder inside a folder named `agent`
--- (Pi's `~/.pi/agent/sessions`), or `$PI_CODING_AGENT_DIR/sessions` when Pi's folder was moved.
---@param file string
---@return string?
local function sessions_folder(file)
  local agent_dir = vim.env.PI_CODING_AGENT_DIR
  local moved = agent_dir and agent_dir ~= '' and vim.fs.normalize(agent_dir .. '/sessions') or nil
  for dir in vim.fs.parents(file) do
    if dir == moved or (vim.fs.basename(dir) == 'sessions' and vim.fs.basename(vim.fs.dirname(dir)) == 'agent') then
      return dir
    end
  end
end

---@type vim.lsp.Config
return {
  cmd = { 'pi-session-lsp', '--stdio' },
  filetypes = { 'jsonl' },
  -- `root_dir` keeps the server off JSON Lines files that are not Pi sessions.
  root_dir = function(bufnr, on_dir)
    local file = vim.api.nvim_buf_get_name(bufnr)
    if file == '' then
      return
    end
    local folder = sessions_folder(file)
    if folder then
      on_dir(folder)
      return
    end
    local first = vim.api.nvim_buf_get_lines(bufnr, 0, 1, false)[1] or ''
    if first:find('"type"%s*:%s*"session"') then
      on_dir(vim.fs.dirname(file))
    end
  end,
  settings = {
    piSession = {
      -- The most outline entries (document symbols) computed for one session.
      maxSymbols = 2000,
      -- Entries outside the context Pi would build are drawn faded (an `Unnecessary` hint).
      fadeInactive = true,
      -- Severity per diagnostic code ('error', 'warning', 'information', 'hint' or 'off').
      severity = vim.empty_dict(),
      -- The problems of the sessions that are not open, for a client that pulls workspace diagnostics.
      workspaceDiagnostics = true,
      -- The most session files one workspace pull lists, and the most MiB of them it reads.
      workspaceDiagnosticsMaxFiles = 5000,
      workspaceDiagnosticsMaxMiB = 256,
    },
  },
  on_attach = function(_, bufnr)
    vim.api.nvim_buf_create_user_command(bufnr, 'LspPiSessionFixAll', function()
      -- Only pi-session-lsp offers this kind, and it offers one action of it: applied at once.
      vim.lsp.buf.code_action({
        context = { only = { 'source.fixAll.piSession' }, diagnostics = {} },
        apply = true,
      })
    end, { desc = 'Apply every safe fix of pi-session-lsp to this buffer' })
  end,
}
