" SPDX-License-Identifier: GPL-3.0-or-later
" A mail buffer's lines as an RFC 5322 message. To send (maildex#message#build): its headers (empty
" ones dropped, non-ASCII words as RFC 2047 encoded words), Date, Message-ID and MIME headers added,
" the body as UTF-8 text, and each `Attach: FILE` header turned into a base64 part of a
" multipart/mixed message. As a draft (maildex#message#draft): the lines as written, `Attach:` kept
" (notmuch.el's drafts keep their MML the same way), marked X-Maildex-Draft, for the mail buffer to
" be made again from it (maildex#message#resume). String work and reading the attached files;
" returns {'text': MESSAGE, 'id': MESSAGE-ID} or {'error': REASON}.
let s:cpo_save = &cpo
set cpo&vim

" Headers a draft gets on saving and loses again on resuming.
let s:generated = ['date', 'message-id', 'mime-version', 'content-type', 'content-transfer-encoding',
      \ 'user-agent', 'x-maildex-draft']

function! maildex#message#build(lines) abort
  let l:parsed = s:parse(a:lines)
  if has_key(l:parsed, 'error')
    return l:parsed
  endif
  let l:headers = l:parsed.headers
  let l:names = map(copy(l:headers), 'tolower(v:val[0])')
  if index(l:names, 'to') < 0 && index(l:names, 'cc') < 0 && index(l:names, 'bcc') < 0
    return {'error': 'the message has no recipient (To, Cc or Bcc)'}
  endif
  let l:files = map(filter(copy(l:headers), 'tolower(v:val[0]) ==# "attach"'), 'v:val[1]')
  call filter(l:headers, 'tolower(v:val[0]) !=# "attach"')
  let l:parts = []
  for l:file in l:files
    let l:part = s:attachment(l:file)
    if type(l:part) == type('')
      return {'error': l:part}
    endif
    call add(l:parts, l:part)
  endfor
  let l:id = s:message_id()
  let l:boundary = '=-maildex-' . s:random() . '-' . s:random()
  let l:text = ['Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit']
  let l:add = [['Date', s:date()], ['Message-ID', '<' . l:id . '>'], ['MIME-Version', '1.0']]
        \ + (empty(l:parts) ? map(copy(l:text), 'split(v:val, ": ")')
        \ : [['Content-Type', 'multipart/mixed; boundary="' . l:boundary . '"']])
        \ + [['User-Agent', 'maildex.vim']]
  let l:out = map(s:add_missing(l:headers, l:add), 'v:val[0] . ": " . s:encode_header(v:val[0], v:val[1])')
  if empty(l:parts)
    return {'text': join(l:out + [''] + l:parsed.body, "\n") . "\n", 'id': l:id}
  endif
  call extend(l:out, ['', 'This is a multipart message in MIME format.', '--' . l:boundary]
        \ + l:text + [''] + l:parsed.body)
  for l:part in l:parts
    call extend(l:out, ['--' . l:boundary] + l:part)
  endfor
  return {'text': join(l:out + ['--' . l:boundary . '--'], "\n") . "\n", 'id': l:id}
endfunction

" The buffer as a draft: its headers as written (UTF-8, `Attach:` kept), the generated ones added.
function! maildex#message#draft(lines) abort
  let l:parsed = s:parse(a:lines)
  if has_key(l:parsed, 'error')
    return l:parsed
  endif
  let l:id = s:message_id()
  let l:headers = filter(l:parsed.headers, 'index(s:generated, tolower(v:val[0])) < 0')
  let l:headers += [['Date', s:date()], ['Message-ID', '<' . l:id . '>'], ['X-Maildex-Draft', 'True'],
        \ ['MIME-Version', '1.0'], ['Content-Type', 'text/plain; charset=utf-8'],
        \ ['Content-Transfer-Encoding', '8bit'], ['User-Agent', 'maildex.vim']]
  let l:out = map(l:headers, 'v:val[0] . ": " . v:val[1]')
  return {'text': join(l:out + [''] + l:parsed.body, "\n") . "\n", 'id': l:id}
endfunction

" A stored message (`show --format=raw` lines) as mail buffer lines: [headers, body], the headers
" as [name, value] without those a draft gets on saving.
function! maildex#message#resume(lines) abort
  let l:lines = map(copy(a:lines), 'substitute(v:val, "\r$", "", "")')
  let l:end = index(l:lines, '')
  let l:headers = []
  for l:line in l:end < 0 ? l:lines : l:lines[: l:end - 1]
    if l:line =~# '^\s' && !empty(l:headers)
      let l:headers[-1][1] .= ' ' . substitute(l:line, '^\s\+', '', '')
    elseif l:line =~# '^[!-9;-~]\+:'
      let l:name = matchstr(l:line, '^[^:]\+')
      call add(l:headers, [l:name, substitute(l:line[len(l:name) + 1 :], '^\s\+\|\s\+$', '', 'g')])
    endif
  endfor
  call filter(l:headers, 'index(s:generated, tolower(v:val[0])) < 0')
  return [l:headers, l:end < 0 ? [] : l:lines[l:end + 1 :]]
endfunction

" The headers (a continuation line joined to its header, empty ones dropped) and the body.
function! s:parse(lines) abort
  let l:headers = []
  let l:i = 0
  while l:i < len(a:lines) && a:lines[l:i] !=# ''
    if a:lines[l:i] =~# '^\s' && !empty(l:headers)
      let l:headers[-1][1] .= ' ' . substitute(a:lines[l:i], '^\s\+', '', '')
    elseif a:lines[l:i] =~# '^[!-9;-~]\+:'
      let l:name = matchstr(a:lines[l:i], '^[^:]\+')
      call add(l:headers, [l:name, substitute(a:lines[l:i][len(l:name) + 1 :], '^\s\+\|\s\+$', '', 'g')])
    else
      return {'error': 'line ' . (l:i + 1) . ' is not a header (an empty line ends the headers)'}
    endif
    let l:i += 1
  endwhile
  return {'headers': filter(l:headers, 'v:val[1] !=# ""'), 'body': a:lines[l:i + 1 :]}
endfunction

" HEADERS with those of ADD whose names it lacks appended.
function! s:add_missing(headers, add) abort
  let l:names = map(copy(a:headers), 'tolower(v:val[0])')
  return a:headers + filter(copy(a:add), 'index(l:names, tolower(v:val[0])) < 0')
endfunction

function! s:date() abort
  return strftime('%a, %d %b %Y %H:%M:%S %z')
endfunction

function! s:message_id() abort
  return printf('%s.%d.%d@maildex.vim', strftime('%Y%m%d%H%M%S'), getpid(), s:random())
endfunction

function! s:random() abort
  return exists('*rand') ? rand() % 1000000 : float2nr(reltimefloat(reltime()) * 1000000) % 1000000
endfunction

" The lines of a MIME part holding FILE in base64, or a string saying why it cannot be read.
function! s:attachment(file) abort
  let l:path = fnamemodify(expand(a:file), ':p')
  if !filereadable(l:path)
    return 'cannot attach ' . a:file . ': no such file, or not readable'
  endif
  try
    let l:bytes = readfile(l:path, 'B')
  catch
    return 'cannot attach ' . a:file . ': ' . v:exception
  endtry
  let l:name = fnamemodify(l:path, ':t')
  return ['Content-Type: ' . s:type(l:name) . '; ' . s:parameter('name', l:name),
        \ 'Content-Disposition: attachment; ' . s:parameter('filename', l:name),
        \ 'Content-Transfer-Encoding: base64', ''] + maildex#message#base64(l:bytes)
endfunction

" Types by file name extension; anything else is application/octet-stream.
let s:types = {'pdf': 'application/pdf', 'txt': 'text/plain', 'text': 'text/plain', 'md': 'text/markdown',
      \ 'html': 'text/html', 'htm': 'text/html', 'csv': 'text/csv', 'ics': 'text/calendar',
      \ 'patch': 'text/x-diff', 'diff': 'text/x-diff', 'png': 'image/png', 'jpg': 'image/jpeg',
      \ 'jpeg': 'image/jpeg', 'gif': 'image/gif', 'svg': 'image/svg+xml', 'webp': 'image/webp',
      \ 'zip': 'application/zip', 'gz': 'application/gzip', 'tar': 'application/x-tar',
      \ 'json': 'application/json', 'xml': 'application/xml', 'odt': 'application/vnd.oasis.opendocument.text',
      \ 'ods': 'application/vnd.oasis.opendocument.spreadsheet', 'doc': 'application/msword',
      \ 'docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      \ 'xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      \ 'mp3': 'audio/mpeg', 'ogg': 'audio/ogg', 'mp4': 'video/mp4'}

function! s:type(name) abort
  return get(s:types, tolower(fnamemodify(a:name, ':e')), 'application/octet-stream')
endfunction

" name="VALUE", or RFC 2231's name*=UTF-8''%XX... for a value that is not printable ASCII.
function! s:parameter(name, value) abort
  if a:value =~# '^[ -~]*$'
    return a:name . '="' . escape(a:value, '"\') . '"'
  endif
  return a:name . "*=UTF-8''" . join(map(range(len(a:value)), 'a:value[v:val] =~# "[A-Za-z0-9._-]" ? a:value[v:val]'
        \ . ' : printf("%%%02X", char2nr(a:value[v:val], 0) % 256)'), '')
endfunction

" BYTES (a Blob) in base64, 76 characters a line. 24 bits are two lookups in a table of the 4,096
" pairs of characters, so a megabyte takes a few hundred thousand steps of Vim script.
let s:pairs = []
function! maildex#message#base64(bytes) abort
  if empty(s:pairs)
    let l:chars = split('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', '\zs')
    let s:pairs = map(range(4096), 'l:chars[v:val / 64] . l:chars[v:val % 64]')
  endif
  let l:lines = []
  let l:n = len(a:bytes)
  let l:full = l:n - l:n % 3
  let l:i = 0
  while l:i < l:full
    let l:line = []
    let l:end = min([l:i + 57, l:full])
    while l:i < l:end
      let l:v = a:bytes[l:i] * 65536 + a:bytes[l:i + 1] * 256 + a:bytes[l:i + 2]
      call add(l:line, s:pairs[l:v / 4096] . s:pairs[l:v % 4096])
      let l:i += 3
    endwhile
    call add(l:lines, join(l:line, ''))
  endwhile
  if l:n > l:full
    let l:v = a:bytes[l:full] * 65536 + (l:n - l:full == 2 ? a:bytes[l:full + 1] * 256 : 0)
    let l:last = s:pairs[l:v / 4096] . (l:n - l:full == 2 ? s:pairs[l:v % 4096][0] . '=' : '==')
    if !empty(l:lines) && len(l:lines[-1]) < 76
      let l:lines[-1] .= l:last
    else
      call add(l:lines, l:last)
    endif
  endif
  return l:lines
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

let &cpo = s:cpo_save
unlet s:cpo_save
