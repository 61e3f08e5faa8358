" SPDX-License-Identifier: GPL-3.0-or-later
" A mail buffer's lines as an RFC 5322 message: its headers (empty ones dropped, non-ASCII words as
" RFC 2047 encoded words), Date, Message-ID and MIME headers added, the body as UTF-8 text. Pure
" string work; returns the message, or 'error: REASON' when it cannot be sent.

function! maildex#message#build(lines) abort
  let l:headers = []
  let l:i = 0
  while l:i < len(a:lines) && a:lines[l:i] !=# ''
    if a:lines[l:i] =~# '^\s' && !empty(l:headers)
      let l:headers[-1][1] .= ' ' . substitute(a:lines[l:i], '^\s\+', '', '')
    elseif a:lines[l:i] =~# '^[!-9;-~]\+:'
      let l:name = matchstr(a:lines[l:i], '^[^:]\+')
      call add(l:headers, [l:name, substitute(a:lines[l:i][len(l:name) + 1 :], '^\s\+\|\s\+$', '', 'g')])
    else
      return 'error: line ' . (l:i + 1) . ' is not a header (an empty line ends the headers)'
    endif
    let l:i += 1
  endwhile
  call filter(l:headers, 'v:val[1] !=# ""')
  let l:names = map(copy(l:headers), 'tolower(v:val[0])')
  if index(l:names, 'to') < 0 && index(l:names, 'cc') < 0 && index(l:names, 'bcc') < 0
    return 'error: the message has no recipient (To, Cc or Bcc)'
  endif
  let l:add = [['Date', strftime('%a, %d %b %Y %H:%M:%S %z')],
        \ ['Message-ID', printf('<%s.%d.%d@maildex.vim>', strftime('%Y%m%d%H%M%S'), getpid(), s:random())],
        \ ['MIME-Version', '1.0'], ['Content-Type', 'text/plain; charset=utf-8'],
        \ ['Content-Transfer-Encoding', '8bit'], ['User-Agent', 'maildex.vim']]
  for [l:name, l:value] in l:add
    if index(l:names, tolower(l:name)) < 0
      call add(l:headers, [l:name, l:value])
    endif
  endfor
  let l:text = map(l:headers, 'v:val[0] . ": " . s:encode_header(v:val[0], v:val[1])')
  return join(l:text + [''] + a:lines[l:i + 1 :], "\n") . "\n"
endfunction

function! s:random() abort
  return exists('*rand') ? rand() % 1000000 : reltimefloat(reltime()) * 1000000 % 1000000
endfunction

function! s:encode_header(name, value) abort
  if a:value !~# '[^\x01-\x7f]'
    return a:value
  endif
  if a:name !~? '^\%(from\|to\|cc\|bcc\|reply-to\)$'
    return s:encode_words(a:value)
  endif
  " addresses: only the display names are encoded (the quoted ones whole), never <address>
  let l:out = []
  for l:address in split(a:value, ',\%(\%([^"]*"[^"]*"\)*[^"]*$\)\@=')
    let l:m = matchlist(l:address, '^\s*\(.\{-}\)\s*\(<[^>]*>\)\s*$')
    if !empty(l:m) && l:m[1] =~# '[^\x01-\x7f]'
      call add(l:out, s:encode_words(substitute(l:m[1], '^"\(.*\)"$', '\1', '')) . ' ' . l:m[2])
    else
      call add(l:out, substitute(l:address, '^\s\+', '', ''))
    endif
  endfor
  return join(l:out, ', ')
endfunction

" TEXT as RFC 2047 Q encoded words of at most 75 characters, never splitting a character.
function! s:encode_words(text) abort
  let l:words = []
  let l:word = ''
  for l:char in split(a:text, '\zs')
    let l:encoded = l:char =~# '^[A-Za-z0-9!*+/-]$' ? l:char : l:char ==# ' ' ? '_'
          \ : join(map(range(len(l:char)), 'printf("=%02X", char2nr(l:char[v:val], 0) % 256)'), '')
    if len(l:word) + len(l:encoded) > 63
      call add(l:words, l:word)
      let l:word = ''
    endif
    let l:word .= l:encoded
  endfor
  call add(l:words, l:word)
  return join(map(l:words, '"=?UTF-8?Q?" . v:val . "?="'))
endfunction
