" SPDX-License-Identifier: GPL-3.0-or-later
" Address completion in a mail buffer's To/Cc/Bcc lines (omnifunc, CTRL-X CTRL-O). The addresses come
" from `maildex address` over the mail to and from the user, harvested without waiting when the first
" mail buffer opens; completion only filters what has arrived, so it never waits either.
let s:cpo_save = &cpo
set cpo&vim

let s:addresses = []
let s:state = 'none'

function! maildex#address#harvest() abort
  if s:state !=# 'none'
    return
  endif
  let s:state = 'loading'
  call maildex#config#with(function('s:start'))
endfunction

function! s:start(config) abort
  let l:mine = maildex#config#addresses(a:config)
  let l:query = empty(l:mine) ? '*' : join(map(l:mine, '"from:" . v:val . " or to:" . v:val'), ' or ')
  call maildex#transport#run(['address', '--format=json', '--format-version=5', '--output=sender',
        \ '--output=recipients', '--deduplicate=address', l:query], {'on_exit': function('s:harvested')})
endfunction

function! s:harvested(status, out, err) abort
  " a failed harvest (reported by the transport) is tried again by the next completion
  let s:state = a:status == 0 ? 'done' : 'none'
  let l:list = maildex#util#json(a:out)
  let s:addresses = type(l:list) == type([]) ? map(l:list, 'maildex#util#str(get(v:val, "name-addr", ""))') : []
  call filter(s:addresses, 'v:val !=# ""')
endfunction

" Forgets the harvest (the next mail buffer harvests again).
function! maildex#address#reset() abort
  let s:state = 'none'
  let s:addresses = []
endfunction

function! maildex#address#ready() abort
  return s:state ==# 'done'
endfunction

function! maildex#address#complete(findstart, base) abort
  if a:findstart
    let l:line = getline('.')
    if l:line !~? '^\%(to\|cc\|bcc\|from\|reply-to\):' || line('.') > search('^$', 'nw')
      return -3
    endif
    let l:start = col('.') - 1
    while l:start > 0 && l:line[l:start - 1] !~# '[,:]'
      let l:start -= 1
    endwhile
    while l:line[l:start] ==# ' '
      let l:start += 1
    endwhile
    return l:start
  endif
  if s:state ==# 'none'
    call maildex#address#harvest()
  endif
  let l:base = tolower(a:base)
  return filter(copy(s:addresses), 'stridx(tolower(v:val), l:base) >= 0')
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
