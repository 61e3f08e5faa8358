" SPDX-License-Identifier: GPL-3.0-or-later
" The process-per-command transport: every request is `maildex ARGS` started as a job (job_start in
" Vim, jobstart in Neovim), its output handed over from the job's callbacks. The two editors differ
" only in the three functions below that start, feed and stop a job; everything else is shared.
let s:cpo_save = &cpo
set cpo&vim

let s:jobs = {}
let s:next = 1
let s:nvim = has('nvim')
" Commands that write run one at a time in the order they were asked for, as the server runs them:
" `-unread` from showing a message must not overtake the `+unread` the user typed after it.
let s:writers = ['tag', 'insert', 'new', 'reindex', 'purge', 'restore', 'import-notmuch', 'compact', 'config']
let s:writing = 0
let s:waiting = []

function! maildex#transport#process#run(args, opts) abort
  let l:handle = s:next
  let s:next += 1
  let l:job = {'handle': l:handle, 'opts': a:opts, 'argv': maildex#transport#program() + a:args,
        \ 'out': [], 'err': [], 'partial': ['', ''], 'status': -2, 'closed': 0, 'bytes': [],
        \ 'writer': !has_key(a:opts, 'command') && index(s:writers, get(a:args, 0, '')) >= 0}
  if has_key(a:opts, 'command')
    let l:job.argv = a:opts.command
  endif
  let s:jobs[l:handle] = l:job
  if l:job.writer && s:writing
    call add(s:waiting, l:job)
  else
    call s:launch(l:job)
  endif
  return l:handle
endfunction

function! s:launch(job) abort
  let s:writing = s:writing || a:job.writer
  try
    call s:start(a:job)
  catch
    call s:finish(a:job, -1, [v:exception])
  endtry
endfunction

function! maildex#transport#process#running(handle) abort
  return has_key(s:jobs, a:handle)
endfunction

function! maildex#transport#process#stop(handle) abort
  let l:job = get(s:jobs, a:handle, {})
  if empty(l:job)
    return
  endif
  if index(s:waiting, l:job) >= 0
    call remove(s:waiting, index(s:waiting, l:job))
    call remove(s:jobs, a:handle)
    return
  endif
  " A stopped command reports nothing: whoever stopped it no longer wants its answer.
  let l:job.opts = {'on_exit': function('s:ignore')}
  if s:nvim
    silent! call jobstop(l:job.id)
  else
    silent! call job_stop(l:job.id)
  endif
endfunction

" Periodic polling of the database revision stands in for the server's events.
function! maildex#transport#process#subscribe(fn) abort
  call maildex#poll#subscribe(a:fn)
endfunction

function! s:start(job) abort
  let l:opts = a:job.opts
  if s:nvim
    let l:nopts = {'on_stdout': function('s:nvim_out', [a:job]),
          \ 'on_stderr': function('s:nvim_err', [a:job]),
          \ 'on_exit': function('s:nvim_exit', [a:job])}
    let a:job.id = jobstart(a:job.argv, l:nopts)
    if a:job.id <= 0
      throw 'cannot start ' . a:job.argv[0]
    endif
    if has_key(l:opts, 'stdin')
      call chansend(a:job.id, l:opts.stdin)
    endif
    call chanclose(a:job.id, 'stdin')
    return
  endif
  let l:vopts = {'out_mode': 'nl', 'err_mode': 'nl',
        \ 'out_cb': function('s:vim_out', [a:job]), 'err_cb': function('s:vim_err', [a:job]),
        \ 'exit_cb': function('s:vim_exit', [a:job]), 'close_cb': function('s:vim_close', [a:job]),
        \ 'in_io': has_key(l:opts, 'stdin') ? 'pipe' : 'null', 'noblock': 1}
  if has_key(l:opts, 'out_file')
    call extend(l:vopts, {'out_io': 'file', 'out_name': l:opts.out_file})
    call remove(l:vopts, 'out_cb')
  endif
  let a:job.id = job_start(a:job.argv, l:vopts)
  if job_status(a:job.id) ==# 'fail'
    throw 'cannot start ' . a:job.argv[0]
  endif
  if has_key(l:opts, 'stdin')
    let l:ch = job_getchannel(a:job.id)
    call ch_sendraw(l:ch, l:opts.stdin)
    call ch_close_in(l:ch)
  endif
endfunction

function! s:line(job, line) abort
  if has_key(a:job.opts, 'on_line')
    call a:job.opts.on_line(a:line)
  else
    call add(a:job.out, a:line)
  endif
endfunction

" Vim: one callback per line; the job is over when it has exited and its channel is closed.
function! s:vim_out(job, ch, line) abort
  call s:line(a:job, a:line)
endfunction

function! s:vim_err(job, ch, line) abort
  call add(a:job.err, a:line)
endfunction

function! s:vim_exit(job, j, status) abort
  let a:job.status = a:status
  if a:job.closed || has_key(a:job.opts, 'out_file')
    call s:finish(a:job, a:status, [])
  endif
endfunction

function! s:vim_close(job, ch) abort
  let a:job.closed = 1
  if a:job.status != -2
    call s:finish(a:job, a:job.status, [])
  endif
endfunction

" Neovim: chunks of lines where the first continues the last of the previous chunk; [''] is the end.
function! s:nvim_out(job, id, data, event) abort
  if has_key(a:job.opts, 'out_file')
    if empty(a:job.bytes)
      let a:job.bytes = copy(a:data)
    else
      let a:job.bytes[-1] .= a:data[0]
      call extend(a:job.bytes, a:data[1:])
    endif
    return
  endif
  for l:line in s:nvim_lines(a:job, 0, a:data)
    call s:line(a:job, l:line)
  endfor
endfunction

function! s:nvim_err(job, id, data, event) abort
  call extend(a:job.err, s:nvim_lines(a:job, 1, a:data))
endfunction

function! s:nvim_lines(job, which, data) abort
  let l:lines = copy(a:data)
  let l:lines[0] = a:job.partial[a:which] . l:lines[0]
  if a:data == ['']
    " end of the stream: what is left is a last line without its newline
    let a:job.partial[a:which] = ''
    return l:lines[0] ==# '' ? [] : [l:lines[0]]
  endif
  let a:job.partial[a:which] = remove(l:lines, -1)
  return l:lines
endfunction

function! s:nvim_exit(job, id, status, event) abort
  " what a stream left without its newline (normally flushed by the end-of-stream chunk already)
  if a:job.partial[1] !=# ''
    call add(a:job.err, a:job.partial[1])
  endif
  if a:job.partial[0] !=# ''
    call s:line(a:job, a:job.partial[0])
  endif
  let a:job.partial = ['', '']
  if has_key(a:job.opts, 'out_file')
    call writefile(a:job.bytes, a:job.opts.out_file, 'b')
  endif
  call s:finish(a:job, a:status, [])
endfunction

function! s:finish(job, status, err) abort
  if !has_key(s:jobs, a:job.handle)
    return
  endif
  call remove(s:jobs, a:job.handle)
  if a:job.writer
    let s:writing = 0
    if !empty(s:waiting)
      call s:launch(remove(s:waiting, 0))
    endif
  endif
  call extend(a:job.err, a:err)
  if !get(a:job.opts, 'quiet', 0)
    call maildex#error#check(a:job.argv, a:status, a:job.err)
  endif
  call a:job.opts.on_exit(a:status, a:job.out, a:job.err)
endfunction

function! s:ignore(...) abort
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
