" SPDX-License-Identifier: GPL-3.0-or-later
" What the plugin's buffers share: opening a scratch buffer by name, writing its lines while it stays
" read-only for the user, fixed-width columns in display cells, one streamed JSON element per line,
" and quoting for messages and queries. No maildex command runs here.
let s:cpo_save = &cpo
set cpo&vim

let s:buffers = {}

" Shows the buffer NAME in the current window (creating it the first time) with the filetype FT,
" whose ftplugin and syntax are loaded even when the user has no `filetype plugin on`. The buffer
" it was opened from is remembered (b:maildex_from), for `q` to go back to (Vim's alternate file
" is one deep: a thread opened from a tree opened from a list must lead back to the list).
function! maildex#util#open_buffer(name, ft) abort
  let l:from = bufnr('%')
  let l:buf = get(s:buffers, a:name, -1)
  if l:buf > 0 && bufexists(l:buf)
    execute 'silent buffer' l:buf
  else
    execute (&modified && !&hidden ? 'silent new' : 'silent enew')
    execute 'silent keepalt file' fnameescape(a:name)
    setlocal buftype=nofile bufhidden=hide noswapfile nomodifiable nobuflisted
    setlocal nowrap nonumber norelativenumber nolist
    let s:buffers[a:name] = bufnr('%')
    call maildex#util#filetype(a:ft)
  endif
  if l:from != bufnr('%')
    let b:maildex_from = l:from
  endif
  return bufnr('%')
endfunction

function! maildex#util#filetype(ft) abort
  execute 'setlocal filetype=' . a:ft
  for l:ft in split(a:ft, '\.')
    " maildexcompose follows mail, whose ftplugin sets b:did_ftplugin: it has a guard of its own
    let l:guard = l:ft ==# 'maildexcompose' ? 'b:did_ftplugin_maildexcompose' : 'b:did_ftplugin'
    if l:ft =~# '^maildex' && !exists(l:guard)
      execute 'runtime! ftplugin/' . l:ft . '.vim'
    endif
  endfor
  if !exists('b:current_syntax')
    execute 'runtime! syntax/' . split(a:ft, '\.')[0] . '.vim'
  endif
endfunction

" Writes LINES into buffer BUF from line START on; with REPLACE_REST, whatever followed them goes.
function! maildex#util#set_lines(buf, start, lines, replace_rest) abort
  if !bufexists(a:buf)
    return
  endif
  let l:modifiable = getbufvar(a:buf, '&modifiable')
  call setbufvar(a:buf, '&modifiable', 1)
  if !empty(a:lines)
    call setbufline(a:buf, a:start, a:lines)
  endif
  let l:last = a:start + len(a:lines)
  if a:replace_rest && l:last <= len(getbufline(a:buf, 1, '$'))
    silent call deletebufline(a:buf, l:last, '$')
  endif
  call setbufvar(a:buf, '&modifiable', l:modifiable)
endfunction

function! maildex#util#line_count(buf) abort
  return len(getbufline(a:buf, 1, '$'))
endfunction

" TEXT cut or padded to exactly WIDTH display cells (RIGHT aligns it).
function! maildex#util#column(text, width, ...) abort
  let l:text = a:text
  if strdisplaywidth(l:text) > a:width
    let l:chars = strchars(l:text)
    while l:chars > 0 && strdisplaywidth(l:text) > a:width - 3
      let l:chars -= 1
      let l:text = strcharpart(l:text, 0, l:chars)
    endwhile
    let l:text .= '...'
  endif
  let l:fill = repeat(' ', a:width - strdisplaywidth(l:text))
  return get(a:, 1, 0) ? l:fill . l:text : l:text . l:fill
endfunction

" One element of a JSON list that maildex prints one element a line: "[{...},", "{...},", "{...}]".
" Returns v:null for the brackets alone or a line that does not parse.
function! maildex#util#json_element(line) abort
  let l:text = substitute(substitute(a:line, '^\[', '', ''), '\%(,\|\]\)\s*$', '', '')
  if l:text ==# ''
    return v:null
  endif
  try
    return json_decode(l:text)
  catch
    return v:null
  endtry
endfunction

" A whole JSON document from the lines of a finished command (v:null when it does not parse).
function! maildex#util#json(lines) abort
  try
    return json_decode(join(a:lines, "\n"))
  catch
    return v:null
  endtry
endfunction

" WORD as a shell would need it quoted, for showing a command to a person (never run through a shell).
function! maildex#util#shellword(word) abort
  return a:word =~# '^[A-Za-z0-9_.,:/=+@%-]\+$' ? a:word : "'" . substitute(a:word, "'", "'\\\\''", 'g') . "'"
endfunction

" A query term for a value, quoted as notmuch.el's notmuch-escape-boolean-term quotes it.
function! maildex#util#term(prefix, value) abort
  if a:value =~# '^[!#-''*-~]\+$' && a:value !~# '[()]'
    return a:prefix . ':' . a:value
  endif
  return a:prefix . ':"' . substitute(a:value, '"', '""', 'g') . '"'
endfunction

" The message ids of a search result's thread ("query": ["id:a id:b", "id:c"], ids maybe quoted).
function! maildex#util#ids(item) abort
  let l:ids = []
  for l:query in filter(copy(get(a:item, 'query', [])), 'type(v:val) == type("")')
    let l:pos = 0
    while 1
      let [l:term, l:start, l:pos] = matchstrpos(l:query, 'id:\%("\%([^"]\|""\)*"\|\S\+\)', l:pos)
      if l:start < 0
        break
      endif
      let l:id = l:term[3:]
      call add(l:ids, l:id =~# '^"' ? substitute(l:id[1:-2], '""', '"', 'g') : l:id)
    endwhile
  endfor
  return l:ids
endfunction

" A query for the mail both queries A and B match. `*` (all mail) is a query only on its own in
" notmuch's language, never a term of a larger one, so it is left out.
function! maildex#util#both(a, b) abort
  let l:all = '^\s*\*\=\s*$'
  return a:b =~# l:all ? a:a : a:a =~# l:all ? a:b : '(' . a:a . ') and (' . a:b . ')'
endfunction

" A string as a Vim value that getline() etc. compare: strings from JSON may be v:null.
function! maildex#util#str(value) abort
  return type(a:value) == type('') ? a:value : ''
endfunction

" Leaves a plugin buffer for the one it was opened from (the list a thread was opened from), or
" else the alternate file, and wipes it.
function! maildex#util#close() abort
  let l:buf = bufnr('%')
  let l:back = get(b:, 'maildex_from', -1)
  if l:back <= 0 || l:back == l:buf || !bufexists(l:back)
    let l:back = bufnr('#')
  endif
  if l:back > 0 && l:back != l:buf && bufexists(l:back)
    execute 'silent keepalt buffer' l:back
  else
    silent enew
  endif
  execute 'silent! bwipeout' l:buf
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
