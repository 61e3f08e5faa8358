" SPDX-License-Identifier: GPL-3.0-or-later
" Errors in one place: every command that fails (non-zero exit, or anything on stderr) is written with
" its argv into the buffer `maildex://errors`, and a one-line message points there. Nothing else in the
" plugin prints an error of maildex's.
let s:cpo_save = &cpo
set cpo&vim

let s:log = []

" Called by the transport for every finished command.
function! maildex#error#check(argv, status, err) abort
  if a:status == 0 && empty(a:err)
    return
  endif
  let l:cmd = join(map(copy(a:argv), 'maildex#util#shellword(v:val)'))
  let l:what = a:status == 0 ? 'printed on stderr' : printf('failed (exit status %d)', a:status)
  call s:add([strftime('%H:%M:%S') . ' ' . l:cmd . ' ' . l:what . (empty(a:err) ? '' : ':')]
        \ + map(copy(a:err), '"    " . v:val'))
  let l:first = empty(a:err) ? '' : ': ' . a:err[0]
  call s:echo(printf('maildex: %s %s%s (:MaildexErrors)', s:name(a:argv), l:what, l:first))
endfunction

" What failed, in a word: maildex's command (after g:maildex_command's own words, which may hold
" a --config), or another program's name.
function! s:name(argv) abort
  let l:program = maildex#transport#program()
  if a:argv[: len(l:program) - 1] ==# l:program
    return get(a:argv, len(l:program), '')
  endif
  return fnamemodify(get(a:argv, 0, ''), ':t')
endfunction

" A problem of the plugin's own (a bad setting, a missing part), logged the same way.
function! maildex#error#note(message) abort
  call s:add([strftime('%H:%M:%S') . ' ' . a:message])
  call s:echo('maildex: ' . a:message)
endfunction

function! maildex#error#log() abort
  return copy(s:log)
endfunction

function! maildex#error#clear() abort
  let s:log = []
  call s:refresh()
endfunction

function! maildex#error#open() abort
  call maildex#util#open_buffer('maildex://errors', 'maildexerrors')
  call s:refresh()
  normal! G
endfunction

function! s:add(lines) abort
  call extend(s:log, a:lines)
  call s:refresh()
endfunction

function! s:refresh() abort
  let l:buf = bufnr('maildex://errors')
  if l:buf > 0
    call maildex#util#set_lines(l:buf, 1, s:log, 1)
  endif
endfunction

" Shown as Vim shows an error (ErrorMsg, kept in :messages) and left in v:errmsg, as an error
" message of Vim's would be, for scripts and tests; not :echoerr, which inside a job's callback
" would add Vim's "Error detected while processing" lines to it.
function! s:echo(message) abort
  echohl ErrorMsg
  echomsg a:message
  echohl None
  let v:errmsg = a:message
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
