" SPDX-License-Identifier: GPL-3.0-or-later
" The `maildex server` transport (doc/protocol.md of the server, version 1): one child process
" `maildex server --watch` answering JSON request lines with framed bytes ("out ID LEN", "end ID
" STATUS LEN", "event LEN", each header line followed by LEN bytes), several requests at once. Each
" request behaves as transport/process.vim's: lines of stdout as they come, then the exit status
" and stderr. Its handles are negative, so the dispatcher tells them from process handles.
" 'auto' asks once, without waiting, whether maildex has `server` (`maildex help server`), and uses
" processes until the answer is yes; a server that stops ends its requests with status -1 and
" leaves every later one to processes. Requests with stdin send it as a JSON string (UTF-8 text).
let s:cpo_save = &cpo
set cpo&vim

let s:nvim = has('nvim')
let s:job = v:null
let s:state = 'none'      " none, asking, yes, no (auto's question); running, stopped (the child)
let s:requests = {}
let s:next = 1
let s:input = ''

" True when requests go to a running server (starting it when it is wanted and not running yet).
function! maildex#transport#server#available() abort
  if s:state ==# 'running'
    return 1
  elseif s:state ==# 'stopped' || s:state ==# 'no' || s:state ==# 'asking'
    return 0
  elseif get(g:, 'maildex_transport', 'auto') !=# 'server' && s:state ==# 'none'
    let s:state = 'asking'
    call maildex#transport#process#run(['help', 'server'], {'quiet': 1,
          \ 'on_exit': {status, out, err -> s:answered(status)}})
    return 0
  endif
  return s:start()
endfunction

function! s:answered(status) abort
  let s:state = a:status == 0 ? 'yes' : 'no'
endfunction

function! s:command() abort
  return get(g:, 'maildex_server_command', maildex#transport#program() + ['server', '--watch'])
endfunction

function! s:start() abort
  try
    if s:nvim
      let s:job = jobstart(s:command(), {'on_stdout': function('s:nvim_out'),
            \ 'on_stderr': function('s:nvim_err'), 'on_exit': function('s:nvim_exit')})
      if s:job <= 0
        throw 'jobstart failed'
      endif
    else
      let s:job = job_start(s:command(), {'mode': 'raw', 'in_io': 'pipe', 'noblock': 1,
            \ 'out_cb': function('s:vim_out'), 'err_mode': 'nl', 'err_cb': function('s:vim_err'),
            \ 'exit_cb': function('s:vim_exit')})
      if job_status(s:job) ==# 'fail'
        throw 'job_start failed'
      endif
    endif
  catch
    let s:state = 'stopped'
    call maildex#error#note('cannot start ' . join(s:command()) . ' (' . v:exception . '); running one process per command')
    return 0
  endtry
  let s:state = 'running'
  let s:input = ''
  call s:send({'id': s:id(), 'subscribe': v:true})
  return 1
endfunction

function! s:id() abort
  let l:id = s:next
  let s:next += 1
  return l:id
endfunction

function! s:send(request) abort
  let l:line = json_encode(a:request) . "\n"
  try
    if s:nvim
      call chansend(s:job, l:line)
    else
      call ch_sendraw(job_getchannel(s:job), l:line)
    endif
  catch
    " the server is going (Vim is quitting, or it died): its exit callback ends what is open
  endtry
endfunction

function! maildex#transport#server#run(args, opts) abort
  if !maildex#transport#server#available()
    return maildex#transport#process#run(a:args, a:opts)
  endif
  let l:id = s:id()
  let s:requests[l:id] = {'argv': maildex#transport#program() + a:args, 'opts': a:opts,
        \ 'partial': '', 'text': ''}
  let l:request = {'id': l:id, 'argv': a:args}
  if has_key(a:opts, 'stdin')
    let l:request.stdin = a:opts.stdin
  endif
  call s:send(l:request)
  return -l:id
endfunction

function! maildex#transport#server#running(handle) abort
  return has_key(s:requests, -a:handle)
endfunction

" A stopped request says nothing more; the server is told to cancel it.
function! maildex#transport#server#stop(handle) abort
  if has_key(s:requests, -a:handle)
    let s:requests[-a:handle].opts = {'on_exit': function('s:ignore'), 'quiet': 1}
    call s:send({'cancel': -a:handle})
  endif
endfunction

" Events come from the server; the revision is polled through it as well, so a change the server
" did not index itself (a `maildex insert` from a shell) refreshes the lists too.
function! maildex#transport#server#subscribe(fn) abort
  call maildex#poll#subscribe(a:fn)
endfunction

function! s:vim_out(channel, bytes) abort
  call s:feed(a:bytes)
endfunction

function! s:nvim_out(id, data, event) abort
  call s:feed(join(a:data, "\n"))
endfunction

" The frames in what has arrived; an incomplete one waits for more bytes.
function! s:feed(bytes) abort
  let s:input .= a:bytes
  while 1
    let l:eol = stridx(s:input, "\n")
    if l:eol < 0
      return
    endif
    let l:words = split(s:input[: l:eol - 1], ' ')
    let l:length = str2nr(get(l:words, -1, '0'))
    if strlen(s:input) < l:eol + 1 + l:length
      return
    endif
    let l:payload = strpart(s:input, l:eol + 1, l:length)
    let s:input = strpart(s:input, l:eol + 1 + l:length)
    call s:frame(l:words, l:payload)
  endwhile
endfunction

function! s:frame(words, payload) abort
  let l:kind = get(a:words, 0, '')
  if l:kind ==# 'event'
    " mail came or went (a round that only renamed files for tag changes leaves the lists alone)
    let l:event = maildex#util#json([a:payload])
    if type(l:event) != type({}) || get(l:event, 'added', 1) > 0 || get(l:event, 'removed', 1) > 0
      call maildex#poll#notify()
    endif
    return
  endif
  let l:request = get(s:requests, str2nr(get(a:words, 1, '0')), {})
  if empty(l:request)
    return
  endif
  if l:kind ==# 'out'
    call s:out(l:request, a:payload)
  elseif l:kind ==# 'end'
    call remove(s:requests, str2nr(a:words[1]))
    call s:end(l:request, str2nr(a:words[2]), split(a:payload, "\n"))
  endif
endfunction

function! s:out(request, bytes) abort
  if !has_key(a:request.opts, 'on_line')
    let a:request.text .= a:bytes
    return
  endif
  let l:lines = split(a:request.partial . a:bytes, "\n", 1)
  let a:request.partial = remove(l:lines, -1)
  for l:line in l:lines
    call a:request.opts.on_line(l:line)
  endfor
endfunction

" The end of a request, reported as a process's end is: lines not streamed, stderr, status.
function! s:end(request, status, err) abort
  let l:out = []
  if has_key(a:request.opts, 'on_line')
    if a:request.partial !=# ''
      call a:request.opts.on_line(a:request.partial)
    endif
  else
    let l:out = split(a:request.text, "\n", 1)
    if !empty(l:out) && l:out[-1] ==# ''
      call remove(l:out, -1)
    endif
  endif
  if !get(a:request.opts, 'quiet', 0)
    call maildex#error#check(a:request.argv, a:status, a:err)
  endif
  call a:request.opts.on_exit(a:status, l:out, a:err)
endfunction

function! s:vim_err(channel, line) abort
  let s:stderr = add(get(s:, 'stderr', []), a:line)
endfunction

function! s:nvim_err(id, data, event) abort
  let s:stderr = extend(get(s:, 'stderr', []), filter(copy(a:data), 'v:val !=# ""'))
endfunction

function! s:vim_exit(job, status) abort
  call s:stopped(a:status)
endfunction

function! s:nvim_exit(id, status, event) abort
  call s:stopped(a:status)
endfunction

" The server is gone: what it had not answered ends with status -1; processes take over.
function! s:stopped(status) abort
  let s:state = 'stopped'
  call maildex#error#check(s:command(), a:status, get(s:, 'stderr', []) + ['(the server stopped)'])
  let l:requests = s:requests
  let s:requests = {}
  for l:request in values(l:requests)
    call s:end(l:request, -1, ['the maildex server stopped before answering'])
  endfor
endfunction

function! s:ignore(...) abort
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
