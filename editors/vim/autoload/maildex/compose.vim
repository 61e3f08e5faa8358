" SPDX-License-Identifier: GPL-3.0-or-later
" The mail buffer: new mail, replies (headers from `maildex reply --format=json`, the original quoted
" as notmuch.el quotes it), forwards. :MaildexSend pipes it to g:maildex_sendmail and then files the
" sent copy with `maildex insert` (g:maildex_fcc), and tags the replied-to message +replied.

let s:count = 0

function! s:open(headers, body, meta) abort
  let s:count += 1
  call maildex#util#open_buffer('maildex://compose/' . s:count, 'mail.maildexcompose')
  setlocal modifiable buftype=nofile bufhidden=hide
  let b:maildex_compose = extend({'sent': 0}, a:meta)
  let l:lines = []
  for [l:name, l:value] in a:headers
    call add(l:lines, l:name . ': ' . l:value)
  endfor
  call maildex#util#set_lines(bufnr('%'), 1, l:lines + [''] + a:body, 1)
  setlocal modifiable nomodified
  let l:to = match(l:lines, '^To: $')
  call cursor(l:to >= 0 ? l:to + 1 : len(l:lines) + 2, l:to >= 0 ? 5 : 1)
  call maildex#address#harvest()
endfunction

" :MaildexCompose [TO]: a new message from the user's address.
function! maildex#compose#new(...) abort
  let l:to = get(a:, 1, '')
  call maildex#config#with({config -> s:open([['From', maildex#config#from(config)], ['To', l:to],
        \ ['Cc', ''], ['Subject', '']], [''], {})})
endfunction

" A reply to the one message QUERY names; ALL answers everybody (reply-all), else the sender.
function! maildex#compose#reply(query, all) abort
  call maildex#transport#run(['reply', '--format=json', '--format-version=5',
        \ '--reply-to=' . (a:all ? 'all' : 'sender'), a:query],
        \ {'on_exit': function('s:replying', [a:query])})
endfunction

function! s:replying(query, status, out, err) abort
  let l:reply = maildex#util#json(a:out)
  if a:status != 0 || type(l:reply) != type({})
    return
  endif
  let l:h = get(l:reply, 'reply-headers', {})
  let l:headers = []
  for l:name in ['From', 'To', 'Cc', 'Bcc', 'Subject', 'In-reply-to', 'References']
    if has_key(l:h, l:name) || l:name ==# 'To'
      call add(l:headers, [l:name ==# 'In-reply-to' ? 'In-Reply-To' : l:name, maildex#util#str(get(l:h, l:name, ''))])
    endif
  endfor
  let l:original = get(l:reply, 'original', {})
  let l:from = maildex#util#str(get(get(l:original, 'headers', {}), 'From', ''))
  let l:date = maildex#util#str(get(get(l:original, 'headers', {}), 'Date', ''))
  let l:body = ['On ' . l:date . ', ' . substitute(l:from, '\s*<[^>]*>$', '', '') . ' wrote:']
  for l:line in s:plain_text(get(l:original, 'body', []))
    call add(l:body, l:line ==# '' ? '>' : '> ' . l:line)
  endfor
  call s:open(l:headers, l:body + [''], {'replied': get(l:original, 'id', '')})
endfunction

" The text/plain parts of a body, as lines (what a reply quotes).
function! s:plain_text(parts) abort
  let l:lines = []
  for l:part in a:parts
    let l:content = get(l:part, 'content', v:null)
    if type(l:content) == type([])
      call extend(l:lines, s:plain_text(l:content))
    elseif type(l:content) == type('') && tolower(get(l:part, 'content-type', '')) ==# 'text/plain'
      let l:text = split(l:content, "\n", 1)
      if !empty(l:text) && l:text[-1] ==# ''
        call remove(l:text, -1)
      endif
      call extend(l:lines, l:text)
    endif
  endfor
  return l:lines
endfunction

" A forward of MSG with its text as the thread shows it (TEXT, the lines below its header line).
function! maildex#compose#forward(msg, text) abort
  let l:subject = maildex#util#str(get(get(a:msg, 'headers', {}), 'Subject', ''))
  let l:from = maildex#util#str(get(get(a:msg, 'headers', {}), 'From', ''))
  let l:indent = matchstr(get(a:text, 0, ''), '^\s*')
  let l:body = ['', '-------------------- Start of forwarded message --------------------', 'From: ' . l:from]
        \ + map(copy(a:text), 'substitute(v:val, "^" . l:indent, "", "")')
        \ + ['-------------------- End of forwarded message --------------------']
  call maildex#config#with({config -> s:open([['From', maildex#config#from(config)], ['To', ''],
        \ ['Cc', ''], ['Subject', '[' . substitute(l:from, '\s*<[^>]*>$', '', '') . '] ' . l:subject]],
        \ l:body, {})})
endfunction

" :MaildexSend: the buffer as a message, to sendmail, then filed and marked.
function! maildex#compose#send() abort
  if !exists('b:maildex_compose')
    return maildex#error#note(':MaildexSend works in a mail buffer')
  endif
  let l:message = maildex#message#build(getline(1, '$'))
  if type(l:message) == type('') && l:message =~# '^error: '
    return maildex#error#note(l:message[7:])
  endif
  let l:state = b:maildex_compose
  let l:state.buf = bufnr('%')
  let l:sendmail = get(g:, 'maildex_sendmail', ['sendmail', '-t', '-oi'])
  call maildex#transport#run([], {'command': type(l:sendmail) == type([]) ? l:sendmail : [l:sendmail],
        \ 'stdin': l:message, 'on_exit': function('s:sent', [l:state, l:message])})
  echomsg 'Sending...'
endfunction

function! s:sent(state, message, status, out, err) abort
  if a:status != 0
    return
  endif
  let a:state.sent = 1
  let l:fcc = split(get(g:, 'maildex_fcc', 'sent +sent -unread -inbox'))
  if !empty(l:fcc)
    call maildex#transport#run(['insert', '--create-folder', '--folder=' . l:fcc[0]] + l:fcc[1:],
          \ {'stdin': a:message})
  endif
  if get(a:state, 'replied', '') !=# ''
    call maildex#tag#apply(get(g:, 'maildex_replied_tags', ['+replied']),
          \ maildex#util#term('id', a:state.replied), function('s:noop'))
  endif
  if bufexists(a:state.buf)
    call setbufvar(a:state.buf, '&modified', 0)
    let l:win = bufwinid(a:state.buf)
    if l:win != -1
      call win_execute(l:win, 'call maildex#util#close()')
    endif
  endif
  echomsg 'Message sent'
endfunction

function! s:noop(...) abort
endfunction
