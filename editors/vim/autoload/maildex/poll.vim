" SPDX-License-Identifier: GPL-3.0-or-later
" Without the server's events, open lists learn of new mail by polling the message count
" (`maildex count --lastmod '*'`, one quick process) every g:maildex_poll_interval milliseconds
" (0 turns it off). The timer runs only while something listens. A listener returns -1 when it is
" gone (its buffer wiped) and is dropped.
let s:cpo_save = &cpo
set cpo&vim

let s:listeners = []
let s:timer = -1
let s:revision = ''
let s:busy = 0

function! maildex#poll#subscribe(fn) abort
  call add(s:listeners, a:fn)
  call maildex#poll#start()
endfunction

" Starts the timer if something listens and it is not running (g:maildex_poll_interval may have
" been set since the first list opened).
function! maildex#poll#start() abort
  let l:interval = get(g:, 'maildex_poll_interval', 10000)
  if s:timer == -1 && l:interval > 0 && !empty(s:listeners)
    let s:timer = timer_start(l:interval, function('s:tick'), {'repeat': -1})
    call s:tick(s:timer) " the revision the lists were drawn from
  endif
endfunction

" The last revision seen ('' before the first answer).
function! maildex#poll#revision() abort
  return s:revision
endfunction

function! s:tick(timer) abort
  " stopped when nothing listens, or when g:maildex_poll_interval became 0 (never) since it started
  if empty(s:listeners) || get(g:, 'maildex_poll_interval', 10000) <= 0
    call timer_stop(s:timer)
    let s:timer = -1
    let s:revision = ''
    return
  endif
  if !s:busy
    let s:busy = 1
    call maildex#transport#run(['count', '--lastmod', '*'], {'on_exit': function('s:counted')})
  endif
endfunction

function! s:counted(status, out, err) abort
  let s:busy = 0
  if a:status != 0 || empty(a:out)
    return
  endif
  " the message count and the database's uuid: new or removed mail, not a tag change (the lists
  " redraw their own tag changes; a thread archived from a list stays in it, as in notmuch.el)
  let l:revision = join(split(a:out[0], "\t")[0:1], "\t")
  let l:changed = s:revision !=# '' && l:revision !=# s:revision
  let s:revision = l:revision
  if l:changed
    call maildex#poll#notify()
  endif
endfunction

" Tells every listener the store changed (the server transport calls this on its events).
function! maildex#poll#notify() abort
  let l:keep = []
  for l:Fn in s:listeners
    if l:Fn() != -1
      call add(l:keep, l:Fn)
    endif
  endfor
  let s:listeners = l:keep
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
