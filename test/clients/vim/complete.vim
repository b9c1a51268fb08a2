" Completes lines being typed in Vim + ALE with the sample configuration, headless, as a user does
" with CTRL-X CTRL-O at the end of the line, taking the first item Vim inserts.
"
"   vim -N -u NONE -i NONE -n -es -S test/clients/vim/complete.vim </dev/null
"
" Environment:
"   PI_FILE        the session to open (a copy: a line is added to it, never written)
"   PI_CASES       JSON list of line texts; each in turn becomes the line after the last one and is
"                  completed at its end
"   PI_SAMPLE      the sample to source (default: client-samples/vim/pi-session.vim of this checkout)
"   PI_TIMEOUT_MS  the limit for the first diagnostics (default 10000)
"
" Prints one JSON line on stdout, {"client", "omnifunc", "results": [line after completing, …],
" "errors"}, and exits with :cquit 0 when there are no errors.

let s:repo = fnamemodify(expand('<sfile>:p'), ':h:h:h:h')
let s:out = {'client': 'vim ' . (v:version / 100) . '.' . (v:version % 100) . ' + ALE', 'errors': [], 'results': []}

function! s:Main() abort
  packadd ale
  syntax on
  execute 'source ' . fnameescape(empty($PI_SAMPLE) ? s:repo . '/client-samples/vim/pi-session.vim' : $PI_SAMPLE)
  execute 'edit ' . fnameescape($PI_FILE)
  let l:buf = bufnr('')
  let s:out.omnifunc = &l:omnifunc
  " The server has started once ALE has shown what it found (b:ale_linted counts the times).
  let l:waited = 0
  let l:limit = empty($PI_TIMEOUT_MS) ? 10000 : str2nr($PI_TIMEOUT_MS)
  while get(b:, 'ale_linted', 0) == 0 && l:waited < l:limit
    sleep 20m
    let l:waited += 20
  endwhile
  if l:waited >= l:limit
    throw 'ALE did not lint the buffer within ' . l:limit . ' ms'
  endif
  let l:line = line('$') + 1
  for l:text in json_decode($PI_CASES)
    call setline(l:line, l:text)
    call cursor(l:line, 1)
    " 'x': the keys run to the end, then Insert mode ends as with <Esc>, keeping the item inserted.
    call feedkeys("A\<C-x>\<C-o>", 'xt')
    call add(s:out.results, getline(l:line))
  endfor
endfunction

try
  call s:Main()
catch
  call add(s:out.errors, v:exception . ' (' . v:throwpoint . ')')
endtry
enew!
call setline(1, json_encode(s:out))
print
execute 'cquit ' . (empty(s:out.errors) ? 0 : 1)
