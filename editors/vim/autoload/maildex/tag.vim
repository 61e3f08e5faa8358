" SPDX-License-Identifier: GPL-3.0-or-later
" Tag changes: `maildex tag +a -b -- QUERY`, the tag prompt with completion, archive's changes, and
" the list of all tags the prompt completes from (read again, without waiting, whenever a list opens).
let s:cpo_save = &cpo
set cpo&vim

let s:all = []

function! maildex#tag#apply(changes, query, done) abort
  call maildex#transport#run(['tag'] + a:changes + ['--', a:query],
        \ {'on_exit': function('s:applied', [a:changes, a:done])})
endfunction

function! s:applied(changes, done, status, out, err) abort
  if a:status == 0
    for l:change in a:changes
      if l:change =~# '^+' && index(s:all, l:change[1:]) < 0
        call add(s:all, l:change[1:])
      endif
    endfor
    call a:done()
  endif
endfunction

" TAGS after CHANGES ('+a', '-b'), sorted as maildex prints them.
function! maildex#tag#changed(tags, changes) abort
  let l:tags = copy(a:tags)
  for l:change in a:changes
    let l:name = l:change[1:]
    if l:change[0] ==# '+' && index(l:tags, l:name) < 0
      call add(l:tags, l:name)
    elseif l:change[0] ==# '-'
      call filter(l:tags, 'v:val !=# l:name')
    endif
  endfor
  return sort(l:tags)
endfunction

" notmuch-archive-tags: g:maildex_archive_tags, ['-inbox'] by default.
function! maildex#tag#archive_changes() abort
  return copy(get(g:, 'maildex_archive_tags', ['-inbox']))
endfunction

" Asks for tag changes; a word without + or - takes SIGN. CURRENT are the tags `-` completes from.
function! maildex#tag#prompt(sign, current) abort
  let s:completing = a:sign ==# '-' ? a:current : s:all
  let l:answer = input(a:sign ==# '-' ? 'Remove tags: ' : 'Add tags: ', '', 'customlist,maildex#tag#complete')
  return maildex#tag#parse(a:sign, l:answer)
endfunction

function! maildex#tag#parse(sign, text) abort
  return map(split(a:text), 'v:val =~# "^[+-]" ? v:val : a:sign . v:val')
endfunction

function! maildex#tag#complete(lead, line, pos) abort
  let l:word = matchstr(a:lead, '\S*$')
  let l:sign = matchstr(l:word, '^[+-]')
  let l:stem = strpart(a:lead, 0, len(a:lead) - len(l:word))
  let l:tags = exists('s:completing') ? s:completing : s:all
  return map(filter(copy(l:tags), 'stridx(v:val, l:word[len(l:sign):]) == 0'), 'l:stem . l:sign . v:val')
endfunction

function! maildex#tag#all() abort
  return copy(s:all)
endfunction

function! maildex#tag#load_all() abort
  call maildex#transport#run(['search', '--output=tags', '*'], {'on_exit': function('s:loaded')})
endfunction

function! s:loaded(status, out, err) abort
  if a:status == 0
    let s:all = copy(a:out)
  endif
endfunction

" :MaildexTag +a -b: on the line(s) of a list, or the message of a thread.
function! maildex#tag#command(first, last, args) abort
  let l:changes = maildex#tag#parse('+', a:args)
  if exists('b:maildex_search')
    call maildex#search#tag(l:changes, a:first, a:last)
  elseif exists('b:maildex_show')
    call maildex#show#tag(l:changes)
  else
    call maildex#error#note(':MaildexTag works in a list or a thread')
  endif
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
