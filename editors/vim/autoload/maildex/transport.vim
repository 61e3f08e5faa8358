" SPDX-License-Identifier: GPL-3.0-or-later
" The one interface every maildex command goes through: start an argv, get its stdout line by line or
" whole, its exit status and stderr, and optionally feed it stdin or send stdout into a file.
" Two implementations sit behind it: one process per command (transport/process.vim, always there) and
" `maildex server` (a persistent process answering argvs, transport/server.vim). Callers never know
" which one runs; nothing here may wait for a command to finish.
"
" maildex#transport#run(args, opts) -> handle (a number), where args is the argv after `maildex`
" and opts may hold:
"   on_line(line)          each line of stdout as it arrives (without the newline)
"   on_exit(status, out, err)  once, after the last line: out = stdout lines not given to on_line
"                          (all of them when there is no on_line), err = stderr lines
"   stdin                  a string written to the command's stdin, which is then closed
"   out_file               a path: stdout's bytes go there unchanged (attachments)
"   command                a whole argv of another program (sendmail, an HTML converter): always a
"                          process, its failures reported as maildex's are
"   quiet                  failures are not reported (a question whose answer may be no)
" The on_exit status is the command's exit status; a command that could not be started, or whose
" server stopped before answering, is -1.
let s:cpo_save = &cpo
set cpo&vim

" The implementation for this session: g:maildex_transport names one ('process', 'server');
" 'auto' (the default) takes the server when it answers and falls back to processes.
function! s:impl() abort
  if get(g:, 'maildex_transport', 'auto') !=# 'process' && maildex#transport#server#available()
    return 'server'
  endif
  return 'process'
endfunction

function! maildex#transport#name() abort
  return s:impl()
endfunction

function! maildex#transport#run(args, opts) abort
  let l:opts = extend({'on_exit': function('s:ignore')}, a:opts)
  if has_key(l:opts, 'out_file') || has_key(l:opts, 'command')
    " Bytes into a file, or another program: a process, whatever the transport.
    return maildex#transport#process#run(a:args, l:opts)
  endif
  return maildex#transport#{s:impl()}#run(a:args, l:opts)
endfunction

" Handles of the server's requests are negative, a process's positive.
function! maildex#transport#stop(handle) abort
  call maildex#transport#{a:handle < 0 ? 'server' : 'process'}#stop(a:handle)
endfunction

function! maildex#transport#running(handle) abort
  return maildex#transport#{a:handle < 0 ? 'server' : 'process'}#running(a:handle)
endfunction

" Events after each indexing round (the server pushes them; with processes the database revision is
" polled every g:maildex_poll_interval ms while a list is open). fn() takes no argument.
function! maildex#transport#subscribe(fn) abort
  call maildex#transport#{s:impl()}#subscribe(a:fn)
endfunction

" argv of the maildex program itself: g:maildex_command is a string or a list (a wrapper, --config).
function! maildex#transport#program() abort
  let l:cmd = get(g:, 'maildex_command', 'maildex')
  return type(l:cmd) == type([]) ? copy(l:cmd) : [l:cmd]
endfunction

function! s:ignore(...) abort
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
