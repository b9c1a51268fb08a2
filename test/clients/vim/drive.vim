" Drives Vim + ALE with the sample configuration client-samples/vim/pi-session.vim, headless.
"
"   vim -N -u NONE -i NONE -n -es -S test/clients/vim/drive.vim </dev/null
"
" Environment:
"   PI_FILE        the session file to open (required)
"   PI_PROBES      JSON list of {"line": N, "col": N, "actions": [...]} (1-based, as Vim counts)
"                  on which to run "hover" (:ALEHover), "definition" (:ALEGoToDefinition) and
"                  "references" (:ALEFindReferences); all three when "actions" is left out
"                  (default [])
"   PI_CONTEXT     when set, also runs :PiSessionContext with this argument ("-" for none: the
"                  active context) and reports the scratch buffer it opens; PI_CONTEXT_LINE puts
"                  the cursor on that line first (for ".", the entry under the cursor)
"   PI_FIX_FILE    a session (a copy: it is edited) on which to run :PiSessionFixAll
"   PI_RENAME      JSON list of {"file": copy, "hidden": 0|1, "line": N, "col": N, "name": S}:
"                  with 'hidden' set as given, :ALERename at line:col of the copy, typing S at
"                  ALE's prompt
"   PI_SAMPLE      the sample to source (default: client-samples/vim/pi-session.vim of this checkout)
"   PI_ALE_DIR     a folder holding ALE, put first on 'runtimepath' (default: `packadd ale`, which
"                  finds Debian's vim-ale in /usr/share/vim/vimfiles/pack/dist-bundle/opt/ale)
"   PI_TIMEOUT_MS  the limit for each wait (default 10000)
"   PI_DEADLINE_MS the limit for all waits together, so that the JSON line is printed before the
"                  caller's hard limit kills Vim (default 20000)
"
" Prints one JSON line on stdout (`:print` from a scratch buffer: in -es mode that is stdout) and
" exits with :cquit 0 when every step answered, 1 otherwise (the reasons are in `errors`).

let s:repo = fnamemodify(expand('<sfile>:p'), ':h:h:h:h')
let s:start = reltime()
let s:out = {'client': 'vim ' . (v:version / 100) . '.' . (v:version % 100) . ' + ALE', 'ok': v:false, 'errors': [], 'ms': {}}
let s:timeout = empty($PI_TIMEOUT_MS) ? 10000 : str2nr($PI_TIMEOUT_MS)
let s:deadline = empty($PI_DEADLINE_MS) ? 20000 : str2nr($PI_DEADLINE_MS)

function! s:Ms() abort
  return float2nr(reltimefloat(reltime(s:start)) * 1000)
endfunction

" Sleeps in small steps (ALE's jobs, channels and timers run meanwhile) until Cond() is true.
" Returns 1 when it became true, 0 (and records an error) when `what` did not happen in time.
function! s:WaitFor(what, Cond) abort
  let l:started = s:Ms()
  let l:deadline = min([l:started + s:timeout, s:deadline])
  while 1
    if a:Cond()
      return 1
    endif
    if s:Ms() >= l:deadline
      break
    endif
    sleep 20m
  endwhile
  call add(s:out.errors, a:what . ': nothing after ' . (s:Ms() - l:started) . ' ms'
  \ . (l:deadline == s:deadline ? ' (the run used up PI_DEADLINE_MS)' : ''))
  return 0
endfunction

function! s:WindowsWithFiletype(filetype) abort
  return filter(getwininfo(), {_, w -> getwinvar(w.winid, '&filetype') is# a:filetype})
endfunction

" Opens `file` (keeping the current buffer), waits until ALE has linted it, runs Action() and
" waits until it changed the buffer. Returns what the buffer then holds, or v:null.
function! s:EditAndWait(step, file, Action) abort
  execute 'hide edit ' . fnameescape(a:file)
  let l:buf = bufnr('')
  if !s:WaitFor(a:step . ': diagnostics of ' . a:file, {-> !empty(ale#engine#GetLoclist(l:buf)) && !ale#engine#IsCheckingBuffer(l:buf)})
    return v:null
  endif
  let l:tick = getbufvar(l:buf, 'changedtick')
  let l:t0 = s:Ms()
  call a:Action()
  if !s:WaitFor(a:step . ' on ' . a:file, {-> getbufvar(l:buf, 'changedtick') != l:tick})
    return v:null
  endif
  return {'ms': s:Ms() - l:t0, 'lines': getbufline(l:buf, 1, '$'), 'eol': getbufvar(l:buf, '&eol') ? v:true : v:false,
  \ 'modified': getbufvar(l:buf, '&modified') ? v:true : v:false}
endfunction

" What the user types at ALE's prompt for :ALERename.
let s:typed = ''

function! s:Main() abort
  if empty($PI_FILE)
    throw 'PI_FILE is not set'
  endif
  if empty($PI_ALE_DIR)
    packadd ale
  else
    execute 'set runtimepath^=' . fnameescape($PI_ALE_DIR)
    runtime plugin/ale.vim
  endif
  let s:out.ale = exists('g:loaded_ale') ? 'loaded' : 'missing'
  " What a vimrc does before Vim loads plugin/ (where the README puts the sample).
  filetype plugin on
  syntax on
  " The sample, exactly as a user sources it.
  let l:sample = empty($PI_SAMPLE) ? s:repo . '/client-samples/vim/pi-session.vim' : $PI_SAMPLE
  execute 'source ' . fnameescape(l:sample)
  let l:server = get(g:, 'pi_session_lsp_executable', 'pi-session-lsp')
  if !executable(l:server)
    throw 'the server command ' . l:server . ' is not executable (not on PATH?); ALE would not start it'
  endif

  " Open the session as a user would: the sample's rule gives it its filetype, ALE lints on enter.
  execute 'edit ' . fnameescape($PI_FILE)
  let l:buf = bufnr('')
  let l:win = win_getid()
  let s:out.filetype = &filetype
  " How the session is shown: not wrapped, in colour (the sample sets JSON's syntax a moment later).
  let s:out.wrap = &wrap ? v:true : v:false
  call s:WaitFor('syntax', {-> exists('b:current_syntax')})
  let s:out.syntax = &syntax
  let s:out.currentSyntax = get(b:, 'current_syntax', v:null)
  let s:out.jsonlSyntaxFile = !empty(globpath(&runtimepath, 'syntax/jsonl.vim')) ? v:true : v:false
  let s:out.linters = map(ale#linter#Get(&filetype), {_, l -> l.name})
  let s:out.omnifunc = &omnifunc

  " Diagnostics: first in ALE's engine, then in the window's location list (what :lopen shows).
  if s:WaitFor('diagnostics (ale#engine#GetLoclist)', {-> !empty(ale#engine#GetLoclist(l:buf))})
    let s:out.ms.diagnostics = s:Ms()
    call s:WaitFor('location list', {-> !empty(getloclist(l:win)) && !ale#engine#IsCheckingBuffer(l:buf)})
    " One publish is expected; give a late second one (new settings) a moment to land.
    sleep 150m
    let s:out.ms.loclist = s:Ms()
  endif
  let s:out.diagnostics = map(copy(ale#engine#GetLoclist(l:buf)), {_, d -> {
  \   'lnum': d.lnum, 'col': d.col, 'type': d.type, 'code': get(d, 'code', ''), 'linter': d.linter_name, 'text': d.text}})
  let s:out.loclist = map(getloclist(l:win), {_, d -> {'lnum': d.lnum, 'col': d.col, 'type': d.type, 'text': d.text}})

  let s:out.probes = []
  for l:probe in json_decode(empty($PI_PROBES) ? '[]' : $PI_PROBES)
    let l:res = {'line': l:probe.line, 'col': l:probe.col, 'ms': {}}
    call add(s:out.probes, l:res)
    let l:actions = get(l:probe, 'actions', ['hover', 'definition', 'references'])

    " :ALEHover. Our hovers are several lines of Markdown, which ALE shows in its preview window.
    if index(l:actions, 'hover') >= 0
      call win_gotoid(l:win)
      silent! pclose!
      call cursor(l:probe.line, l:probe.col)
      let l:t0 = s:Ms()
      ALEHover
      if s:WaitFor('hover at ' . l:probe.line . ':' . l:probe.col, {-> !empty(s:WindowsWithFiletype('ale-preview.message'))})
        let l:res.hover = getbufline(s:WindowsWithFiletype('ale-preview.message')[0].bufnr, 1, '$')
        let l:res.ms.hover = s:Ms() - l:t0
      endif
      silent! pclose!
    endif

    " :ALEGoToDefinition. ALE pushes a tag-stack entry right before it moves the cursor.
    if index(l:actions, 'definition') >= 0
      call win_gotoid(l:win)
      call cursor(l:probe.line, l:probe.col)
      let l:tags = len(gettagstack().items)
      let l:t0 = s:Ms()
      ALEGoToDefinition
      if s:WaitFor('definition at ' . l:probe.line . ':' . l:probe.col, {-> len(gettagstack().items) > l:tags})
        let l:res.definition = {'lnum': line('.'), 'col': col('.'), 'file': expand('%:p')}
        let l:res.ms.definition = s:Ms() - l:t0
      endif
    endif

    " :ALEFindReferences. ALE lists the places in a preview window.
    if index(l:actions, 'references') >= 0
      call win_gotoid(l:win)
      silent! pclose!
      call cursor(l:probe.line, l:probe.col)
      let l:t0 = s:Ms()
      ALEFindReferences
      if s:WaitFor('references at ' . l:probe.line . ':' . l:probe.col, {-> !empty(s:WindowsWithFiletype('ale-preview-selection'))})
        let l:res.references = getbufline(s:WindowsWithFiletype('ale-preview-selection')[0].bufnr, 1, '$')
        let l:res.ms.references = s:Ms() - l:t0
      endif
      silent! pclose!
    endif
  endfor

  " :PiSessionContext, the sample's own command (piSession/buildContext through ALE).
  if !empty($PI_CONTEXT)
    call win_gotoid(l:win)
    if !empty($PI_CONTEXT_LINE)
      call cursor(str2nr($PI_CONTEXT_LINE), 1)
    endif
    let l:t0 = s:Ms()
    let l:before = map(getwininfo(), {_, w -> w.winid})
    execute 'PiSessionContext' ($PI_CONTEXT is# '-' ? '' : $PI_CONTEXT)
    let l:IsContext = {w -> index(l:before, w.winid) < 0 && getwinvar(w.winid, '&filetype') is# 'markdown' && getbufvar(w.bufnr, '&buftype') is# 'nofile'}
    if s:WaitFor('context (:PiSessionContext ' . $PI_CONTEXT . ')', {-> !empty(filter(getwininfo(), {_, w -> l:IsContext(w)}))})
      let l:w = filter(getwininfo(), {_, w -> l:IsContext(w)})[0]
      let s:out.context = {'lines': getbufline(l:w.bufnr, 1, '$'), 'ms': s:Ms() - l:t0}
    endif
  endif
  " Editing, each on its own copy of the session: Fix all, then renames.
  if !empty($PI_FIX_FILE)
    let s:out.fixAll = s:EditAndWait('fixAll', $PI_FIX_FILE, {-> execute('PiSessionFixAll')})
  endif
  let s:out.renames = []
  " ALE asks for the new name with ale#util#Input (a wrapper of input()): answer as the user
  " would. Defined once ALE's own autoload file is loaded, so that it is not loaded over this.
  runtime autoload/ale/util.vim
  function! ale#util#Input(message, value, ...) abort
    return s:typed
  endfunction
  for l:rename in json_decode(empty($PI_RENAME) ? '[]' : $PI_RENAME)
    let &hidden = l:rename.hidden
    let s:typed = l:rename.name
    call add(s:out.renames, s:EditAndWait('rename', l:rename.file, {-> execute(['call cursor(' . l:rename.line . ', ' . l:rename.col . ')', 'ALERename'])}))
  endfor
  let s:out.ms.total = s:Ms()
endfunction

try
  call s:Main()
catch
  call add(s:out.errors, v:exception . ' (' . v:throwpoint . ')')
endtry
let s:out.ok = empty(s:out.errors) ? v:true : v:false

" -es mode: :print writes to stdout. Never writefile() to /dev/stdout (it truncates a redirected file).
enew!
call setline(1, json_encode(s:out))
print
execute 'cquit ' . (s:out.ok ? 0 : 1)
