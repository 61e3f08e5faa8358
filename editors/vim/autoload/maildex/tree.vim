" SPDX-License-Identifier: GPL-3.0-or-later
" The tree view, notmuch.el's notmuch-tree: every message of the threads matching a query, one line
" each (date, author, its place in the thread drawn as notmuch-tree draws it, subject, tags). The
" threads come from `maildex search --format=json` as it streams and wait undecoded, as in a list;
" their messages from `maildex show --body=false --entire-thread`, a batch of threads at a time and
" only for the screens the user reaches. Line N of the buffer is b:maildex_tree.rows[N-1].
scriptencoding utf-8
let s:cpo_save = &cpo
set cpo&vim

let s:end_line = 'End of search results.'
" Threads per `show`: its query names each, and one argument must stay far below Linux's 128 kB.
let s:batch_max = 200

function! maildex#tree#open(query, ...) abort
  let l:query = a:query =~# '^\s*$' ? '*' : a:query
  let l:sort = get(a:, 1, get(g:, 'maildex_search_oldest_first', 0) ? 'oldest-first' : 'newest-first')
  let l:buf = maildex#util#open_buffer('maildex://tree/' . l:query, 'maildextree')
  let l:old = get(b:, 'maildex_tree', {})
  call s:stop(l:old)
  " the first `show` reads a screen of threads (each a line or more), later ones a page; notmuch-tree
  " pads subjects to 54 columns, less in a narrow window so that the tags stay in sight
  let b:maildex_tree = {'buf': l:buf, 'query': l:query, 'sort': l:sort, 'pending': [], 'rows': [],
        \ 'limit': min([s:page(), winheight(0)]), 'done': 0, 'failed': 0, 'search': 0, 'show': 0, 'goto': 0,
        \ 'keep': get(l:old, 'keep', ''), 'width': min([54, max([20, winwidth(0) - 56])])}
  let l:state = b:maildex_tree
  call maildex#util#set_lines(l:buf, 1, [], 1)
  let l:state.search = maildex#transport#run(['search', '--format=json', '--format-version=5',
        \ '--sort=' . l:sort, l:query], {'on_line': function('s:arrived', [l:state]),
        \ 'on_exit': function('s:searched', [l:state])})
  return l:buf
endfunction

function! s:page() abort
  return get(g:, 'maildex_page_lines', max([&lines, 50]))
endfunction

function! s:stop(state) abort
  for l:key in ['search', 'show']
    if get(a:state, l:key, 0) != 0
      call maildex#transport#stop(a:state[l:key])
    endif
  endfor
endfunction

function! s:arrived(state, line) abort
  call add(a:state.pending, a:line)
  call s:fill(a:state)
endfunction

function! s:searched(state, status, out, err) abort
  let a:state.search = 0
  let a:state.done = 1
  let a:state.failed = a:state.failed || a:status != 0
  call s:fill(a:state)
endfunction

" Asks for the messages of the next threads while fewer lines are drawn than the limit.
function! s:fill(state) abort
  if a:state.show != 0 || !bufexists(a:state.buf)
    return
  endif
  let l:threads = []
  let l:want = min([a:state.limit - len(a:state.rows), s:batch_max])
  if l:want > 0 && len(a:state.pending) < l:want && !a:state.done
    " a whole batch, not a `show` for every thread that trickles in
    return
  endif
  while !empty(a:state.pending) && len(l:threads) < l:want
    let l:item = maildex#util#json_element(remove(a:state.pending, 0))
    if type(l:item) == type({})
      call add(l:threads, l:item)
    endif
  endwhile
  if empty(l:threads)
    return s:draw_end(a:state)
  endif
  let l:query = maildex#util#both(join(map(copy(l:threads), '"thread:" . v:val.thread'), ' or '), a:state.query)
  let a:state.show = maildex#transport#run(['show', '--format=json', '--format-version=5',
        \ '--body=false', '--entire-thread=true', '--sort=' . a:state.sort, l:query],
        \ {'on_exit': function('s:shown', [a:state, l:threads])})
endfunction

" A batch's threads, drawn in the order the search gave them (each found by its messages' ids).
function! s:shown(state, threads, status, out, err) abort
  let a:state.show = 0
  let l:result = a:status == 0 ? maildex#util#json(a:out) : v:null
  if type(l:result) != type([])
    let a:state.failed = 1
    let a:state.pending = []
    return s:draw_end(a:state)
  endif
  let l:order = {}
  for l:i in range(len(a:threads))
    for l:id in maildex#util#ids(a:threads[l:i])
      let l:order[l:id] = l:i
    endfor
  endfor
  let l:slots = map(range(len(a:threads)), '[]')
  for l:thread in l:result
    let l:i = get(l:order, s:first_id(l:thread), -1)
    if l:i >= 0
      let l:slots[l:i] = l:thread
    endif
  endfor
  let l:first = len(a:state.rows) + 1
  let l:lines = []
  for l:i in range(len(a:threads))
    let l:out = {'state': a:state, 'thread': a:threads[l:i].thread, 'lines': l:lines, 'subject': "\n",
          \ 'width': a:state.width}
    call s:draw_forest(l:out, l:slots[l:i], [])
  endfor
  call maildex#util#set_lines(a:state.buf, l:first, l:lines, 0)
  call s:fill(a:state)
  call s:place_cursor(a:state)
endfunction

function! s:first_id(thread) abort
  let l:node = get(a:thread, 0, [])
  return type(l:node) == type([]) && type(get(l:node, 0, 0)) == type({}) ? get(l:node[0], 'id', '') : ''
endfunction

" notmuch-tree's drawing (notmuch-tree-insert-thread): STATUS holds what the levels above leave
" in front of a line ("│" while a level has more to come, " " when it had its last).
function! s:draw_forest(out, nodes, status) abort
  let l:n = len(a:nodes)
  for l:i in range(l:n)
    let l:node = a:nodes[l:i]
    if type(l:node) == type([]) && len(l:node) == 2 && type(l:node[0]) == type({})
      call s:draw_node(a:out, l:node[0], l:node[1], a:status, l:i == 0, l:i == l:n - 1)
    endif
  endfor
endfunction

function! s:draw_node(out, msg, replies, status, first, last) abort
  let l:c = s:chars()
  if !empty(a:status)
    let l:branch = a:last ? l:c.last : l:c.branch
  else
    let l:branch = a:first ? (a:last ? ' ' : l:c.fork) : (a:last ? l:c.last : l:c.branch)
  endif
  let l:row = {'msg': a:msg, 'thread': a:out.thread, 'width': a:out.width,
        \ 'drawing': join(a:status, '') . l:branch . (empty(a:replies) ? l:c.line : l:c.fork) . l:c.arrow}
  let l:subject = substitute(maildex#util#str(get(get(a:msg, 'headers', {}), 'Subject', '')), '^\%([Rr][Ee]: *\)\+', '', '')
  " notmuch-tree's " ..." for the subject the line before had, within a thread
  let l:row.subject = l:subject ==# a:out.subject ? ' ...' : l:subject
  let a:out.subject = l:subject
  call add(a:out.state.rows, l:row)
  call add(a:out.lines, s:format(l:row))
  call s:draw_forest(a:out, a:replies, a:status + [a:last ? ' ' : l:c.down])
endfunction

" The drawing's characters: notmuch-tree's, or ASCII where Vim's 'encoding' has no box drawing.
function! s:chars() abort
  return &encoding ==# 'utf-8'
        \ ? {'branch': '├', 'last': '╰', 'fork': '┬', 'line': '─', 'arrow': '►', 'down': '│'}
        \ : {'branch': '|', 'last': '`', 'fork': '+', 'line': '-', 'arrow': '>', 'down': '|'}
endfunction

" notmuch-tree-result-format's columns: date (12, right), author (cut to 20), drawing and subject
" (54, or less in a narrow window; padded, not cut), tags.
function! s:format(row) abort
  let l:msg = a:row.msg
  let l:subject = a:row.drawing . a:row.subject
  let l:author = s:author(maildex#util#str(get(get(l:msg, 'headers', {}), 'From', '')))
  while strdisplaywidth(l:author) > 20
    let l:author = strcharpart(l:author, 0, strchars(l:author) - 1)
  endwhile
  return maildex#util#column(maildex#util#str(get(l:msg, 'date_relative', '')), 12, 1) . '  '
        \ . l:author . repeat(' ', 20 - strdisplaywidth(l:author))
        \ . ' ' . l:subject . repeat(' ', a:row.width - strdisplaywidth(l:subject))
        \ . ' (' . join(get(l:msg, 'tags', [])) . ')'
endfunction

" notmuch-tree-clean-address: the name of the From address, or the address when it has none.
function! s:author(from) abort
  let l:m = matchlist(a:from, '^\s*"\?\(.\{-}\)"\?\s*<\([^>]*\)>\s*$')
  if empty(l:m)
    return a:from
  endif
  return l:m[1] !=# '' ? l:m[1] : l:m[2]
endfunction

function! s:draw_end(state) abort
  if a:state.done && empty(a:state.pending) && a:state.show == 0 && bufexists(a:state.buf)
    call maildex#util#set_lines(a:state.buf, len(a:state.rows) + 1,
          \ [a:state.failed ? 'The search failed: :MaildexErrors shows why.' : s:end_line], 1)
    call s:place_cursor(a:state)
  endif
endfunction

" After a batch is drawn: the cursor to the message a refresh keeps, or to where n or G was
" going when the line was not there yet (goto: a line, or -1 for the last).
function! s:place_cursor(state) abort
  let l:target = 0
  if a:state.keep !=# ''
    let l:rows = map(copy(a:state.rows), 'v:val.msg.id')
    let l:target = index(l:rows, a:state.keep) + 1
    let a:state.keep = l:target > 0 ? '' : a:state.keep
  elseif a:state.goto > 0 && a:state.goto <= len(a:state.rows)
    let l:target = a:state.goto
    let a:state.goto = 0
  elseif a:state.goto == -1 && a:state.done && empty(a:state.pending) && a:state.show == 0
    let l:target = -1
    let a:state.goto = 0
  endif
  let l:win = bufwinid(a:state.buf)
  if l:target != 0 && l:win != -1
    call win_execute(l:win, 'call cursor(' . (l:target > 0 ? l:target : 'line("$")') . ', 1)')
  endif
endfunction

" The cursor moved near the end of what is drawn (or FORCE): a page more may be drawn.
function! maildex#tree#more(...) abort
  let l:state = get(b:, 'maildex_tree', {})
  if empty(l:state) || (!a:0 && line('.') + winheight(0) < len(l:state.rows))
    return
  endif
  let l:state.limit = max([l:state.limit, len(l:state.rows) + s:page()])
  call s:fill(l:state)
endfunction

function! maildex#tree#page_down() abort
  call maildex#tree#more(1)
  execute "normal! \<C-f>"
  call maildex#tree#more()
endfunction

" n, p: COUNT messages down or up; a line not drawn yet is reached when it is.
function! maildex#tree#next(count) abort
  let l:state = get(b:, 'maildex_tree', {})
  if empty(l:state) || empty(l:state.rows)
    return
  endif
  let l:target = max([1, line('.') + a:count])
  if l:target > len(l:state.rows) && (!empty(l:state.pending) || l:state.show != 0)
    let l:state.goto = l:target
    let l:state.limit = max([l:state.limit, l:target + s:page()])
    call s:fill(l:state)
  endif
  call cursor(min([l:target, len(l:state.rows)]), 1)
endfunction

" G: every message drawn, then the last line; [count]G: line COUNT.
function! maildex#tree#last(count) abort
  let l:state = get(b:, 'maildex_tree', {})
  if empty(l:state)
    return
  endif
  let l:state.goto = a:count > 0 ? a:count : -1
  let l:state.limit = a:count > 0 ? max([l:state.limit, a:count + s:page()]) : 0x7fffffff
  call s:fill(l:state)
  call s:place_cursor(l:state)
endfunction

function! maildex#tree#row(...) abort
  let l:state = get(b:, 'maildex_tree', {})
  let l:lnum = get(a:, 1, line('.'))
  return empty(l:state) || l:lnum > len(l:state.rows) ? {} : l:state.rows[l:lnum - 1]
endfunction

" Enter: the message's thread, the cursor on the message.
function! maildex#tree#show() abort
  let l:row = maildex#tree#row()
  if !empty(l:row)
    call maildex#show#open(l:row.thread, b:maildex_tree.query, l:row.subject, l:row.msg.id)
  endif
endfunction

" Tag changes on the message of the line (or its whole thread with ALL).
function! maildex#tree#tag(changes, ...) abort
  let l:row = maildex#tree#row()
  if empty(l:row) || empty(a:changes)
    return
  endif
  let l:all = get(a:, 1, 0)
  let l:ids = map(filter(copy(b:maildex_tree.rows), l:all ? 'v:val.thread ==# l:row.thread' : 'v:val is l:row'),
        \ 'v:val.msg.id')
  let l:query = l:all ? 'thread:' . l:row.thread : maildex#util#term('id', l:row.msg.id)
  call maildex#tag#apply(a:changes, l:query, function('s:tagged', [l:ids, a:changes, l:row.thread]))
endfunction

function! s:tagged(ids, changes, thread, ...) abort
  call maildex#tree#retag(a:ids, a:changes)
  call maildex#search#update_threads([a:thread])
endfunction

" The lines of messages IDS in every open tree, with CHANGES made to their tags.
function! maildex#tree#retag(ids, changes) abort
  let l:tags = {}
  for l:buf in s:trees()
    let l:state = getbufvar(l:buf, 'maildex_tree')
    for l:i in range(len(l:state.rows))
      let l:msg = l:state.rows[l:i].msg
      if index(a:ids, l:msg.id) >= 0
        let l:msg.tags = maildex#tag#changed(get(l:msg, 'tags', []), a:changes)
        call maildex#util#set_lines(l:buf, l:i + 1, [s:format(l:state.rows[l:i])], 0)
      endif
    endfor
  endfor
endfunction

" Tags changed on whole THREADS elsewhere (a list's lines): the trees that show them read their
" messages' tags again.
function! maildex#tree#update_threads(threads) abort
  let l:shown = filter(copy(a:threads), '!empty(s:trees(v:val))')
  if empty(l:shown)
    return
  endif
  call maildex#transport#run(['show', '--format=json', '--format-version=5', '--body=false',
        \ '--entire-thread=true', '--exclude=false', join(map(l:shown, '"thread:" . v:val'), ' or ')],
        \ {'on_exit': function('s:reread')})
endfunction

function! s:reread(status, out, err) abort
  let l:tags = {}
  call s:collect_tags(maildex#util#json(a:out), l:tags)
  for l:buf in s:trees()
    let l:state = getbufvar(l:buf, 'maildex_tree')
    for l:i in range(len(l:state.rows))
      let l:msg = l:state.rows[l:i].msg
      if has_key(l:tags, l:msg.id) && l:tags[l:msg.id] != get(l:msg, 'tags', [])
        let l:msg.tags = l:tags[l:msg.id]
        call maildex#util#set_lines(l:buf, l:i + 1, [s:format(l:state.rows[l:i])], 0)
      endif
    endfor
  endfor
endfunction

" Message id -> tags of every message in show's JSON (threads of [message, replies] nodes).
function! s:collect_tags(value, tags) abort
  if type(a:value) == type({}) && has_key(a:value, 'id')
    let a:tags[a:value.id] = get(a:value, 'tags', [])
  elseif type(a:value) == type([])
    for l:item in a:value
      call s:collect_tags(l:item, a:tags)
    endfor
  endif
endfunction

" The buffers of open trees (those with a line of THREAD, when given).
function! s:trees(...) abort
  let l:bufs = filter(range(1, bufnr('$')), 'type(getbufvar(v:val, "maildex_tree", 0)) == type({})')
  if a:0
    call filter(l:bufs, '!empty(filter(copy(getbufvar(v:val, "maildex_tree").rows), "v:val.thread ==# a:1"))')
  endif
  return l:bufs
endfunction

function! maildex#tree#tag_prompt(sign) abort
  let l:row = maildex#tree#row()
  call maildex#tree#tag(maildex#tag#prompt(a:sign, get(get(l:row, 'msg', {}), 'tags', [])))
endfunction

function! maildex#tree#toggle_unread() abort
  let l:row = maildex#tree#row()
  if !empty(l:row)
    call maildex#tree#tag([index(get(l:row.msg, 'tags', []), 'unread') >= 0 ? '-unread' : '+unread'])
  endif
endfunction

" a: archive the message, then the next line; A: the thread, then the next thread's first line.
function! maildex#tree#archive(all) abort
  let l:row = maildex#tree#row()
  if empty(l:row)
    return
  endif
  call maildex#tree#tag(maildex#tag#archive_changes(), a:all)
  let l:next = line('.') + 1
  while a:all && l:next <= len(b:maildex_tree.rows) && b:maildex_tree.rows[l:next - 1].thread ==# l:row.thread
    let l:next += 1
  endwhile
  call maildex#tree#next(l:next - line('.'))
endfunction

function! maildex#tree#reply(all) abort
  let l:row = maildex#tree#row()
  if !empty(l:row)
    call maildex#compose#reply(maildex#util#term('id', l:row.msg.id), a:all)
  endif
endfunction

" e: the draft of the line, in a mail buffer again (notmuch-tree's resume).
function! maildex#tree#resume() abort
  let l:row = maildex#tree#row()
  if !empty(l:row)
    call maildex#compose#resume(l:row.msg.id, get(l:row.msg, 'tags', []))
  endif
endfunction

function! maildex#tree#refresh() abort
  let l:state = b:maildex_tree
  let l:state.keep = get(get(maildex#tree#row(), 'msg', {}), 'id', '')
  call maildex#tree#open(l:state.query, l:state.sort)
endfunction

function! maildex#tree#toggle_order() abort
  let l:state = b:maildex_tree
  call maildex#tree#open(l:state.query, l:state.sort ==# 'newest-first' ? 'oldest-first' : 'newest-first')
endfunction

function! maildex#tree#close() abort
  call s:stop(get(b:, 'maildex_tree', {}))
  call maildex#util#close()
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
