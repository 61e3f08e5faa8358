" SPDX-License-Identifier: GPL-3.0-or-later
" The thread view: `maildex show --format=json` of one thread, drawn as notmuch.el draws it. Each
" message is a header line (author, date, tags), its Subject/To/Cc/Date and its text, indented one
" column per reply level; long quotes and signatures are folded, HTML goes through a converter,
" other parts are buttons ("[ name: type (size) ]") to save or open. Messages that do not match the
" list's query start folded. Drawing is a function of b:maildex_show alone, so it can run again.
" (The fold options are the ftplugin's: ftplugin/maildexshow.vim.)
let s:cpo_save = &cpo
set cpo&vim

" Shows thread THREAD of the list of QUERY; TITLE names it, and the cursor goes to the message
" whose id is TARGET (from a tree), else to the first message that matches the query.
function! maildex#show#open(thread, query, ...) abort
  let l:buf = maildex#util#open_buffer('maildex://thread/' . a:thread, 'maildexshow')
  let b:maildex_show = {'buf': l:buf, 'thread': a:thread, 'query': a:query, 'title': get(a:, 1, ''),
        \ 'target': get(a:, 2, ''), 'messages': [], 'html': {}, 'shown': {}, 'lines': {}, 'parts': {},
        \ 'folds': [], 'loaded': 0, 'failed': 0}
  call maildex#util#set_lines(l:buf, 1, ['Loading thread:' . a:thread . ' ...'], 1)
  call s:load(b:maildex_show, maildex#util#both('thread:' . a:thread, a:query), 1)
  return l:buf
endfunction

function! s:load(state, query, first) abort
  call maildex#transport#run(['show', '--format=json', '--format-version=5', '--exclude=false',
        \ '--entire-thread=true', '--include-html', '--decrypt=' . get(g:, 'maildex_decrypt', 'true'),
        \ a:query], {'on_exit': function('s:loaded', [a:state, a:first])})
endfunction

function! s:loaded(state, first, status, out, err) abort
  let l:threads = maildex#util#json(a:out)
  if a:first && type(l:threads) == type([]) && empty(l:threads)
    " the thread no longer matches the list's query (it was tagged): show it whole, as notmuch.el does
    return s:load(a:state, 'thread:' . a:state.thread, 0)
  endif
  let a:state.messages = []
  let a:state.failed = a:status != 0 || type(l:threads) != type([])
  for l:thread in a:state.failed ? [] : l:threads
    call s:flatten(a:state, l:thread, 0)
  endfor
  let a:state.loaded = 1
  call s:draw(a:state)
  let l:first = filter(copy(a:state.messages), 'v:val.msg.id ==# a:state.target')
  if empty(l:first)
    let l:first = filter(copy(a:state.messages), 'get(v:val.msg, "match", 0)')
  endif
  let l:target = empty(l:first) ? get(a:state.messages, 0, {}) : l:first[0]
  if !empty(l:target)
    call s:in_window(a:state, 'call cursor(' . l:target.header . ', 1)')
    call maildex#show#mark_read(a:state, l:target)
  endif
endfunction

" A thread is a list of [message, replies] pairs; replies are such a list again.
function! s:flatten(state, nodes, depth) abort
  for l:node in a:nodes
    if type(l:node) == type([]) && len(l:node) == 2
      if type(l:node[0]) == type({})
        call add(a:state.messages, {'msg': l:node[0], 'depth': a:depth})
      endif
      call s:flatten(a:state, l:node[1], a:depth + 1)
    endif
  endfor
endfunction

function! s:in_window(state, command) abort
  let l:win = bufwinid(a:state.buf)
  if l:win != -1
    call win_execute(l:win, a:command)
  endif
endfunction

function! s:draw(state) abort
  let l:out = {'lines': [], 'folds': []}
  let a:state.lines = {}
  let a:state.parts = {}
  for l:m in a:state.messages
    call s:draw_message(a:state, l:out, l:m)
  endfor
  if a:state.failed
    call add(l:out.lines, 'Loading thread:' . a:state.thread . ' failed: :MaildexErrors shows why.')
  elseif empty(a:state.messages)
    call add(l:out.lines, 'No messages in thread:' . a:state.thread . '.')
  endif
  let a:state.folds = l:out.folds
  call maildex#util#set_lines(a:state.buf, 1, l:out.lines, 1)
  call s:in_window(a:state, 'call maildex#show#apply_folds()')
endfunction

" Draws STATE again where the user is (a converted HTML part arrived, a hidden part was shown).
function! maildex#show#redraw(state) abort
  let l:win = bufwinid(a:state.buf)
  if l:win != -1
    call win_execute(l:win, 'let b:maildex_view = winsaveview()')
  endif
  call s:draw(a:state)
  if l:win != -1
    call win_execute(l:win, 'call winrestview(b:maildex_view)')
  endif
endfunction

function! s:header_line(m) abort
  let l:headers = get(a:m.msg, 'headers', {})
  return repeat(' ', a:m.depth) . maildex#util#str(get(l:headers, 'From', '')) . ' ('
        \ . maildex#util#str(get(a:m.msg, 'date_relative', '')) . ') (' . join(get(a:m.msg, 'tags', [])) . ')'
endfunction

function! s:draw_message(state, out, m) abort
  let l:indent = repeat(' ', a:m.depth)
  let a:m.header = len(a:out.lines) + 1
  call add(a:out.lines, s:header_line(a:m))
  let l:headers = get(a:m.msg, 'headers', {})
  for l:name in get(g:, 'maildex_show_headers', ['Subject', 'To', 'Cc', 'Date'])
    if maildex#util#str(get(l:headers, l:name, '')) !=# ''
      call add(a:out.lines, l:indent . l:name . ': ' . l:headers[l:name])
    endif
  endfor
  call add(a:out.lines, l:indent)
  for l:part in get(a:m.msg, 'body', [])
    call s:draw_part(a:state, a:out, a:m, l:part, 0)
  endfor
  let a:m.end = len(a:out.lines)
  call add(a:out.folds, {'first': a:m.header, 'last': a:m.end, 'kind': 'message',
        \ 'open': get(a:m.msg, 'match', 0)})
endfunction

function! s:button(state, out, m, part, text) abort
  call add(a:out.lines, repeat(' ', a:m.depth) . '[ ' . a:text . ' ]')
  let a:state.parts[len(a:out.lines)] = {'message': a:m.msg.id, 'part': a:part}
endfunction

function! s:draw_part(state, out, m, part, in_alternative) abort
  let l:type = tolower(maildex#util#str(get(a:part, 'content-type', '')))
  let l:content = get(a:part, 'content', v:null)
  for l:status in get(a:part, 'sigstatus', [])
    call s:button(a:state, a:out, a:m, a:part, maildex#crypto#signature(l:status))
  endfor
  for l:status in get(a:part, 'encstatus', [])
    call s:button(a:state, a:out, a:m, a:part, maildex#crypto#decryption(l:status))
  endfor
  if l:type ==# 'multipart/alternative' && type(l:content) == type([])
    let l:has_text = !empty(filter(copy(l:content), 'tolower(get(v:val, "content-type", "")) ==# "text/plain"'))
    for l:child in l:content
      call s:draw_part(a:state, a:out, a:m, l:child, l:has_text)
    endfor
  elseif l:type ==# 'message/rfc822' && type(l:content) == type([])
    call s:button(a:state, a:out, a:m, a:part, 'message/rfc822')
    for l:inner in l:content
      for [l:name, l:value] in items(get(l:inner, 'headers', {}))
        call add(a:out.lines, repeat(' ', a:m.depth) . l:name . ': ' . maildex#util#str(l:value))
      endfor
      for l:child in get(l:inner, 'body', [])
        call s:draw_part(a:state, a:out, a:m, l:child, 0)
      endfor
    endfor
  elseif l:type =~# '^multipart/' && type(l:content) == type([])
    for l:child in l:content
      if tolower(get(l:child, 'content-type', '')) !~# '^application/pgp-\%(signature\|encrypted\)$'
        call s:draw_part(a:state, a:out, a:m, l:child, 0)
      endif
    endfor
  elseif l:type ==# 'text/plain' && type(l:content) == type('')
    if has_key(a:part, 'filename')
      call s:button(a:state, a:out, a:m, a:part, s:describe(a:part))
    endif
    call s:text(a:out, a:m, split(l:content, "\n", 1))
  elseif l:type ==# 'text/html' && type(l:content) == type('')
    let l:key = a:m.msg.id . '/' . a:part.id
    if a:in_alternative && !has_key(a:state.shown, l:key)
      call s:button(a:state, a:out, a:m, a:part, 'text/html (hidden)')
    else
      call s:button(a:state, a:out, a:m, a:part, s:describe(a:part))
      call s:text(a:out, a:m, maildex#html#text(a:state, l:key, l:content))
    endif
  else
    call s:button(a:state, a:out, a:m, a:part, s:describe(a:part))
  endif
endfunction

" "[ minutes.pdf: application/pdf (737 bytes) ]", as notmuch.el's part buttons, with the size.
function! s:describe(part) abort
  let l:text = maildex#util#str(get(a:part, 'content-type', ''))
  if maildex#util#str(get(a:part, 'filename', '')) !=# ''
    let l:text = a:part.filename . ': ' . l:text
  endif
  if type(get(a:part, 'content-length', '')) == type(0)
    let l:text .= ' (' . a:part['content-length'] . ' bytes)'
  endif
  return l:text
endfunction

" Body text with its long quotes and its signature folded.
function! s:text(out, m, lines) abort
  let l:lines = a:lines
  if !empty(l:lines) && l:lines[-1] ==# ''
    call remove(l:lines, -1)
  endif
  let l:indent = repeat(' ', a:m.depth)
  let l:first = len(a:out.lines) + 1
  call extend(a:out.lines, map(copy(l:lines), 'l:indent . v:val'))
  let l:min_quote = get(g:, 'maildex_fold_quote_lines', 5)
  let l:i = 0
  while l:i < len(l:lines)
    if l:lines[l:i] =~# '^-- \?$' && len(l:lines) - l:i <= get(g:, 'maildex_signature_max_lines', 12)
      call add(a:out.folds, {'first': l:first + l:i, 'last': l:first + len(l:lines) - 1, 'kind': 'signature'})
      break
    endif
    let l:j = l:i
    while l:j < len(l:lines) && l:lines[l:j] =~# '^\s*>'
      let l:j += 1
    endwhile
    if l:j - l:i >= l:min_quote
      call add(a:out.folds, {'first': l:first + l:i, 'last': l:first + l:j - 1, 'kind': 'citation'})
    endif
    let l:i = max([l:j, l:i + 1])
  endwhile
endfunction

" Run in the thread's window: the folds of the last drawing, inner ones first so messages nest them.
function! maildex#show#apply_folds() abort
  let l:state = get(b:, 'maildex_show', {})
  if empty(l:state)
    return
  endif
  normal! zE
  for l:fold in l:state.folds
    execute l:fold.first . ',' . l:fold.last . 'fold'
  endfor
  for l:fold in filter(copy(l:state.folds), 'v:val.kind ==# "message" && v:val.open')
    execute l:fold.first . 'foldopen'
  endfor
endfunction

" A closed fold's line: a message's header line, or what a quote or signature hides. Padded to the
" window's width, so that no 'fillchars' fold character follows it (the ftplugin would have to set
" that option, which is the user's).
function! maildex#show#foldtext() abort
  let l:state = get(b:, 'maildex_show', {})
  let l:fold = filter(copy(get(l:state, 'folds', [])), 'v:val.first == v:foldstart')
  let l:count = v:foldend - v:foldstart + 1
  let l:indent = matchstr(getline(v:foldstart), '^\s*')
  if empty(l:fold) || l:fold[-1].kind ==# 'message'
    let l:text = getline(v:foldstart)
  elseif l:fold[-1].kind ==# 'signature'
    let l:text = l:indent . '[ ' . l:count . '-line signature ]'
  else
    let l:text = l:indent . '[ ' . l:count . ' more citation lines ]'
  endif
  return l:text . repeat(' ', winwidth(0))
endfunction

" The message whose lines hold LNUM (the cursor's line by default).
function! maildex#show#message(...) abort
  let l:state = get(b:, 'maildex_show', {})
  let l:lnum = get(a:, 1, line('.'))
  for l:m in get(l:state, 'messages', [])
    if has_key(l:m, 'header') && l:lnum >= l:m.header && l:lnum <= l:m.end
      return l:m
    endif
  endfor
  return {}
endfunction

" n / p: COUNT messages down or up (STEP's sign), to a header line; no further than the last or
" the first message. The message reached is marked read.
function! maildex#show#next(step) abort
  let l:headers = map(copy(get(get(b:, 'maildex_show', {}), 'messages', [])), 'v:val.header')
  let l:lnum = line('.')
  let l:target = a:step > 0 ? filter(copy(l:headers), 'v:val > l:lnum') : reverse(filter(copy(l:headers), 'v:val < l:lnum'))
  if !empty(l:target)
    call cursor(l:target[min([abs(a:step), len(l:target)]) - 1], 1)
    call maildex#show#mark_read(b:maildex_show, maildex#show#message())
  endif
endfunction

" Enter: a hidden part is shown, a button saves its part, elsewhere the message is folded or opened.
function! maildex#show#enter() abort
  let l:state = b:maildex_show
  let l:button = get(l:state.parts, line('.'), {})
  if !empty(l:button) && get(l:button.part, 'content-type', '') ==# 'text/html'
    let l:state.shown[l:button.message . '/' . l:button.part.id] = 1
    call maildex#show#redraw(l:state)
  elseif !empty(l:button) && has_key(l:button.part, 'filename')
    call maildex#show#save()
  else
    let l:m = maildex#show#message()
    if !empty(l:m)
      execute 'normal! ' . l:m.header . 'Gza'
    endif
  endif
endfunction

" The part of the button under the cursor, or else the first attachment of the message there.
function! s:attachment() abort
  let l:state = b:maildex_show
  let l:button = get(l:state.parts, line('.'), {})
  if !empty(l:button)
    return l:button
  endif
  let l:m = maildex#show#message()
  for l:lnum in sort(keys(l:state.parts), 'N')
    let l:b = l:state.parts[l:lnum]
    if !empty(l:m) && l:b.message ==# l:m.msg.id && has_key(l:b.part, 'filename')
      return l:b
    endif
  endfor
  return {}
endfunction

" Saves the attachment at the cursor to PATH (asked for, with the part's name, when not given).
function! maildex#show#save(...) abort
  let l:button = s:attachment()
  if empty(l:button)
    call maildex#error#note('no attachment here')
    return
  endif
  let l:name = maildex#util#str(get(l:button.part, 'filename', 'part-' . l:button.part.id))
  let l:dir = get(g:, 'maildex_save_directory', getcwd())
  let l:path = a:0 && a:1 !=# '' ? a:1 : input('Save attachment: ', l:dir . '/' . fnamemodify(l:name, ':t'), 'file')
  if l:path ==# ''
    return
  endif
  let l:path = fnamemodify(expand(l:path), ':p')
  if isdirectory(l:path)
    let l:path = l:path . (l:path =~# '/$' ? '' : '/') . fnamemodify(l:name, ':t')
  endif
  call s:fetch_part(l:button, l:path, function('s:saved', [l:path]))
endfunction

" The part's bytes into PATH, then DONE(status). They go into a file beside PATH first, which
" becomes PATH only once `show` has succeeded: a failure leaves neither an empty nor a half file
" where the attachment was to be, nor changes a file that was there.
function! s:fetch_part(button, path, done) abort
  let l:part = a:path . '.maildex-part'
  call maildex#transport#run(['show', '--format=raw', '--part=' . a:button.part.id,
        \ maildex#util#term('id', a:button.message)],
        \ {'out_file': l:part, 'on_exit': function('s:fetched', [l:part, a:path, a:done])})
endfunction

function! s:fetched(part, path, done, status, ...) abort
  let l:status = a:status
  if l:status == 0 && rename(a:part, a:path) != 0
    call maildex#error#note('cannot write ' . a:path)
    let l:status = 1
  endif
  call delete(a:part)
  call a:done(l:status)
endfunction

function! s:saved(path, status) abort
  if a:status == 0
    echomsg 'Saved ' . a:path
  endif
endfunction

" Opens the attachment at the cursor with g:maildex_open_command (xdg-open), from a temporary copy.
function! maildex#show#open_part() abort
  let l:button = s:attachment()
  if empty(l:button)
    call maildex#error#note('no attachment here')
    return
  endif
  let l:dir = tempname()
  call mkdir(l:dir, 'p')
  let l:path = l:dir . '/' . fnamemodify(maildex#util#str(get(l:button.part, 'filename', 'part')), ':t')
  call s:fetch_part(l:button, l:path, function('s:opened', [l:path]))
endfunction

function! s:opened(path, status) abort
  if a:status == 0
    call maildex#transport#run([], {'command': get(g:, 'maildex_open_command', ['xdg-open']) + [a:path]})
  endif
endfunction

" Tag changes on the message at the cursor (or every message of the thread with ALL).
function! maildex#show#tag(changes, ...) abort
  let l:state = get(b:, 'maildex_show', {})
  let l:all = get(a:, 1, 0)
  let l:targets = l:all ? copy(l:state.messages) : filter([maildex#show#message()], '!empty(v:val)')
  if empty(l:targets) || empty(a:changes)
    return
  endif
  let l:query = join(map(copy(l:targets), 'maildex#util#term("id", v:val.msg.id)'))
  call maildex#tag#apply(a:changes, l:query, function('s:tagged', [l:state, l:targets, a:changes]))
endfunction

function! s:tagged(state, targets, changes, ...) abort
  call maildex#tree#retag(map(copy(a:targets), 'v:val.msg.id'), a:changes)
  for l:m in a:targets
    let l:m.msg.tags = maildex#tag#changed(get(l:m.msg, 'tags', []), a:changes)
    if has_key(l:m, 'header')
      call maildex#util#set_lines(a:state.buf, l:m.header, [s:header_line(l:m)], 0)
    endif
  endfor
  call maildex#search#update_threads([a:state.thread])
endfunction

function! maildex#show#tag_prompt(sign) abort
  let l:m = maildex#show#message()
  call maildex#show#tag(maildex#tag#prompt(a:sign, get(get(l:m, 'msg', {}), 'tags', [])))
endfunction

function! maildex#show#toggle_unread() abort
  let l:m = maildex#show#message()
  if !empty(l:m)
    call maildex#show#tag([index(get(l:m.msg, 'tags', []), 'unread') >= 0 ? '-unread' : '+unread'])
  endif
endfunction

" a: archive the message and go to the next; A: the whole thread, and back to the list.
function! maildex#show#archive(all) abort
  call maildex#show#tag(maildex#tag#archive_changes(), a:all)
  if a:all
    call maildex#util#close()
  else
    call maildex#show#next(1)
  endif
endfunction

" notmuch.el removes `unread` from a message once it is shown (g:maildex_show_mark_read = 0: never).
function! maildex#show#mark_read(state, m) abort
  if get(g:, 'maildex_show_mark_read', 1) && !empty(a:m) && index(get(a:m.msg, 'tags', []), 'unread') >= 0
    let l:query = maildex#util#term('id', a:m.msg.id)
    call maildex#tag#apply(['-unread'], l:query, function('s:tagged', [a:state, [a:m], ['-unread']]))
  endif
endfunction

" =: the thread loaded again, the cursor back on the message it was on.
function! maildex#show#refresh() abort
  let l:state = b:maildex_show
  let l:m = maildex#show#message()
  call maildex#show#open(l:state.thread, l:state.query, l:state.title, empty(l:m) ? '' : l:m.msg.id)
endfunction

function! maildex#show#reply(all) abort
  let l:m = maildex#show#message()
  if !empty(l:m)
    call maildex#compose#reply(maildex#util#term('id', l:m.msg.id), a:all)
  endif
endfunction

" e: the draft under the cursor in a mail buffer again (notmuch.el's notmuch-show-resume-message).
function! maildex#show#resume() abort
  let l:m = maildex#show#message()
  if !empty(l:m)
    call maildex#compose#resume(l:m.msg.id, get(l:m.msg, 'tags', []))
  endif
endfunction

" Z: the thread as a tree (notmuch.el's notmuch-tree-from-show-current-query).
function! maildex#show#tree() abort
  let l:state = get(b:, 'maildex_show', {})
  if !empty(l:state)
    call maildex#tree#open('thread:' . l:state.thread)
  endif
endfunction

function! maildex#show#forward() abort
  let l:m = maildex#show#message()
  if !empty(l:m)
    let l:first = l:m.header
    call maildex#compose#forward(l:m.msg, getline(l:first + 1, l:m.end))
  endif
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
