" SPDX-License-Identifier: GPL-3.0-or-later
" The harness of T600-vim: loads the plugin from editors/vim/ into a bare Vim or Neovim, runs the
" functions named Step_* of the steps file in order, and writes one line per step into
" $MAILDEX_VIM_OUT/results: "ok<TAB>NAME" or "not ok<TAB>NAME<TAB>what v:errors held". A step acts
" through keys (feedkeys, typed as a person types them, prompts answered) and checks with assert_*;
" it may call `maildex` on the command line to see what the plugin did to the store.
"
" Environment: MAILDEX_VIM_PLUGIN (editors/vim), MAILDEX_VIM_STEPS (the steps file),
" MAILDEX_VIM_OUT (results, screens), MAILDEX_VIM_EXPECTED (test/expected/vim),
" MAILDEX_VIM_UPDATE=1 (write the screens as the expected ones), MAILDEX_VIM_TRANSPORT.

set nocompatible hidden
let &runtimepath = $MAILDEX_VIM_PLUGIN . ',' . &runtimepath
runtime plugin/maildex.vim
" process; server (the real `maildex server`); protocol (the plugin's server transport talking to
" test/vim/protocol-server.py, which runs each request as a maildex process).
let g:maildex_transport = $MAILDEX_VIM_TRANSPORT ==# 'protocol' ? 'server' : $MAILDEX_VIM_TRANSPORT
if $MAILDEX_VIM_TRANSPORT ==# 'server' && $MAILDEX_VIM_SERVER !=# ''
  let g:maildex_server_command = [$MAILDEX_VIM_SERVER, 'server', '--watch']
endif
if $MAILDEX_VIM_TRANSPORT ==# 'protocol'
  let g:maildex_server_command = ['python3', $MAILDEX_VIM_PROTOCOL_SERVER, exepath('maildex')]
endif
let g:maildex_poll_interval = 0
let g:maildex_sendmail = [$MAILDEX_VIM_SENDMAIL, '-t', '-oi']
let s:out = $MAILDEX_VIM_OUT

" Waits (processing job callbacks) until the expression COND is true; false after MS milliseconds.
function! Wait(cond, ...) abort
  let l:ms = get(a:, 1, 5000)
  let l:start = reltime()
  while !eval(a:cond)
    if reltimefloat(reltime(l:start)) * 1000 > l:ms
      call assert_report('timed out after ' . l:ms . ' ms waiting for ' . a:cond)
      return 0
    endif
    sleep 5m
  endwhile
  return 1
endfunction

" Keys as a person types them, mappings included.
function! Keys(keys) abort
  call feedkeys(a:keys, 'xt')
endfunction

" The current buffer's lines, with the mail root written MAIL and the corpus's folder CORPUS, equal
" test/expected/vim/NAME.out.
function! AssertScreen(name) abort
  call AssertLines(a:name, getline(1, '$'))
endfunction

function! AssertLines(name, lines) abort
  let l:lines = map(copy(a:lines), 'substitute(substitute(v:val, $MAIL_DIR, "MAIL", "g"), $MAILDEX_VIM_CORPUS, "CORPUS", "g")')
  call writefile(l:lines, s:out . '/' . a:name . '.out')
  let l:expected = $MAILDEX_VIM_EXPECTED . '/' . a:name . '.out'
  if $MAILDEX_VIM_UPDATE ==# '1'
    call writefile(l:lines, l:expected)
  endif
  call assert_equal(filereadable(l:expected) ? readfile(l:expected) : ['(no ' . l:expected . ')'], l:lines,
        \ 'screen ' . a:name)
endfunction

" What `maildex ARGS` prints, as lines.
function! Maildex(args) abort
  return systemlist('maildex ' . a:args)
endfunction

function! s:run() abort
  let l:results = []
  let l:steps = sort(map(split(execute('function /^Step_'), "\n"), 'matchstr(v:val, "Step_\\w\\+")'))
  for l:step in l:steps
    let v:errors = []
    try
      call call(l:step, [])
    catch
      call add(v:errors, 'exception: ' . v:exception . ' at ' . v:throwpoint)
    endtry
    let l:name = substitute(l:step, '^Step_', '', '')
    call add(l:results, empty(v:errors) ? "ok\t" . l:name
          \ : "not ok\t" . l:name . "\t" . join(map(copy(v:errors), 'substitute(v:val, "\n", " | ", "g")'), ' || '))
    call writefile(l:results, s:out . '/results')
  endfor
  call writefile(maildex#error#log(), s:out . '/errors.log')
endfunction

execute 'source' fnameescape($MAILDEX_VIM_STEPS)
call s:run()
qall!
