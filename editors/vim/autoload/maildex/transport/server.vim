" The `maildex server` transport: one persistent process answering the same argvs as the command line,
" several streams at once, and pushing an event after each indexing round. The server is not there
" yet (issue: watch/server), so this transport reports itself unavailable and 'auto' uses processes;
" g:maildex_transport = 'server' falls back to processes too, saying so once.

let s:warned = 0

function! maildex#transport#server#available() abort
  return 0
endfunction

function! maildex#transport#server#run(args, opts) abort
  if !s:warned
    let s:warned = 1
    call maildex#error#note('the maildex server transport is not available; running one process per command')
  endif
  return maildex#transport#process#run(a:args, a:opts)
endfunction

function! maildex#transport#server#running(handle) abort
  return 0
endfunction

function! maildex#transport#server#stop(handle) abort
endfunction

function! maildex#transport#server#subscribe(fn) abort
  call maildex#poll#subscribe(a:fn)
endfunction
