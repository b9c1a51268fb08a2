" pi-session-lsp for Vim 8.2+ / Vim 9 through ALE (https://github.com/dense-analysis/ale).
"
" Put this file in ~/.vim/plugin/ (it is then loaded at startup), or `:source` it from your vimrc.
" ALE must be installed too (Debian: `apt-get install vim-ale` and `packadd! ale` in your vimrc).
" See README.md next to this file.
"
" Options, set them in your vimrc before this file is loaded:
"   g:pi_session_lsp_executable   the server command (default 'pi-session-lsp'; a full path to
"                                 bin/pi-session-lsp.js works too)
"   g:pi_session_lsp_settings     the `piSession` settings sent to the server (merged over the
"                                 defaults below)
"   g:pi_session_lsp_no_mappings  1: do not map K, gd, gr, ]d, [d, <LocalLeader>a, <LocalLeader>f,
"                                 <LocalLeader>r, <LocalLeader>c and <LocalLeader>C in session buffers

if exists('g:loaded_pi_session_lsp') || v:version < 802
  finish
endif
let g:loaded_pi_session_lsp = 1

" Filetype rule: Vim 9.0 and older have no filetype for *.jsonl (Vim 9.1 calls it `jsonl` too).
" A session line is a whole JSON entry, often thousands of characters long: one entry per screen
" line ('nowrap'). Vim has no `jsonl` syntax, so sessions get JSON's colours (with `syntax on`).
augroup pi_session_lsp_filetype
  autocmd!
  autocmd BufNewFile,BufRead *.jsonl setfiletype jsonl
  autocmd FileType jsonl setlocal nowrap
  autocmd Syntax jsonl call s:JsonColoursLater(str2nr(expand('<abuf>')))
augroup END

" When no syntax file defined `jsonl`, use JSON's. Deferred until the Syntax autocommands have
" run: `:syntax on` run after this file installs one that would clear a syntax set from here.
function! s:JsonColoursLater(buffer) abort
  if has('timers')
    call timer_start(0, {-> s:JsonColours(a:buffer)})
  else
    call s:JsonColours(a:buffer)
  endif
endfunction

function! s:JsonColours(buffer) abort
  if bufexists(a:buffer) && getbufvar(a:buffer, '&syntax') ==# 'jsonl' && empty(getbufvar(a:buffer, 'current_syntax'))
    call setbufvar(a:buffer, '&syntax', 'json')
  endif
endfunction

" The server's settings (see "Settings" in the main README). ALE cannot draw the faded
" `not-in-context` hints (it would list every entry off the active path as a warning), so this
" sample turns fading off.
let g:pi_session_lsp_settings = extend({
\   'maxSymbols': 2000,
\   'fadeInactive': v:false,
\ }, get(g:, 'pi_session_lsp_settings', {}))

" Use the folder of the session file as the project root: the server needs no project.
" ALE's omni completion, but with the text it replaces starting where Vim's word does (`\k*`), as
" the server's edits do. ALE's own start takes a word to begin with a letter, so an id being typed
" ("7003…") would get the whole id inserted after the digits already there ("77003…").
function! PiSessionLspOmniFunc(findstart, base) abort
  if !a:findstart
    return ale#completion#OmniFunc(0, a:base)
  endif
  let l:before = col('.') > 1 ? getline('.')[: col('.') - 2] : ''
  let l:word = matchstr(l:before, '\k*$')
  if !ale#completion#GetCompletions('ale-omnifunc', {'prefix': l:word})
    return -3
  endif
  return len(l:before) - len(l:word)
endfunction

function! s:ProjectRoot(buffer) abort
  return fnamemodify(bufname(a:buffer), ':p:h')
endfunction

" ALE only asks for `piSession` through `workspace/didChangeConfiguration` (lsp_config); the same
" settings also go in `initializationOptions`, so they hold from the very first diagnostics.
function! s:Register() abort
  if exists('s:registered')
    return 1
  endif
  if empty(globpath(&runtimepath, 'autoload/ale/linter.vim'))
    return 0
  endif
  let s:registered = 1
  call ale#linter#Define('jsonl', {
  \   'name': 'pi-session-lsp',
  \   'lsp': 'stdio',
  \   'executable': get(g:, 'pi_session_lsp_executable', 'pi-session-lsp'),
  \   'command': '%e --stdio',
  \   'project_root': function('s:ProjectRoot'),
  \   'language': 'jsonl',
  \   'initialization_options': {'piSession': g:pi_session_lsp_settings},
  \   'lsp_config': {'piSession': g:pi_session_lsp_settings},
  \ })
  " Run it for jsonl buffers, next to any jsonl linters you already listed.
  let g:ale_linters = get(g:, 'ale_linters', {})
  let g:ale_linters.jsonl = get(g:ale_linters, 'jsonl', [])
  if index(g:ale_linters.jsonl, 'pi-session-lsp') < 0
    call add(g:ale_linters.jsonl, 'pi-session-lsp')
  endif
  return 1
endfunction

function! s:OnSessionBuffer() abort
  if !s:Register()
    if !exists('s:warned')
      let s:warned = 1
      echohl WarningMsg
      echomsg 'pi-session-lsp: ALE is not on the runtimepath (Debian: apt-get install vim-ale, then packadd! ale in your vimrc)'
      echohl None
    endif
    return
  endif
  " Completion with CTRL-X CTRL-O (or as you type, with `let g:ale_completion_enabled = 1` in your
  " vimrc before ALE is loaded), through ALE but from the start of Vim's word: see PiSessionLspOmniFunc.
  setlocal omnifunc=PiSessionLspOmniFunc
  if get(g:, 'pi_session_lsp_no_mappings', 0)
    return
  endif
  nmap <buffer><silent> K <Plug>(ale_hover)
  nmap <buffer><silent> gd <Plug>(ale_go_to_definition)
  nmap <buffer><silent> gr <Plug>(ale_find_references)
  nmap <buffer><silent> ]d <Plug>(ale_next_wrap)
  nmap <buffer><silent> [d <Plug>(ale_previous_wrap)
  nmap <buffer><silent> <LocalLeader>a <Plug>(ale_code_action)
  nmap <buffer><silent> <LocalLeader>r <Plug>(ale_rename)
  nnoremap <buffer><silent> <LocalLeader>f :PiSessionFixAll<CR>
  nnoremap <buffer><silent> <LocalLeader>c :PiSessionContext .<CR>
  nnoremap <buffer><silent> <LocalLeader>C :PiSessionContext<CR>
endfunction

" Sends a request to the server over ALE's connection, after the buffer's latest changes (ALE's
" ale#lsp_linter#SendRequest does not send them first, so the server could answer about older
" text), and calls Callback(conn_id, response) with the answer.
let s:pending = {}
function! s:Request(buffer, method, params, Callback) abort
  let l:linters = filter(ale#linter#Get(getbufvar(a:buffer, '&filetype')), {_, l -> l.name is# 'pi-session-lsp'})
  if empty(l:linters)
    echohl ErrorMsg | echomsg 'pi-session-lsp: not registered with ALE for this buffer' | echohl None
    return
  endif
  call ale#lsp_linter#StartLSP(a:buffer, l:linters[0], function('s:OnReady', [a:buffer, a:method, a:params, a:Callback]))
endfunction

function! s:OnReady(buffer, method, params, Callback, linter, lsp_details) abort
  let l:conn = a:lsp_details.connection_id
  call ale#lsp#NotifyForChanges(l:conn, a:buffer)
  let l:id = ale#lsp#Send(l:conn, [0, a:method, a:params])
  if l:id > 0
    let s:pending[l:id] = a:Callback
    call ale#lsp#RegisterCallback(l:conn, function('s:OnResponse'))
  endif
endfunction

function! s:OnResponse(conn, response) abort
  if has_key(a:response, 'id') && has_key(s:pending, a:response.id)
    call call(remove(s:pending, a:response.id), [a:conn, a:response])
  endif
endfunction

" :PiSessionFixAll applies every safe fix the server knows (its `source.fixAll` action) to the
" buffer: ALE's :ALECodeAction cannot ask for a kind, and so never offers it. The buffer is changed,
" not written (`:w` writes it).
function! s:FixAll() abort
  let l:buffer = bufnr('')
  let l:origin = {'line': 0, 'character': 0}
  call s:Request(l:buffer, 'textDocument/codeAction', {
  \   'textDocument': {'uri': ale#util#ToURI(expand('#' . l:buffer . ':p'))},
  \   'range': {'start': l:origin, 'end': l:origin},
  \   'context': {'diagnostics': [], 'only': ['source.fixAll']},
  \ }, function('s:OnFixAll', [l:buffer]))
endfunction

function! s:OnFixAll(buffer, conn, response) abort
  if has_key(a:response, 'error')
    echohl ErrorMsg | echomsg 'pi-session-lsp: ' . get(a:response.error, 'message', 'fix all failed') | echohl None
    return
  endif
  let l:actions = get(a:response, 'result', [])
  for l:action in type(l:actions) is v:t_list ? l:actions : []
    if type(l:action) is v:t_dict && has_key(l:action, 'edit') && get(l:action, 'kind', '') =~# '^source\.fixAll'
      if bufnr('') != a:buffer
        echomsg 'pi-session-lsp: the session is no longer the current buffer; run :PiSessionFixAll there again'
        return
      endif
      let l:changes = ale#code_action#BuildChangesList(ale#code_action#GetChanges(l:action.edit))
      call ale#code_action#HandleCodeAction({'description': 'fix all', 'changes': l:changes}, {'conn_id': a:conn, 'should_save': 0})
      echomsg 'pi-session-lsp: ' . l:action.title
      return
    endif
  endfor
  echomsg 'pi-session-lsp: nothing to fix'
endfunction

command! PiSessionFixAll call s:FixAll()

" :PiSessionContext [ID] opens, as Markdown in a scratch split, the context Pi builds when it
" resumes the session: from its last entry, or from entry ID (`.` = the entry under the cursor).
" It sends the server's piSession/buildContext request over ALE's connection.
function! s:ShowContext(leaf) abort
  let l:buffer = bufnr('')
  let l:leaf = a:leaf is# '.' ? matchstr(getline('.'), '"id"\s*:\s*"\zs[^"]*') : a:leaf
  " Only the Markdown is shown: `context: v:false` leaves the JSON context out of the answer.
  let l:params = {'uri': ale#util#ToURI(expand('#' . l:buffer . ':p')), 'format': 'markdown', 'context': v:false}
  if !empty(l:leaf)
    let l:params.leafId = l:leaf
  endif
  call s:Request(l:buffer, 'piSession/buildContext', l:params, function('s:OnContext'))
endfunction

function! s:OnContext(conn, response) abort
  if has_key(a:response, 'error')
    echohl ErrorMsg | echomsg 'pi-session-lsp: ' . get(a:response.error, 'message', 'buildContext failed') | echohl None
    return
  endif
  " When Pi cannot build this context (a parent cycle, a missing message), the Markdown says why.
  let l:text = get(a:response.result, 'markdown', '')
  new
  setlocal buftype=nofile bufhidden=wipe noswapfile filetype=markdown
  call setline(1, split(l:text, "\n", 1))
  setlocal nomodified nomodifiable
endfunction

command! -nargs=? PiSessionContext call s:ShowContext(<q-args>)

" Register now if ALE is already on the runtimepath (sourced from a vimrc after `packadd! ale` or
" a plugin manager); otherwise when the first session buffer opens, by which time packages in
" pack/*/start have been added too.
call s:Register()

augroup pi_session_lsp
  autocmd!
  autocmd FileType jsonl call s:OnSessionBuffer()
augroup END
