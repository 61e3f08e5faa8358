" SPDX-License-Identifier: GPL-3.0-or-later
" The start page (notmuch-hello): the number of messages, the saved searches with their counts, and
" every tag with its count. Each part is filled in when its command answers; Enter on a line opens
" its search. Saved searches are g:maildex_saved_searches followed by the config's query.* entries.
let s:cpo_save = &cpo
set cpo&vim

function! maildex#hello#open() abort
  let l:buf = maildex#util#open_buffer('maildex://hello', 'maildexhello')
  let b:maildex_hello = {'buf': l:buf, 'total': '', 'searches': [], 'tags': [], 'counts': {}, 'lines': {}}
  call s:draw(b:maildex_hello)
  call maildex#config#reset()
  call maildex#config#with(function('s:configured', [b:maildex_hello]))
  call maildex#transport#run(['count', '*'], {'on_exit': function('s:counted_all', [b:maildex_hello])})
  call maildex#transport#run(['search', '--output=tags', '*'], {'on_exit': function('s:tagged', [b:maildex_hello])})
  return l:buf
endfunction

function! s:default_searches() abort
  return [{'name': 'inbox', 'query': 'tag:inbox'}, {'name': 'unread', 'query': 'tag:unread'},
        \ {'name': 'flagged', 'query': 'tag:flagged'}, {'name': 'sent', 'query': 'tag:sent'},
        \ {'name': 'drafts', 'query': 'tag:draft'}, {'name': 'all mail', 'query': '*'}]
endfunction

function! s:configured(state, config) abort
  let a:state.searches = copy(get(g:, 'maildex_saved_searches', s:default_searches()))
  for l:key in sort(keys(a:config))
    if l:key =~# '^query\.'
      call add(a:state.searches, {'name': l:key[6:], 'query': a:config[l:key]})
    endif
  endfor
  call s:count(a:state, map(copy(a:state.searches), 'v:val.query'))
endfunction

function! s:counted_all(state, status, out, err) abort
  let a:state.total = a:status == 0 ? get(a:out, 0, '') : '?'
  call s:draw(a:state)
endfunction

function! s:tagged(state, status, out, err) abort
  let a:state.tags = copy(a:out)
  call s:count(a:state, map(copy(a:out), 'maildex#util#term("tag", v:val)'))
endfunction

" `count --batch`: one query a line in, one count a line out, in the same order.
function! s:count(state, queries) abort
  if empty(a:queries)
    return s:draw(a:state)
  endif
  call maildex#transport#run(['count', '--batch'], {'stdin': join(map(copy(a:queries),
        \ 'substitute(v:val, "\n", " ", "g")'), "\n") . "\n", 'on_exit': function('s:batch', [a:state, a:queries])})
endfunction

function! s:batch(state, queries, status, out, err) abort
  for l:i in range(min([len(a:queries), len(a:out)]))
    let a:state.counts[a:queries[l:i]] = a:out[l:i]
  endfor
  call s:draw(a:state)
endfunction

function! s:entry(state, lines, name, query) abort
  call add(a:lines, printf('%9s  %s', get(a:state.counts, a:query, ''), a:name))
  let a:state.lines[len(a:lines)] = a:query
endfunction

function! s:draw(state) abort
  let a:state.lines = {}
  let l:lines = [a:state.total ==# '?' ? 'Welcome to maildex. Counting the messages failed: :MaildexErrors shows why.'
        \ : 'Welcome to maildex. You have ' . (a:state.total ==# '' ? '...' : a:state.total) . ' messages.',
        \ '', 'Saved searches:']
  for l:search in a:state.searches
    call s:entry(a:state, l:lines, l:search.name, l:search.query)
  endfor
  call extend(l:lines, ['', 'Search: press s (or :Maildex QUERY)', '', 'All tags:'])
  for l:tag in a:state.tags
    call s:entry(a:state, l:lines, l:tag, maildex#util#term('tag', l:tag))
  endfor
  call extend(l:lines, ['', 'Enter: open   s: search   Z: tree   m: new mail   N: maildex new   =: refresh   q: quit'])
  call maildex#util#set_lines(a:state.buf, 1, l:lines, 1)
endfunction

function! maildex#hello#enter() abort
  let l:query = get(b:maildex_hello.lines, line('.'), '')
  if l:query !=# ''
    call maildex#search#open(l:query)
  endif
endfunction

" N (notmuch.el's G, which stays Vim's motion here): `maildex new`, then the page again. What it
" says last is shown when it succeeds; when it fails, the error (maildex#error#check) is all.
function! maildex#hello#poll() abort
  let l:buf = bufnr('%')
  echomsg 'maildex new...'
  call maildex#transport#run(['new'], {'on_exit': {status, out, err -> s:polled(l:buf, status, out)}})
endfunction

function! s:polled(buf, status, out) abort
  if a:status == 0
    echomsg 'maildex new: ' . get(a:out, -1, 'done')
  endif
  let l:win = bufwinid(a:buf)
  if l:win != -1
    call win_execute(l:win, 'call maildex#hello#open()')
  endif
  call maildex#poll#notify()
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
