" SPDX-License-Identifier: GPL-3.0-or-later
" The search list: one line per thread (date, [matched/total], authors, subject, tags), filled from
" `maildex search --format=json` as it streams. Lines are only decoded and drawn for the screens the
" user has reached: the first ones as soon as they arrive, later pages as the cursor gets near the
" end (b:maildex_search.limit is how many may be drawn; the rest wait, undecoded, in .pending).
" Line N of the buffer is b:maildex_search.items[N-1]; "End of search results." follows the last.
let s:cpo_save = &cpo
set cpo&vim

let s:end_line = 'End of search results.'

function! maildex#search#open(query, ...) abort
  let l:query = a:query =~# '^\s*$' ? '*' : a:query
  let l:sort = get(a:, 1, get(g:, 'maildex_search_oldest_first', 0) ? 'oldest-first' : 'newest-first')
  let l:buf = maildex#util#open_buffer('maildex://search/' . l:query, 'maildexsearch')
  let l:old = get(b:, 'maildex_search', {})
  if !empty(l:old)
    call maildex#transport#stop(l:old.handle)
  endif
  let b:maildex_search = {'buf': l:buf, 'query': l:query, 'sort': l:sort, 'items': [], 'pending': [],
        \ 'done': 0, 'status': -2, 'handle': -1, 'keep': get(l:old, 'keep', ''), 'limit': s:page(),
        \ 'received': 0, 'decoded': 0, 'events': [], 'started': reltime(),
        \ 'follow': s:following(l:old) ? -1 : 0}
  if empty(l:old)
    call maildex#transport#subscribe(function('s:store_changed', [l:buf]))
  else
    call maildex#poll#start()
  endif
  call s:start(b:maildex_search)
  return l:buf
endfunction

function! s:start(state) abort
  call maildex#util#set_lines(a:state.buf, 1, [], 1)
  let a:state.handle = maildex#transport#run(['search', '--format=json', '--format-version=5',
        \ '--sort=' . a:state.sort, a:state.query],
        \ {'on_line': function('s:arrived', [a:state]), 'on_exit': function('s:finished', [a:state])})
endfunction

" How many lines the first screen and each later page draw: a screenful and more.
function! s:page() abort
  return get(g:, 'maildex_page_lines', max([&lines, 50]))
endfunction

" A line of output: drawn at once while the list is short of its limit, else kept for later.
function! s:arrived(state, line) abort
  let a:state.received += 1
  if len(a:state.items) >= a:state.limit || !empty(a:state.pending)
    call add(a:state.pending, a:line)
    return
  endif
  let l:item = s:decode(a:state, a:line)
  if !empty(l:item)
    call add(a:state.items, l:item)
    call maildex#util#set_lines(a:state.buf, len(a:state.items), [s:format(l:item)], 0)
    call s:keep_cursor(a:state, l:item, len(a:state.items))
    call s:follow(a:state)
    if len(a:state.items) == s:screen(a:state)
      call s:event(a:state, 'first_screen')
    endif
  endif
endfunction

function! s:decode(state, line) abort
  let a:state.decoded += 1
  let l:item = maildex#util#json_element(a:line)
  return type(l:item) == type({}) ? l:item : {}
endfunction

" What happened when, in order: [NAME, lines received, lines decoded] (T600 checks that the first
" screen is drawn before the rest is read or decoded), and the time (bench/vim-first-screen).
function! s:event(state, name) abort
  call add(a:state.events, [a:name, a:state.received, a:state.decoded])
  let a:state[a:name] = reltime()
endfunction

" Whether the list STATE (in the current window, or in its own) still follows G's end.
function! s:following(state) abort
  let l:follow = get(a:state, 'follow', 0)
  let l:win = bufwinid(get(a:state, 'buf', -1))
  return l:follow == -1 || (l:follow > 0 && l:win != -1 && line('.', l:win) == l:follow)
endfunction

" The lines of a screen: the window's height, or a page when that is less.
function! s:screen(state) abort
  let l:win = bufwinid(a:state.buf)
  return min([l:win == -1 ? &lines : winheight(l:win), s:page()])
endfunction

function! s:finished(state, status, out, err) abort
  if !has_key(a:state, 'first_screen')
    call s:event(a:state, 'first_screen')
  endif
  call s:event(a:state, 'finished')
  let a:state.done = 1
  let a:state.status = a:status
  call s:draw_end(a:state)
  " the tags the prompt completes, read once the list is there so nothing competes with its start
  call maildex#tag#load_all()
endfunction

function! s:draw_end(state) abort
  if a:state.done && empty(a:state.pending)
    call maildex#util#set_lines(a:state.buf, len(a:state.items) + 1,
          \ [a:state.status == 0 ? s:end_line : 'The search failed: :MaildexErrors shows why.'], 1)
    call s:follow(a:state)
    let a:state.follow = 0
  endif
endfunction

" After G while the search still streams: the cursor stays on the last line as lines arrive, until
" the end or until the user moves it (STATE.follow is the line G or the last arrival put it on; -1
" after a refresh that came while following, which follows whatever the cursor's line).
function! s:follow(state) abort
  let l:win = bufwinid(a:state.buf)
  if l:win == -1 || !s:following(a:state)
    let a:state.follow = 0
    return
  endif
  let a:state.follow = maildex#util#line_count(a:state.buf)
  call win_execute(l:win, 'call cursor(' . a:state.follow . ', 1)')
endfunction

" The cursor moved near the end of what is drawn (or FORCE): a page more may be drawn, of what has
" arrived and of what arrives next.
function! maildex#search#more(...) abort
  let l:state = get(b:, 'maildex_search', {})
  if empty(l:state) || (!a:0 && line('.') + winheight(0) < len(l:state.items))
    return
  endif
  call s:draw_to(l:state, len(l:state.items) + s:page())
endfunction

" Raises the limit to LIMIT threads and draws what of them has arrived.
function! s:draw_to(state, limit) abort
  let a:state.limit = max([a:state.limit, a:limit])
  let l:lines = []
  let l:first = len(a:state.items) + 1
  while !empty(a:state.pending) && len(a:state.items) < a:state.limit
    let l:item = s:decode(a:state, remove(a:state.pending, 0))
    if !empty(l:item)
      call add(a:state.items, l:item)
      call add(l:lines, s:format(l:item))
    endif
  endwhile
  call maildex#util#set_lines(a:state.buf, l:first, l:lines, 0)
  call s:draw_end(a:state)
endfunction

" <Space>: a screen down, drawing what it needs first.
function! maildex#search#page_down() abort
  call maildex#search#more(1)
  execute "normal! \<C-f>"
  call maildex#search#more()
endfunction

" n, p (COUNT < 0): COUNT threads down or up, drawing the next ones first; never past the first
" or the last thread (as notmuch.el's notmuch-search-next-thread), nor up from the end line.
function! maildex#search#next(count) abort
  let l:state = get(b:, 'maildex_search', {})
  if empty(l:state) || empty(l:state.items)
    return
  endif
  let l:state.keep = '' " the user goes elsewhere: a refresh no longer takes the cursor back
  let l:target = line('.') + a:count
  if l:target > len(l:state.items)
    call s:draw_to(l:state, l:target + s:page())
  endif
  call cursor(max([1, min([l:target, max([len(l:state.items), line('.')])])]), 1)
endfunction

" G: Vim's motion over the whole list, not only the part drawn: every thread that has arrived is
" drawn (and those still arriving as they come, the cursor following them to the end), and the
" cursor goes to the last line; [count]G to line COUNT.
function! maildex#search#last(count) abort
  let l:state = get(b:, 'maildex_search', {})
  if empty(l:state)
    return
  endif
  let l:state.keep = ''
  call s:draw_to(l:state, a:count > 0 ? a:count + s:page() : 0x7fffffff)
  call cursor(a:count > 0 ? min([a:count, line('$')]) : line('$'), 1)
  let l:state.follow = a:count > 0 || l:state.done ? 0 : line('.')
endfunction

" Z: the messages of the list's query as a tree (notmuch.el's notmuch-tree-from-search-current-query).
function! maildex#search#tree() abort
  let l:state = get(b:, 'maildex_search', {})
  if !empty(l:state)
    call maildex#tree#open(l:state.query, l:state.sort)
  endif
endfunction

function! s:format(item) abort
  return maildex#util#column(maildex#util#str(a:item.date_relative), 12, 1) . ' '
        \ . maildex#util#column(printf('[%d/%d]', a:item.matched, a:item.total), 7) . ' '
        \ . maildex#util#column(maildex#util#str(a:item.authors), 20) . ' '
        \ . maildex#util#str(a:item.subject) . ' (' . join(a:item.tags) . ')'
endfunction

" After a refresh the cursor goes back to the thread it was on.
function! s:keep_cursor(state, item, lnum) abort
  if a:state.keep !=# '' && a:item.thread ==# a:state.keep
    let a:state.keep = ''
    let l:win = bufwinid(a:state.buf)
    if l:win != -1
      call win_execute(l:win, 'call cursor(' . a:lnum . ', 1)')
    endif
  endif
endfunction

function! maildex#search#item(...) abort
  let l:state = get(b:, 'maildex_search', {})
  let l:lnum = get(a:, 1, line('.'))
  return empty(l:state) || l:lnum > len(l:state.items) ? {} : l:state.items[l:lnum - 1]
endfunction

" The query for the messages of a thread's line, stable while tags change (notmuch.el's).
function! maildex#search#thread_query(item) abort
  let l:parts = filter(copy(a:item.query), 'type(v:val) == type("")')
  return join(map(l:parts, '"(" . v:val . ")"'), ' or ')
endfunction

function! maildex#search#show() abort
  let l:item = maildex#search#item()
  if !empty(l:item)
    call maildex#show#open(l:item.thread, b:maildex_search.query, l:item.subject)
  endif
endfunction

function! maildex#search#refresh() abort
  let l:state = get(b:, 'maildex_search', {})
  if empty(l:state)
    return
  endif
  " a refresh that has not yet found the thread to keep the cursor on keeps looking for it (events
  " come in bursts: a second one may arrive before the first refresh got there)
  " (a list following G's end keeps following it instead)
  if l:state.keep ==# '' && !s:following(l:state)
    let l:state.keep = get(maildex#search#item(), 'thread', '')
  endif
  call maildex#search#open(l:state.query, l:state.sort)
endfunction

function! maildex#search#toggle_order() abort
  let l:state = b:maildex_search
  call maildex#search#open(l:state.query, l:state.sort ==# 'newest-first' ? 'oldest-first' : 'newest-first')
endfunction

" The query narrowed: `l` asks for more terms, `t` for a tag.
function! maildex#search#filter(...) abort
  let l:state = b:maildex_search
  let l:more = a:0 ? maildex#util#term('tag', a:1) : input('Filter: ')
  if l:more !=# ''
    call maildex#search#open(maildex#util#both(l:state.query, l:more), l:state.sort)
  endif
endfunction

function! maildex#search#filter_tag() abort
  let l:tag = input('Filter by tag: ', '', 'customlist,maildex#tag#complete')
  if l:tag !=# ''
    call maildex#search#filter(l:tag)
  endif
endfunction

" Tag changes on the threads of lines FIRST..LAST, their lines redrawn when maildex has made them.
function! maildex#search#tag(changes, first, last) abort
  let l:state = get(b:, 'maildex_search', {})
  let l:items = filter(map(range(a:first, a:last), 'maildex#search#item(v:val)'), '!empty(v:val)')
  if empty(l:state) || empty(l:items) || empty(a:changes)
    return
  endif
  let l:query = join(map(copy(l:items), 'maildex#search#thread_query(v:val)'), ' or ')
  call maildex#tag#apply(a:changes, l:query, function('maildex#search#update_threads',
        \ [map(copy(l:items), 'v:val.thread')]))
endfunction

" Redraws the lines of THREADS in every open list with their tags as maildex now has them.
function! maildex#search#update_threads(threads, ...) abort
  call maildex#tree#update_threads(a:threads)
  let l:query = join(map(copy(a:threads), '"thread:" . v:val'))
  call maildex#transport#run(['search', '--format=json', '--format-version=5', '--exclude=false', l:query],
        \ {'on_exit': function('s:updated')})
endfunction

function! s:updated(status, out, err) abort
  let l:tags = {}
  for l:line in a:out
    let l:item = maildex#util#json_element(l:line)
    if type(l:item) == type({})
      let l:tags[l:item.thread] = l:item.tags
    endif
  endfor
  for l:buf in filter(range(1, bufnr('$')), 'type(getbufvar(v:val, "maildex_search", 0)) == type({})')
    let l:state = getbufvar(l:buf, 'maildex_search')
    for l:i in range(len(l:state.items))
      let l:item = l:state.items[l:i]
      if has_key(l:tags, l:item.thread)
        let l:item.tags = l:tags[l:item.thread]
        call maildex#util#set_lines(l:buf, l:i + 1, [s:format(l:item)], 0)
      endif
    endfor
  endfor
endfunction

function! maildex#search#tag_prompt(sign) range abort
  let l:item = maildex#search#item(a:firstline)
  let l:changes = maildex#tag#prompt(a:sign, get(l:item, 'tags', []))
  call maildex#search#tag(l:changes, a:firstline, a:lastline)
endfunction

function! maildex#search#archive() range abort
  call maildex#search#tag(maildex#tag#archive_changes(), a:firstline, a:lastline)
  if a:firstline == a:lastline
    normal! j
  endif
endfunction

function! maildex#search#toggle_unread() abort
  let l:item = maildex#search#item()
  if !empty(l:item)
    call maildex#search#tag([index(l:item.tags, 'unread') >= 0 ? '-unread' : '+unread'], line('.'), line('.'))
  endif
endfunction

" `*`: the changes on every message of the query, then the whole list again.
function! maildex#search#tag_all(...) abort
  let l:state = b:maildex_search
  let l:changes = a:0 ? a:1 : maildex#tag#prompt('+', [])
  if !empty(l:changes)
    call maildex#tag#apply(l:changes, l:state.query, function('s:refresh_buffer', [l:state.buf]))
  endif
endfunction

function! s:refresh_buffer(buf, ...) abort
  if bufexists(a:buf)
    let l:win = bufwinid(a:buf)
    if l:win != -1
      call win_execute(l:win, 'call maildex#search#refresh()')
    else
      " the thread under the cursor it had when it was left, to be found again after the refresh
      let l:state = getbufvar(a:buf, 'maildex_search')
      let l:lnum = get(get(getbufinfo(a:buf), 0, {}), 'lnum', 0)
      if l:state.keep ==# '' && l:lnum >= 1 && l:lnum <= len(l:state.items)
        let l:state.keep = l:state.items[l:lnum - 1].thread
      endif
      call setbufvar(a:buf, 'maildex_search_stale', 1)
    endif
  endif
endfunction

" A list not on screen is redrawn when it is shown again.
function! maildex#search#entered() abort
  if get(b:, 'maildex_search_stale', 0)
    let b:maildex_search_stale = 0
    call maildex#search#refresh()
  endif
endfunction

function! s:store_changed(buf) abort
  if !bufexists(a:buf) || type(getbufvar(a:buf, 'maildex_search', 0)) != type({})
    return -1
  endif
  call s:refresh_buffer(a:buf)
  return 0
endfunction

function! maildex#search#reply(all) abort
  let l:item = maildex#search#item()
  if !empty(l:item)
    " reply takes one message (as notmuch's structured reply): the newest matched one
    let l:ids = maildex#util#ids({'query': l:item.query[0:0]})
    call maildex#compose#reply(empty(l:ids) ? 'thread:' . l:item.thread : maildex#util#term('id', l:ids[-1]), a:all)
  endif
endfunction

" e: the thread's draft in a mail buffer again (maildex#compose#resume): its newest message tagged
" draft, else its newest matched message (which, being no draft, opens only once the user says so).
function! maildex#search#resume() abort
  let l:item = maildex#search#item()
  if !empty(l:item)
    call maildex#transport#run(['search', '--output=messages', '--sort=newest-first', '--limit=1',
          \ 'thread:' . l:item.thread . ' and tag:draft'], {'on_exit': function('s:resume_draft', [l:item])})
  endif
endfunction

function! s:resume_draft(item, status, out, err) abort
  if a:status != 0 " the transport has reported it
    return
  endif
  let l:id = matchstr(get(a:out, 0, ''), '^id:\zs.*')
  if l:id !=# ''
    return maildex#compose#resume(l:id, ['draft'])
  endif
  let l:ids = maildex#util#ids({'query': a:item.query[0:0]})
  if !empty(l:ids)
    call maildex#compose#resume(l:ids[-1], [])
  endif
endfunction

function! maildex#search#close() abort
  let l:state = get(b:, 'maildex_search', {})
  if !empty(l:state)
    call maildex#transport#stop(l:state.handle)
  endif
  call maildex#util#close()
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
