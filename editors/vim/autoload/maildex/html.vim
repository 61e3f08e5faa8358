" SPDX-License-Identifier: GPL-3.0-or-later
" HTML parts as text. g:maildex_html_command, an argv reading HTML on stdin and printing text (for
" example ['w3m', '-dump', '-T', 'text/html'] or ['lynx', '-dump', '-stdin']), runs as a job and the
" thread is drawn again when it is done; without one a small converter in Vim script drops the tags.
let s:cpo_save = &cpo
set cpo&vim

" The text of an HTML part of the thread STATE, known by KEY (message id/part id).
function! maildex#html#text(state, key, html) abort
  if has_key(a:state.html, a:key)
    return copy(a:state.html[a:key])
  endif
  let l:command = get(g:, 'maildex_html_command', [])
  if empty(l:command)
    let a:state.html[a:key] = maildex#html#strip(a:html)
    return copy(a:state.html[a:key])
  endif
  let a:state.html[a:key] = ['(converting text/html)']
  call maildex#transport#run([], {'command': l:command, 'stdin': a:html,
        \ 'on_exit': function('s:converted', [a:state, a:key])})
  return copy(a:state.html[a:key])
endfunction

function! s:converted(state, key, status, out, err) abort
  let a:state.html[a:key] = a:status == 0 ? a:out : ['(the HTML converter failed: :MaildexErrors)']
  if bufexists(a:state.buf)
    call maildex#show#redraw(a:state)
  endif
endfunction

" Tags out, block ends as line breaks, the common entities decoded, blank runs squeezed.
function! maildex#html#strip(html) abort
  let l:text = substitute(a:html, '\c<\(script\|style\)\>.\{-}</\1\s*>', '', 'g')
  let l:text = substitute(l:text, '\c<br\>[^>]*>', '\n', 'g')
  let l:text = substitute(l:text, '\c</\?\(p\|div\|tr\|li\|h[1-6]\|table\|blockquote\|pre\)\>[^>]*>', '\n', 'g')
  let l:text = substitute(l:text, '<[^>]*>', '', 'g')
  for [l:entity, l:char] in [['&lt;', '<'], ['&gt;', '>'], ['&quot;', '"'], ['&#39;', "'"], ['&nbsp;', ' ']]
    let l:text = substitute(l:text, l:entity, l:char, 'g')
  endfor
  let l:text = substitute(l:text, '&#\(\d\+\);', '\=nr2char(submatch(1))', 'g')
  let l:text = substitute(l:text, '&amp;', '\&', 'g')
  let l:lines = map(split(l:text, "\n", 1), 'substitute(v:val, "\\s\\+", " ", "g")')
  call map(l:lines, 'substitute(v:val, "^ \\| $", "", "g")')
  let l:out = []
  for l:line in l:lines
    if l:line !=# '' || (!empty(l:out) && l:out[-1] !=# '')
      call add(l:out, l:line)
    endif
  endfor
  while !empty(l:out) && l:out[-1] ==# ''
    call remove(l:out, -1)
  endwhile
  return l:out
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
