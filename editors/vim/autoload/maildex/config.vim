" SPDX-License-Identifier: GPL-3.0-or-later
" The user's identity and saved searches, as `maildex config list` prints them: read once, without
" waiting, and handed to whoever asked when they arrive (at once after the first time).
let s:cpo_save = &cpo
set cpo&vim

let s:config = v:null
let s:waiting = []

" Calls FN(config) with a dict of every key of `config list`. When `config list` fails (the
" transport reports it), FN gets {} and the next call asks again.
function! maildex#config#with(fn) abort
  if type(s:config) == type({})
    call a:fn(s:config)
    return
  endif
  call add(s:waiting, a:fn)
  if len(s:waiting) == 1
    call maildex#transport#run(['config', 'list'], {'on_exit': function('s:read')})
  endif
endfunction

function! s:read(status, out, err) abort
  let l:config = {}
  for l:line in a:status == 0 ? a:out : []
    let l:eq = stridx(l:line, '=')
    if l:eq > 0
      let l:config[l:line[: l:eq - 1]] = l:line[l:eq + 1 :]
    endif
  endfor
  let s:config = a:status == 0 ? l:config : v:null
  let l:waiting = s:waiting
  let s:waiting = []
  for l:Fn in l:waiting
    call l:Fn(l:config)
  endfor
endfunction

" Forgets what was read (a test or the user changed the config).
function! maildex#config#reset() abort
  let s:config = v:null
endfunction

" "Name <address>" of the user, from a config dict.
function! maildex#config#from(config) abort
  let l:name = get(a:config, 'user.name', '')
  let l:address = get(a:config, 'user.primary_email', '')
  return l:name ==# '' ? l:address : l:name . ' <' . l:address . '>'
endfunction

" Every address of the user (primary and other), for address harvesting.
function! maildex#config#addresses(config) abort
  return filter([get(a:config, 'user.primary_email', '')]
        \ + split(get(a:config, 'user.other_email', ''), ';'), 'v:val !=# ""')
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
